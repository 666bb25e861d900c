#include "kiln/poni.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "kiln/error.hpp"

namespace kiln {
namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

double number(std::string_view text, const std::string& key) {
    const std::string s(trimmed(text));
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
        throw IoError("poni: " + key + " is '" + s + "'; a number was expected");
    return v;
}

// One value of Detector_config: pyFAI writes a flat JSON object whose values
// are numbers, strings, null or lists of numbers.
struct JsonValue {
    enum class Kind { null, number, string, list, boolean } kind = Kind::null;
    double num = 0;
    std::string str;
    std::vector<double> list;
};

class FlatJson {
public:
    explicit FlatJson(std::string_view s) : s_(s) {}

    std::map<std::string, JsonValue> object() {
        std::map<std::string, JsonValue> out;
        expect('{');
        if (peek() == '}') return ++i_, finish(out);
        for (;;) {
            std::string key = string();
            expect(':');
            out[key] = value();
            const char c = next();
            if (c == '}') return finish(out);
            if (c != ',') fail("',' or '}'");
        }
    }

private:
    std::map<std::string, JsonValue> finish(std::map<std::string, JsonValue>& out) {
        if (peek() != '\0') fail("the end of the object");
        return out;
    }
    [[noreturn]] void fail(const char* what) const {
        throw IoError("poni: Detector_config is not the JSON pyFAI writes: expected " + std::string(what) +
                      " at character " + std::to_string(i_) + " of '" + std::string(s_) + "'");
    }
    char peek() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
        return i_ < s_.size() ? s_[i_] : '\0';
    }
    char next() {
        const char c = peek();
        if (c != '\0') ++i_;
        return c;
    }
    void expect(char c) {
        if (next() != c) fail(std::string(1, c).c_str());
    }
    std::string string() {
        expect('"');
        std::string out;
        while (i_ < s_.size() && s_[i_] != '"') {
            if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;  // paths: \\ and \" only
            out += s_[i_++];
        }
        expect('"');
        return out;
    }
    double num() {
        peek();
        const std::string rest(s_.substr(i_));
        char* end = nullptr;
        const double v = std::strtod(rest.c_str(), &end);
        if (end == rest.c_str()) fail("a number");
        i_ += size_t(end - rest.c_str());
        return v;
    }
    bool word(std::string_view w) {
        peek();
        if (s_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }
    JsonValue value() {
        JsonValue v;
        const char c = peek();
        if (c == '"') {
            v.kind = JsonValue::Kind::string;
            v.str = string();
        } else if (c == '[') {
            v.kind = JsonValue::Kind::list;
            ++i_;
            if (peek() == ']') return ++i_, v;
            for (;;) {
                v.list.push_back(num());
                const char d = next();
                if (d == ']') break;
                if (d != ',') fail("',' or ']'");
            }
        } else if (word("null")) {
        } else if (word("true")) {
            v.kind = JsonValue::Kind::boolean;
            v.num = 1;
        } else if (word("false")) {
            v.kind = JsonValue::Kind::boolean;
        } else {
            v.kind = JsonValue::Kind::number;
            v.num = num();
        }
        return v;
    }

    std::string_view s_;
    size_t i_ = 0;
};

size_t extent(double v, const char* what) {
    if (!(v >= 1 && v < 1e9) || v != double(size_t(v)))
        throw IoError(std::string("poni: ") + what + " holds " + std::to_string(v) + "; a positive integer was expected");
    return size_t(v);
}

void take_pair(const JsonValue& v, const char* what, size_t& a, size_t& b) {
    if (v.kind == JsonValue::Kind::null) return;
    if (v.kind != JsonValue::Kind::list || v.list.size() != 2)
        throw IoError(std::string("poni: Detector_config's ") + what + " must be a list of 2 integers");
    a = extent(v.list[0], what);
    b = extent(v.list[1], what);
}

bool generic(std::string_view name) {
    return name == "Detector";
}

// pyFAI's detector_factory(name, config) for the detectors kiln knows.
Detector configured(const std::string& name, std::string_view config_json) {
    const auto config = FlatJson(config_json.empty() ? "{}" : config_json).object();
    Detector d = generic(name) ? Detector{} : detector_by_name(name);
    for (const auto& [key, v] : config) {
        const bool set = v.kind != JsonValue::Kind::null;
        if ((key == "splineFile" || key == "x_offset_file" || key == "y_offset_file") && set)
            throw IoError("poni: detector " + name + " with a " + key +
                          "; kiln supports flat detectors of equal pixels only");
        if (key == "max_shape") take_pair(v, "max_shape", d.rows, d.cols);
        if (key == "module_size" && !generic(name)) take_pair(v, "module_size", d.module_rows, d.module_cols);
        // Named detectors fix their pixel size (pyFAI's force_pixel).
        if ((key == "pixel1" || key == "pixel2") && generic(name) && set) {
            if (v.kind != JsonValue::Kind::number) throw IoError("poni: Detector_config's " + key + " must be a number");
            (key == "pixel1" ? d.pixel1 : d.pixel2) = v.num;
        }
    }
    return d;
}

}  // namespace

Poni parse_poni(std::string_view text) {
    std::map<std::string, std::string> kv;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        kv[lower(trimmed(std::string_view(line).substr(0, colon)))] =
            std::string(trimmed(std::string_view(line).substr(colon + 1)));
    }
    const auto has = [&](const char* k) { return kv.count(k) != 0; };

    Poni p;
    p.version = has("poni_version") ? int(number(kv["poni_version"], "poni_version")) : 1;
    if (p.version == 1) {
        if (has("detector")) p.detector = generic(kv["detector"]) ? Detector{} : detector_by_name(kv["detector"]);
        const bool p1 = has("pixelsize1"), p2 = has("pixelsize2");
        if (p1 || p2) {
            if (generic(p.detector.name) || !(p1 && p2)) p.detector = Detector{};
            if (p1) p.detector.pixel1 = number(kv["pixelsize1"], "PixelSize1");
            if (p2) p.detector.pixel2 = number(kv["pixelsize2"], "PixelSize2");
        }
        if (has("splinefile") && lower(kv["splinefile"]) != "none")
            throw IoError("poni: SplineFile " + kv["splinefile"] + "; kiln supports flat detectors of equal pixels only");
    } else if (p.version == 2) {
        if (!has("detector") || !has("detector_config"))
            throw IoError("poni: version 2 needs both Detector and Detector_config");
        p.detector = configured(kv["detector"], kv["detector_config"]);
    } else {
        throw IoError("poni: poni_version " + std::to_string(p.version) + "; kiln reads versions 1 and 2");
    }

    Geometry& g = p.geometry;
    g.dist = 1.0;
    if (has("distance"))
        g.dist = number(kv["distance"], "Distance");
    else if (has("dist"))
        g.dist = number(kv["dist"], "Dist");
    const std::pair<const char*, double*> fields[] = {{"poni1", &g.poni1}, {"poni2", &g.poni2},
                                                      {"rot1", &g.rot1},   {"rot2", &g.rot2},
                                                      {"rot3", &g.rot3},   {"wavelength", &g.wavelength}};
    for (const auto& [key, field] : fields)
        if (has(key)) *field = number(kv[key], key);
    g.rows = p.detector.rows;
    g.cols = p.detector.cols;
    g.pixel1 = p.detector.pixel1;
    g.pixel2 = p.detector.pixel2;
    return p;
}

Poni read_poni(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw IoError("poni: cannot open '" + path + "'");
    std::ostringstream s;
    s << f.rdbuf();
    if (f.bad()) throw IoError("poni: cannot read '" + path + "'");
    return parse_poni(s.str());
}

}  // namespace kiln
