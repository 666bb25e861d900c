// Profile sinks that need no HDF5 (kiln/profile_io.hpp): the fan-out, the
// .npy writer that grows batch by batch, and pyFAI's text format.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numbers>

#include "io/npy_header.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "kiln/profile_io.hpp"

namespace kiln::io {

namespace {

namespace fs = std::filesystem;

std::string lower_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

std::string printf_string(const char* format, auto... values) {
    char buf[256];
    const int n = std::snprintf(buf, sizeof buf, format, values...);
    return std::string(buf, size_t(std::max(0, std::min(n, int(sizeof buf) - 1))));
}

// Python's repr() of a float (what pyFAI's "%s" of a float prints): the
// shortest digits that read back exactly, positional for exponents -4 to 15,
// else as d.ddde-XX.
std::string python_repr(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    const std::string sci(buf, r.ptr);
    const size_t e = sci.find('e');
    const bool negative = sci[0] == '-';
    std::string digits;
    for (size_t i = negative ? 1 : 0; i < e; ++i)
        if (sci[i] != '.') digits += sci[i];
    const int exponent = std::stoi(sci.substr(e + 1));
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        return out + printf_string("e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    }
    if (exponent < 0) return out + "0." + std::string(size_t(-exponent - 1), '0') + digits;
    if (digits.size() <= size_t(exponent) + 1)
        return out + digits + std::string(size_t(exponent) + 1 - digits.size(), '0') + ".0";
    return out + digits.substr(0, size_t(exponent) + 1) + "." + digits.substr(size_t(exponent) + 1);
}

[[noreturn]] void system_error(const std::string& path, const std::string& what) {
    throw IoError(path + ": " + what + ": " + std::strerror(errno));
}

void pwrite_all(int fd, const std::string& path, const void* data, size_t bytes, uint64_t offset) {
    const auto* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::pwrite(fd, p, bytes, off_t(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) system_error(path, "writing failed");
        p += n;
        bytes -= size_t(n);
        offset += uint64_t(n);
    }
}

void write_text_file(const std::string& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) system_error(path, "cannot create the file");
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) system_error(path, "writing failed");
}

}  // namespace

std::vector<size_t> ProfileLayout::frame_shape() const {
    if (meta.azimuthal.empty()) return {meta.radial.size()};
    return {meta.azimuthal.size(), meta.radial.size()};
}

size_t ProfileLayout::frame_values() const {
    size_t n = 1;
    for (size_t d : frame_shape()) n *= d;
    return n;
}

int ProfileLayout::field_index(const std::string& field) const {
    const auto it = std::find(fields.begin(), fields.end(), field);
    return it == fields.end() ? -1 : int(it - fields.begin());
}

std::optional<ProfileFormat> profile_format(const std::string& path) {
    const std::string ext = lower_extension(path);
    if (ext == ".npy") return ProfileFormat::npy;
    if (ext == ".h5" || ext == ".hdf5" || ext == ".nxs") return ProfileFormat::hdf5;
    if (ext == ".xy" || ext == ".dat") return ProfileFormat::text;
    return std::nullopt;
}

// ---- fan-out

void ProfileFanout::begin(const ProfileLayout& layout) {
    for (auto& s : sinks_) s->begin(layout);
}

void ProfileFanout::write(size_t first, size_t n, std::span<const float* const> fields) {
    for (auto& s : sinks_) s->write(first, n, fields);
}

void ProfileFanout::finish(size_t frames) {
    for (auto& s : sinks_) s->finish(frames);
}

// ---- .npy

NpyProfileWriter::NpyProfileWriter(std::string path, std::string field)
    : path_(std::move(path)), field_(std::move(field)) {}

NpyProfileWriter::~NpyProfileWriter() {
    if (fd_ >= 0) ::close(fd_);
    if (!finished_ && fd_ >= 0) ::unlink(path_.c_str());
}

std::string NpyProfileWriter::header(size_t frames) const {
    std::vector<size_t> shape = frame_shape_;
    if (!single_) shape.insert(shape.begin(), frames);
    return npy_header("<f4", shape, header_bytes_);
}

void NpyProfileWriter::begin(const ProfileLayout& layout) {
    index_ = layout.field_index(field_);
    if (index_ < 0)
        throw InvalidArgument(path_ + ": no field '" + field_ + "' among the profiles written");
    frame_shape_ = layout.frame_shape();
    single_ = layout.single;
    frame_bytes_ = layout.frame_values() * sizeof(float);
    header_bytes_ = 0;
    // Room for the announced count: a header for fewer frames is no longer.
    header_bytes_ = header(layout.frames).size();
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) system_error(path_, "cannot create the file");
    const std::string h = header(layout.frames);
    pwrite_all(fd_, path_, h.data(), h.size(), 0);
    if (::ftruncate(fd_, off_t(header_bytes_ + layout.frames * frame_bytes_)) != 0)
        system_error(path_, "cannot size the file");
}

void NpyProfileWriter::write(size_t first, size_t n, std::span<const float* const> fields) {
    pwrite_all(fd_, path_, fields[size_t(index_)], n * frame_bytes_, header_bytes_ + first * frame_bytes_);
}

void NpyProfileWriter::finish(size_t frames) {
    const std::string h = header(frames);
    pwrite_all(fd_, path_, h.data(), h.size(), 0);
    if (::ftruncate(fd_, off_t(header_bytes_ + frames * frame_bytes_)) != 0)
        system_error(path_, "cannot cut the file to the frames written");
    if (::fsync(fd_) != 0) system_error(path_, "flushing failed");
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) system_error(path_, "closing failed");
    finished_ = true;
}

// ---- pyFAI text

std::vector<std::string> pyfai_header_lines(const ProfileMeta& m) {
    const Geometry& g = m.geometry;
    // pyFAI's Geometry.getFit2D: the direct beam's distance and position,
    // and the tilt, from the PONI geometry.
    double cos_tilt = std::cos(g.rot1) * std::cos(g.rot2);
    double sin_tilt = std::sqrt(1.0 - cos_tilt * cos_tilt);
    const double tan_tilt = sin_tilt / cos_tilt;
    double cos_tpr = 1, sin_tpr = 0;
    if (sin_tilt == 0) {
        cos_tilt = 1;
        sin_tilt = 0;
    } else {
        cos_tpr = std::clamp(-std::cos(g.rot2) * std::sin(g.rot1) / sin_tilt, -1.0, 1.0);
        sin_tpr = std::sin(g.rot2) / sin_tilt;
    }
    const double deg = 180 / std::numbers::pi;
    const double direct = 1e3 * g.dist / cos_tilt, tilt = std::acos(cos_tilt) * deg;
    const double tpr = (sin_tpr < 0 ? -1 : 1) * std::acos(cos_tpr) * deg;
    const double center_x = (g.poni2 + g.dist * tan_tilt * cos_tpr) / g.pixel2;
    const double center_y =
        std::abs(tilt) < 1e-5 ? g.poni1 / g.pixel1 : (g.poni1 + g.dist * tan_tilt * sin_tpr) / g.pixel1;
    const bool generic = m.detector.empty() || m.detector == "Detector";
    std::vector<std::string> lines = {
        "== pyFAI calibration ==",
        "Distance Sample to Detector: " + python_repr(g.dist) + " m",
        printf_string("PONI: %.3e, %.3e m", g.poni1, g.poni2),
        printf_string("Rotations: %.6f %.6f %.6f rad", g.rot1, g.rot2, g.rot3),
        "",
        "== Fit2d calibration ==",
        printf_string("Distance Sample-beamCenter: %.3f mm", direct),
        printf_string("Center: x=%.3f, y=%.3f pix", center_x, center_y),
        printf_string("Tilt: %.3f deg  TiltPlanRot: %.3f deg", tilt, tpr),
        "",
        "Detector " + (generic ? std::string("Detector\t Spline= None") : m.detector) +
            printf_string("\t PixelSize= %.3e, %.3e m", g.pixel1, g.pixel2),
        std::string("   Detector has a mask: ") + (m.detector_mask ? "True" : "False") + " ",
        "   Detector has a dark current: False ",
        "   detector has a flat field: False ",
        ""};
    if (g.wavelength > 0) lines.push_back("Wavelength: " + python_repr(g.wavelength) + " m");
    lines.push_back(std::string("Mask applied: ") +
                    (m.mask ? "provided" : m.detector_mask ? "from detector" : "False"));
    lines.push_back(std::string("Dark current applied: ") + (m.dark ? "True" : "False"));
    lines.push_back(std::string("Flat field applied: ") + (m.flat ? "True" : "False"));
    lines.push_back("Polarization factor: " + (m.polarization ? python_repr(*m.polarization) : std::string("None")));
    lines.push_back("Normalization factor: 1.0");
    return lines;
}

TextProfileWriter::TextProfileWriter(std::string path, std::string shown)
    : path_(std::move(path)), shown_(shown.empty() ? path_ : std::move(shown)) {
    const fs::path p(path_);
    partial_ = (p.parent_path() / ("." + p.stem().string() + ".kiln-partial" + p.extension().string())).string();
}

TextProfileWriter::~TextProfileWriter() {
    if (finished_) return;
    std::error_code ignored;
    for (const std::string& f : written_) fs::remove(f, ignored);
    fs::remove(partial_, ignored);
}

std::string TextProfileWriter::frame_file(const std::string& path, size_t frame) {
    const fs::path p(path);
    return (p.parent_path() / (p.stem().string() + printf_string("_%05zu", frame) + p.extension().string()))
        .string();
}

void TextProfileWriter::begin(const ProfileLayout& layout) {
    if (!layout.meta.azimuthal.empty())
        throw InvalidArgument(shown_ + ": pyFAI's text format (.xy, .dat) holds 1-D profiles; write a 2-D "
                              "(cake) integration as .npy or .h5");
    if (layout.field_index("intensity") < 0)
        throw InvalidArgument(shown_ + ": no intensity among the profiles written");
    layout_ = layout;
    header_.clear();
    for (const std::string& line : pyfai_header_lines(layout.meta)) header_ += "# " + line + "\n";
}

void TextProfileWriter::write(size_t first, size_t n, std::span<const float* const> fields) {
    const size_t bins = layout_.frame_values();
    const int ii = layout_.field_index("intensity"), si = layout_.field_index("sigma");
    const std::string& unit = layout_.meta.radial_unit;
    for (size_t k = 0; k < n; ++k) {
        const std::string shown = layout_.single ? shown_ : frame_file(shown_, first + k);
        std::string text = header_ + "# --> " + shown + "\n";
        text += si < 0 ? printf_string("#%14s %14s\n", unit.c_str(), "I ")
                       : printf_string("#%14s  %14s  %14s\n", unit.c_str(), "I ", "sigma ");
        const float* in = fields[size_t(ii)] + k * bins;
        const float* sig = si < 0 ? nullptr : fields[size_t(si)] + k * bins;
        for (size_t b = 0; b < bins; ++b) {
            if (b) text += "\n";
            text += sig ? printf_string("%14.6e  %14.6e %14.6e", layout_.meta.radial[b], double(in[b]), double(sig[b]))
                        : printf_string("%14.6e  %14.6e", layout_.meta.radial[b], double(in[b]));
        }
        text += "\n";
        const std::string target = layout_.single ? path_ : frame_file(path_, first + k);
        if (layout_.single) {
            write_text_file(target, text);
        } else {
            // Whole or not at all: written beside it, renamed.
            try {
                write_text_file(partial_, text);
            } catch (...) {
                std::error_code ec;
                fs::remove(partial_, ec);
                throw;
            }
            if (const std::error_code failed = move_into_place(partial_, target))
                throw IoError(target + ": cannot move the finished file into place: " + failed.message());
            written_.push_back(target);
        }
    }
}

void TextProfileWriter::finish(size_t) { finished_ = true; }

}  // namespace kiln::io
