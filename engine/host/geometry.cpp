#include "kiln/geometry.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "host/lab_frame.hpp"
#include "kiln/error.hpp"

namespace kiln {
namespace {

// GLM's constructor takes columns; the rotation matrices read better by rows.
glm::dmat3 by_rows(double a, double b, double c, double d, double e, double f, double g, double h, double i) {
    return glm::transpose(glm::dmat3(a, b, c, d, e, f, g, h, i));
}

void require_positive(double v, const char* name) {
    if (!(v > 0) || !std::isfinite(v))
        throw InvalidArgument(std::string("Geometry: ") + name + " is " + std::to_string(v) +
                              "; it must be a positive finite number (SI units: metres)");
}

// Evaluates f(t) at every point (i * step_y + off, j * step_x + off) of a grid.
template <typename T, typename F>
std::vector<T> over_grid(const Geometry& g, size_t ny, size_t nx, double off, F f) {
    const glm::dmat3 r = rotation(g);
    std::vector<T> out(ny * nx);
    for (size_t i = 0; i < ny; ++i) {
        const double p1 = (double(i) + off) * g.pixel1 - g.poni1;
        for (size_t j = 0; j < nx; ++j) {
            const double p2 = (double(j) + off) * g.pixel2 - g.poni2;
            out[i * nx + j] = T(f(r * glm::dvec3(p1, p2, g.dist), p1, p2));
        }
    }
    return out;
}

double tth_of(const glm::dvec3& t) {
    return std::atan2(std::sqrt(t.x * t.x + t.y * t.y), t.z);
}

}  // namespace

void validate_geometry(const Geometry& g, bool need_wavelength) {
    if (g.rows == 0 || g.cols == 0)
        throw InvalidArgument("Geometry: detector shape " + std::to_string(g.rows) + "x" +
                              std::to_string(g.cols) + "; both extents must be >= 1");
    require_positive(g.pixel1, "pixel1");
    require_positive(g.pixel2, "pixel2");
    require_positive(g.dist, "dist");
    if (need_wavelength) require_positive(g.wavelength, "wavelength");
    for (double v : {g.poni1, g.poni2, g.rot1, g.rot2, g.rot3})
        if (!std::isfinite(v)) throw InvalidArgument("Geometry: poni1, poni2 and rot1-3 must be finite");
}

glm::dmat3 rotation(const Geometry& g) {
    const double c1 = std::cos(g.rot1), s1 = std::sin(g.rot1);
    const double c2 = std::cos(g.rot2), s2 = std::sin(g.rot2);
    const double c3 = std::cos(g.rot3), s3 = std::sin(g.rot3);
    const glm::dmat3 r1 = by_rows(1, 0, 0, 0, c1, s1, 0, -s1, c1);
    const glm::dmat3 r2 = by_rows(c2, 0, -s2, 0, 1, 0, s2, 0, c2);
    const glm::dmat3 r3 = by_rows(c3, -s3, 0, s3, c3, 0, 0, 0, 1);
    return r3 * r2 * r1;
}

glm::dvec3 lab_position(const Geometry& g, double y, double x) {
    return rotation(g) * glm::dvec3(y * g.pixel1 - g.poni1, x * g.pixel2 - g.poni2, g.dist);
}

std::optional<std::pair<double, double>> beam_position(const Geometry& g) {
    // The beam direction e3 maps back to p = s R^T e3; the third row of R is
    // what R^T e3 is, and p3 = dist fixes s, which must be positive.
    const glm::dmat3 r = rotation(g);
    const glm::dvec3 back(r[0][2], r[1][2], r[2][2]);
    if (!(back.z > 1e-12)) return std::nullopt;
    const double s = g.dist / back.z;
    return std::make_pair((s * back.x + g.poni1) / g.pixel1, (s * back.y + g.poni2) / g.pixel2);
}

std::vector<double> two_theta(const Geometry& g) {
    validate_geometry(g, false);
    return over_grid<double>(g, g.rows, g.cols, 0.5,
                             [](const glm::dvec3& t, double, double) { return tth_of(t); });
}

namespace {

struct UnitName {
    Radial unit;
    std::string_view name;
};
// pyFAI's names first, then kiln's older spellings.
constexpr UnitName unit_names[] = {
    {Radial::two_theta_deg, "2th_deg"}, {Radial::q_nm, "q_nm^-1"},    {Radial::q_A, "q_A^-1"},
    {Radial::two_theta_rad, "2th_rad"}, {Radial::r_mm, "r_mm"},        {Radial::d_star2_A, "d*2_A^-2"},
    {Radial::chi_deg, "chi_deg"},       {Radial::q_nm, "q_nm"},        {Radial::q_A, "q_A"},
    {Radial::two_theta_deg, "two_theta_deg"}, {Radial::two_theta_rad, "two_theta_rad"},
};
constexpr size_t pyfai_names = 7;

}  // namespace

const char* radial_name(Radial unit) {
    for (size_t i = 0; i < pyfai_names; ++i)
        if (unit_names[i].unit == unit) return unit_names[i].name.data();
    throw InvalidArgument("radial_name: unknown unit " + std::to_string(int(unit)));
}

Radial parse_radial(std::string_view name) {
    for (const UnitName& u : unit_names)
        if (u.name == name) return u.unit;
    std::string accepted;
    for (size_t i = 0; i < pyfai_names; ++i) accepted += std::string(i ? ", " : "") + unit_names[i].name.data();
    throw InvalidArgument("unit '" + std::string(name) + "' is not known; accepted: " + accepted);
}

bool radial_needs_wavelength(Radial unit) {
    return unit == Radial::q_nm || unit == Radial::q_A || unit == Radial::d_star2_A;
}

double radial_of_two_theta(double tth, Radial unit, double wavelength) {
    // pyFAI evaluates q in nm^-1 and scales it: 0.1 for A^-1, and d*2 in
    // nm^-2 as (q / 2 pi)^2 scaled by 0.01 for A^-2.
    const auto q = [&] { return 4e-9 * std::numbers::pi * std::sin(tth / 2) / wavelength; };
    switch (unit) {
        case Radial::two_theta_deg: return tth * (180.0 / std::numbers::pi);
        case Radial::two_theta_rad: return tth;
        case Radial::q_nm: return q();
        case Radial::q_A: return q() * 0.1;
        case Radial::d_star2_A: {
            const double s = q() / (2.0 * std::numbers::pi);
            return s * s * 0.01;
        }
        case Radial::r_mm:
        case Radial::chi_deg: break;
    }
    throw InvalidArgument(std::string("radial_of_two_theta: ") + radial_name(unit) +
                          " is not a function of 2theta; use radial_of_position");
}

double radial_of_position(double t1, double t2, double t3, Radial unit, double wavelength) {
    const double r = std::sqrt(t1 * t1 + t2 * t2);
    if (unit == Radial::r_mm) return r * 1000.0;
    if (unit == Radial::chi_deg) return std::atan2(t1, t2) * (180.0 / std::numbers::pi);
    return radial_of_two_theta(std::atan2(r, t3), unit, wavelength);
}

std::vector<double> q_nm(const Geometry& g) {
    return radial_centers(g, Radial::q_nm);
}

std::vector<double> radial_centers(const Geometry& g, Radial unit) {
    validate_geometry(g, radial_needs_wavelength(unit));
    return over_grid<double>(g, g.rows, g.cols, 0.5, [&](const glm::dvec3& t, double, double) {
        return radial_of_position(t.x, t.y, t.z, unit, g.wavelength);
    });
}

std::vector<double> radial_corners(const Geometry& g, Radial unit) {
    validate_geometry(g, radial_needs_wavelength(unit));
    return over_grid<double>(g, g.rows + 1, g.cols + 1, 0.0, [&](const glm::dvec3& t, double, double) {
        return radial_of_position(t.x, t.y, t.z, unit, g.wavelength);
    });
}

std::vector<float> solid_angle(const Geometry& g) {
    validate_geometry(g, false);
    // The PONI is the foot of the perpendicular, so incidence depends on the
    // in-plane offset alone, whatever the rotations.
    return over_grid<float>(g, g.rows, g.cols, 0.5, [&](const glm::dvec3&, double p1, double p2) {
        const double cos_a = g.dist / std::sqrt(g.dist * g.dist + p1 * p1 + p2 * p2);
        return cos_a * cos_a * cos_a;
    });
}

std::vector<float> polarization(const Geometry& g, double factor, double axis_offset) {
    validate_geometry(g, false);
    if (!(factor >= -1 && factor <= 1))
        throw InvalidArgument("polarization: factor " + std::to_string(factor) +
                              "; accepted: -1 to 1 (0 unpolarized, 1 horizontal)");
    return over_grid<float>(g, g.rows, g.cols, 0.5, [&](const glm::dvec3& t, double, double) {
        const double c = std::cos(tth_of(t));
        const double chi = std::atan2(t.x, t.y);
        return 0.5 * (1.0 + c * c - factor * std::cos(2.0 * (chi + axis_offset)) * (1.0 - c * c));
    });
}

}  // namespace kiln
