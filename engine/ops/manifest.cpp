// The op manifest's table and its checks: the families the op files declare,
// and invoke, which holds a call to its op's schema before running it.
#include "kiln/manifest.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "kiln/error.hpp"

namespace kiln {

namespace {

struct Table {
    std::mutex mutex;
    std::vector<OpEntry> entries;  // each family's entries in declaration order
};

Table& table() {
    static Table t;
    return t;
}

std::string snake(std::string_view name) {
    std::string s(name);
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

const char* kind_name(ArgKind k) {
    switch (k) {
    case ArgKind::array: return "an array";
    case ArgKind::operand: return "an array or a number";
    case ArgKind::number: return "a number";
    case ArgKind::integer: return "a whole number";
    case ArgKind::choice: return "a name";
    case ArgKind::numbers: return "a list of numbers";
    case ArgKind::integers: return "a list of whole numbers";
    }
    return "a value";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

std::string range_text(const ArgSpec& s) {
    if (s.min == INT64_MIN && s.max == INT64_MAX) return "any whole number";
    if (s.max == INT64_MAX) return "a whole number >= " + std::to_string(s.min);
    return "a whole number in [" + std::to_string(s.min) + ", " + std::to_string(s.max) + "]";
}

// A whole number written in decimal (an optional '-', then digits), in the
// spec's range; nullopt otherwise.
std::optional<int64_t> whole(const ArgSpec& s, const std::string& text) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    for (size_t i = 0; i < text.size(); ++i)
        if (!(std::isdigit(static_cast<unsigned char>(text[i])) || (i == 0 && text[i] == '-' && text.size() > 1)))
            return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0' || v < s.min || v > s.max) return std::nullopt;
    return v;
}

std::optional<double> real(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return std::nullopt;
    return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> items;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, sep)) items.push_back(item);
    if (!text.empty() && text.back() == sep) items.push_back("");
    return items;
}

const ArgSpec* find_arg(const OpEntry& op, const std::string& name) {
    for (const ArgSpec& a : op.args)
        if (a.name == name) return &a;
    return nullptr;
}

[[noreturn]] void refuse(const OpEntry& op, const ArgSpec& a, const std::string& what) {
    throw InvalidArgument(op.name + ": argument '" + a.name + "' " + what);
}

// Checks one given value against its spec (kind, choices, range).
void check_value(const OpEntry& op, const ArgSpec& a, OpValue& v) {
    if (a.kind == ArgKind::number && std::holds_alternative<int64_t>(v))
        v = static_cast<double>(std::get<int64_t>(v));
    if (a.kind == ArgKind::operand && std::holds_alternative<int64_t>(v))
        v = static_cast<double>(std::get<int64_t>(v));
    // One number for a list of numbers (sigma 2.0 for every axis), as the
    // command line's "--sigma 2" gives.
    if (a.kind == ArgKind::numbers && std::holds_alternative<int64_t>(v))
        v = std::vector<double>{static_cast<double>(std::get<int64_t>(v))};
    if (a.kind == ArgKind::numbers && std::holds_alternative<double>(v)) v = std::vector<double>{std::get<double>(v)};
    const bool ok = [&] {
        switch (a.kind) {
        case ArgKind::array: return std::holds_alternative<Array>(v);
        case ArgKind::operand: return std::holds_alternative<Array>(v) || std::holds_alternative<double>(v);
        case ArgKind::number: return std::holds_alternative<double>(v);
        case ArgKind::integer: return std::holds_alternative<int64_t>(v);
        case ArgKind::choice: return std::holds_alternative<std::string>(v);
        case ArgKind::numbers: return std::holds_alternative<std::vector<double>>(v);
        case ArgKind::integers: return std::holds_alternative<std::vector<int64_t>>(v);
        }
        return false;
    }();
    if (!ok) refuse(op, a, std::string("must be ") + kind_name(a.kind));
    if (a.kind == ArgKind::choice) {
        const std::string& s = std::get<std::string>(v);
        if (std::find(a.choices.begin(), a.choices.end(), s) == a.choices.end())
            refuse(op, a, "is '" + s + "'; accepted: " + join(a.choices, ", "));
    }
    const auto in_range = [&](int64_t x) {
        if (x < a.min || x > a.max) refuse(op, a, "is " + std::to_string(x) + "; accepted: " + range_text(a));
    };
    if (a.kind == ArgKind::integer) in_range(std::get<int64_t>(v));
    if (a.kind == ArgKind::integers)
        for (int64_t x : std::get<std::vector<int64_t>>(v)) in_range(x);
    if ((a.kind == ArgKind::numbers && std::get<std::vector<double>>(v).empty()) ||
        (a.kind == ArgKind::integers && std::get<std::vector<int64_t>>(v).empty()))
        refuse(op, a, "needs at least one value");
}

// Exactly one group of the alternatives given (when the op has them).
void check_alternatives(const OpEntry& op, const OpArgs& args) {
    if (op.alternatives.empty()) return;
    std::vector<std::string> given, names;
    for (const auto& group : op.alternatives) {
        bool any = false;
        for (const std::string& n : group) any = any || args.has(n);
        if (any) given.push_back(join(group, "/"));
        names.push_back(join(group, "/"));
    }
    if (given.size() == 1) return;
    throw InvalidArgument(op.name + ": give " + (given.empty() ? "one of " : "only one of ") + join(names, " or ") +
                          (given.empty() ? "" : " (given: " + join(given, " and ") + ")"));
}

}  // namespace

OpFamily::OpFamily(std::string family, std::vector<OpEntry> entries) {
    Table& t = table();
    std::lock_guard guard(t.mutex);
    for (OpEntry& e : entries) {
        e.family = family;
        t.entries.push_back(std::move(e));
    }
}

std::vector<const OpEntry*> op_manifest() {
    Table& t = table();
    std::lock_guard guard(t.mutex);
    std::vector<const OpEntry*> v;
    for (const OpEntry& e : t.entries) v.push_back(&e);
    std::stable_sort(v.begin(), v.end(), [](const OpEntry* a, const OpEntry* b) { return a->family < b->family; });
    return v;
}

const OpEntry* find_op(std::string_view name) {
    const std::string s = snake(name);
    for (const OpEntry* e : op_manifest())
        if (e->name == s) return e;
    return nullptr;
}

OpValue parse_arg(const ArgSpec& a, const std::string& text) {
    const auto bad = [&](const std::string& accepted) -> InvalidArgument {
        return InvalidArgument(a.name + ": '" + text + "' is not " + accepted);
    };
    switch (a.kind) {
    case ArgKind::array: throw InvalidArgument(a.name + ": an array is not read from text");
    case ArgKind::operand:
    case ArgKind::number:
        if (auto v = real(text)) return *v;
        throw bad("a number");
    case ArgKind::integer:
        if (auto v = whole(a, text)) return *v;
        throw bad(range_text(a));
    case ArgKind::choice:
        if (std::find(a.choices.begin(), a.choices.end(), text) != a.choices.end()) return text;
        throw bad("one of " + join(a.choices, ", "));
    case ArgKind::numbers: {
        std::vector<double> v;
        for (const std::string& item : split(text, ',')) {
            const auto x = real(item);
            if (!x)
                throw InvalidArgument(a.name + ": '" + item + "' is not a number; give a comma-separated list such as 1,2,1");
            v.push_back(*x);
        }
        if (v.empty()) throw InvalidArgument(a.name + " needs at least one number, e.g. 1,2,1");
        return v;
    }
    case ArgKind::integers: {
        std::vector<int64_t> v;
        for (const std::string& item : split(text, ',')) {
            const auto x = whole(a, item);
            if (!x) throw InvalidArgument(a.name + ": '" + item + "' is not " + range_text(a));
            v.push_back(*x);
        }
        if (v.empty()) throw InvalidArgument(a.name + " needs at least one whole number");
        return v;
    }
    }
    throw bad("accepted");
}

const OpValue& OpArgs::at(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw InvalidArgument("argument '" + name + "' was not given");
    return it->second;
}

const Array& OpArgs::array(const std::string& name) const { return std::get<Array>(at(name)); }
bool OpArgs::is_array(const std::string& name) const { return std::holds_alternative<Array>(at(name)); }
double OpArgs::number(const std::string& name) const { return std::get<double>(at(name)); }
int64_t OpArgs::integer(const std::string& name) const { return std::get<int64_t>(at(name)); }
const std::string& OpArgs::text(const std::string& name) const { return std::get<std::string>(at(name)); }
const std::vector<double>& OpArgs::numbers(const std::string& name) const {
    return std::get<std::vector<double>>(at(name));
}
const std::vector<int64_t>& OpArgs::integers(const std::string& name) const {
    return std::get<std::vector<int64_t>>(at(name));
}

OpResult invoke(const OpEntry& op, OpArgs args) {
    OpArgs checked(args.context());
    for (const auto& [name, value] : args.values()) {
        const ArgSpec* a = find_arg(op, name);
        if (!a) {
            std::vector<std::string> names;
            for (const ArgSpec& s : op.args) names.push_back(s.name);
            throw InvalidArgument(op.name + ": no argument '" + name + "'; its arguments are " + join(names, ", "));
        }
        OpValue v = value;
        check_value(op, *a, v);
        checked.set(name, std::move(v));
    }
    check_alternatives(op, checked);
    for (const ArgSpec& a : op.args) {
        if (checked.has(a.name)) continue;
        if (!a.default_value.empty()) checked.set(a.name, parse_arg(a, a.default_value));
        else if (!a.optional) throw InvalidArgument(op.name + ": argument '" + a.name + "' (" + kind_name(a.kind) + ") is required");
    }
    return op.run(checked);
}

OpResult invoke(std::string_view name, OpArgs args) {
    const OpEntry* op = find_op(name);
    if (!op) throw InvalidArgument("no op named '" + std::string(name) + "' in the manifest");
    return invoke(*op, std::move(args));
}

}  // namespace kiln
