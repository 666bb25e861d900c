#pragma once
// Detector geometry in pyFAI's PONI convention, and the per-pixel quantities
// azimuthal integration needs: scattering angle 2theta, q, solid angle and
// polarization, at pixel centres and (for pixel splitting) at pixel corners.
//
// Detector coordinates: pixel (i, j) (row i along y = axis 1, column j along
// x = axis 2) has its centre at d1 = (i + 0.5) * pixel1, d2 = (j + 0.5) * pixel2
// metres from the detector's corner. The PONI (point of normal incidence) is
// the foot of the perpendicular from the sample to the detector plane, at
// (poni1, poni2) on the detector and dist metres from the sample. A point p =
// (d1 - poni1, d2 - poni2, dist) is rotated into the laboratory frame by
// R = R3(rot3) R2(rot2) R1(rot1), giving t = (t1, t2, t3) with the beam along
// t3; then 2theta = atan2(sqrt(t1^2 + t2^2), t3) and chi = atan2(t1, t2).
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// A flat detector's geometry, in pyFAI's PONI convention (SI units).
struct Geometry {
    size_t rows = 0, cols = 0;            ///< detector shape (y, x) in pixels
    double pixel1 = 0, pixel2 = 0;        ///< pixel size along y and x, metres
    double dist = 0;                      ///< sample to PONI distance, metres
    double poni1 = 0, poni2 = 0;          ///< PONI on the detector along y and x, metres
    double rot1 = 0, rot2 = 0, rot3 = 0;  ///< rotations, radians
    double wavelength = 0;                ///< metres; needed for q only
};

/// Coordinate of an integration axis, each as pyFAI's unit of the name given
/// by radial_name (pyFAI/units.py), from the laboratory position t of a point:
/// 2theta = atan2(sqrt(t1^2 + t2^2), t3), q = 4 pi sin(2theta / 2) / wavelength,
/// r = sqrt(t1^2 + t2^2) (distance from the beam axis), d*2 = (q / 2 pi)^2 and
/// chi = atan2(t1, t2) in (-180, 180]. New values go at the end: the number of
/// each is part of the matrix cache's key.
enum class Radial {
    two_theta_deg,  ///< "2th_deg"
    q_nm,           ///< "q_nm^-1"
    q_A,            ///< "q_A^-1"
    two_theta_rad,  ///< "2th_rad"
    r_mm,           ///< "r_mm"
    d_star2_A,      ///< "d*2_A^-2"
    chi_deg,        ///< "chi_deg", the azimuth as a coordinate of its own
};

/// pyFAI's name of a unit ("2th_deg", "q_nm^-1", "q_A^-1", "2th_rad", "r_mm",
/// "d*2_A^-2", "chi_deg").
const char* radial_name(Radial unit);

/// The unit of pyFAI's name (also "q_nm", "q_A", "two_theta_deg" and
/// "two_theta_rad"). Throws InvalidArgument naming the accepted names.
Radial parse_radial(std::string_view name);

/// Whether the unit depends on the wavelength (q and d*2).
bool radial_needs_wavelength(Radial unit);

/// Throws InvalidArgument unless shape, pixel sizes and distance are positive
/// and finite (and the wavelength too when need_wavelength).
void validate_geometry(const Geometry& g, bool need_wavelength);

/// Where the direct beam (2theta = 0) meets the detector plane, in continuous
/// pixel coordinates (y, x); nullopt if the beam misses the plane.
std::optional<std::pair<double, double>> beam_position(const Geometry& g);

/// 2theta at each pixel centre, radians, rows * cols in raster order.
std::vector<double> two_theta(const Geometry& g);

/// q = 4 pi sin(2theta / 2) / wavelength at each pixel centre, nm^-1.
std::vector<double> q_nm(const Geometry& g);

/// The coordinate `unit` of one 2theta value. Throws InvalidArgument for
/// r_mm and chi_deg, which 2theta alone does not determine.
double radial_of_two_theta(double two_theta_rad, Radial unit, double wavelength);

/// The coordinate `unit` of the laboratory position (t1, t2, t3), metres.
double radial_of_position(double t1, double t2, double t3, Radial unit, double wavelength);

/// Coordinate `unit` at each pixel centre, rows * cols in raster order.
std::vector<double> radial_centers(const Geometry& g, Radial unit);

/// Coordinate `unit` at each pixel corner, (rows + 1) * (cols + 1) in raster
/// order: corner (i, j) is the point at pixel coordinates (i, j).
std::vector<double> radial_corners(const Geometry& g, Radial unit);

/// Solid angle of each pixel relative to a pixel at the PONI, as pyFAI's
/// solidAngleArray: cos(incidence)^3 = (dist / |t|)^3.
std::vector<float> solid_angle(const Geometry& g);

/// pyFAI's polarization correction per pixel: (1 + cos^2 2theta -
/// factor cos(2 (chi + axis_offset)) sin^2 2theta) / 2, factor in [-1, 1]
/// (0: unpolarized, 1: horizontal linear), axis_offset in radians.
std::vector<float> polarization(const Geometry& g, double factor, double axis_offset = 0.0);

}  // namespace kiln
#pragma GCC visibility pop
