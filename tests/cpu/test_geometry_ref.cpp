// Detector geometry: 2theta and q by hand for simple set-ups, and pyFAI's
// values for a geometry with all three rotations.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "host/lab_frame.hpp"
#include "kiln/error.hpp"
#include "kiln/geometry.hpp"

using namespace kiln;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// 13 x 17 pixels of 100 um, 10 cm away, PONI at the centre of pixel (5, 7).
Geometry flat_geometry() {
    Geometry g;
    g.rows = 13;
    g.cols = 17;
    g.pixel1 = g.pixel2 = 100e-6;
    g.dist = 0.1;
    g.poni1 = 5.5 * 100e-6;
    g.poni2 = 7.5 * 100e-6;
    g.wavelength = 1.0e-10;
    return g;
}

// The geometry pyFAI 0.21.3 evaluated for the reference values below
// (AzimuthalIntegrator(dist=0.1, poni1=0.4e-3, poni2=0.7e-3, rot1=0.05,
// rot2=-0.12, rot3=0.3, wavelength=1e-10) on a Detector(75e-6, 80e-6)).
Geometry rotated_geometry() {
    return Geometry{13, 17, 75e-6, 80e-6, 0.1, 0.4e-3, 0.7e-3, 0.05, -0.12, 0.3, 1.0e-10};
}

}  // namespace

TEST_CASE("2theta and q by hand without rotations", "[cpu][azimuthal][geometry]") {
    const Geometry g = flat_geometry();
    const auto tth = two_theta(g);
    const auto q = q_nm(g);
    REQUIRE(tth.size() == 13 * 17);
    SECTION("the pixel at the PONI sees the direct beam") {
        CHECK(tth[5 * 17 + 7] == 0.0);
        CHECK(q[5 * 17 + 7] == 0.0);
    }
    SECTION("a pixel 3 rows and 4 columns away: 2theta = atan(r / dist)") {
        const double r = std::hypot(3 * 100e-6, 4 * 100e-6);  // 0.5 mm
        const double expect = std::atan(r / 0.1);
        CHECK_THAT(tth[8 * 17 + 11], WithinRel(expect, 1e-12));
        CHECK_THAT(tth[2 * 17 + 3], WithinRel(expect, 1e-12));  // (-3, -4): same ring
        const double q_expect = 4 * std::numbers::pi * std::sin(expect / 2) / 1.0e-10 * 1e-9;
        CHECK_THAT(q[8 * 17 + 11], WithinRel(q_expect, 1e-12));
        CHECK_THAT(radial_centers(g, Radial::two_theta_deg)[8 * 17 + 11],
                   WithinRel(expect * 180 / std::numbers::pi, 1e-12));
    }
    SECTION("rot3 turns the detector about the beam: 2theta unchanged") {
        Geometry r = g;
        r.rot3 = 0.7;
        const auto tth_r = two_theta(r);
        for (size_t i = 0; i < tth.size(); ++i) CHECK_THAT(tth_r[i], WithinAbs(tth[i], 1e-14));
    }
}

TEST_CASE("single rotations tilt the PONI off the beam", "[cpu][azimuthal][geometry]") {
    Geometry g = flat_geometry();
    const size_t poni_pixel = 5 * 17 + 7;
    // With one tilt the PONI pixel's 2theta is the tilt angle itself.
    g.rot1 = 0.1;
    CHECK_THAT(two_theta(g)[poni_pixel], WithinRel(0.1, 1e-12));
    // The beam hits the plane dist * tan(rot1) away along -x.
    const auto beam = beam_position(g);
    REQUIRE(beam);
    CHECK_THAT(beam->first, WithinRel(5.5, 1e-12));
    CHECK_THAT(beam->second, WithinRel((g.poni2 - 0.1 * std::tan(0.1)) / g.pixel2, 1e-12));
    const auto t = lab_position(g, beam->first, beam->second);
    CHECK_THAT(t.x, WithinAbs(0.0, 1e-15));
    CHECK_THAT(t.y, WithinAbs(0.0, 1e-15));
    g.rot1 = 0;
    g.rot2 = -0.2;
    CHECK_THAT(two_theta(g)[poni_pixel], WithinRel(0.2, 1e-12));
    g.rot2 = 2.0;  // tilted past 90 degrees: the beam never meets the plane
    CHECK_FALSE(beam_position(g));
}

TEST_CASE("geometry with three rotations matches pyFAI", "[cpu][azimuthal][geometry]") {
    const Geometry g = rotated_geometry();
    const auto tth = two_theta(g);
    const auto q = q_nm(g);
    const auto sa = solid_angle(g);
    const auto pol = polarization(g, 0.95, 0.2);
    // pyFAI: ai.tth, ai.qFunction, ai.cos_incidence**3 (float64) and
    // ai.polarization(factor=0.95, axis_offset=0.2) (float32) at these pixels.
    const size_t px[3] = {0 * 17 + 0, 6 * 17 + 8, 12 * 17 + 16};
    const double tth_ref[3] = {0.12416682231860869, 0.13068654801758442, 0.13734173109710507};
    const double q_ref[3] = {7.79662079905999, 8.20543588911052, 8.622654780672718};
    const double sa_ref[3] = {0.9999149550901527, 0.9999987915637165, 0.9998990125619818};
    const double pol_ref[3] = {0.99676883, 0.99597603, 0.99509275};
    for (int k = 0; k < 3; ++k) {
        CHECK_THAT(tth[px[k]], WithinRel(tth_ref[k], 1e-12));
        CHECK_THAT(q[px[k]], WithinRel(q_ref[k], 1e-12));
        CHECK_THAT(sa[px[k]], WithinRel(sa_ref[k], 1e-6));
        CHECK_THAT(pol[px[k]], WithinRel(pol_ref[k], 1e-6));
    }
}

TEST_CASE("corner arrays are the radial values at pixel corners", "[cpu][azimuthal][geometry]") {
    const Geometry g = rotated_geometry();
    for (Radial unit : {Radial::two_theta_deg, Radial::q_nm}) {
        const auto corners = radial_corners(g, unit);
        REQUIRE(corners.size() == 14 * 18);
        // Corner (i, j) of g is the centre of pixel (i, j) of a detector one
        // pixel larger whose PONI sits half a pixel further on.
        Geometry shifted = g;
        shifted.rows += 1;
        shifted.cols += 1;
        shifted.poni1 += 0.5 * g.pixel1;
        shifted.poni2 += 0.5 * g.pixel2;
        const auto centres = radial_centers(shifted, unit);
        for (size_t i = 0; i < corners.size(); ++i) CHECK_THAT(corners[i], WithinRel(centres[i], 1e-12));
    }
}

TEST_CASE("invalid geometries are refused", "[cpu][azimuthal][geometry]") {
    Geometry g = flat_geometry();
    g.pixel1 = 0;
    CHECK_THROWS_AS(two_theta(g), InvalidArgument);
    g = flat_geometry();
    g.rows = 0;
    CHECK_THROWS_AS(two_theta(g), InvalidArgument);
    g = flat_geometry();
    g.wavelength = 0;
    CHECK_NOTHROW(two_theta(g));
    CHECK_THROWS_AS(q_nm(g), InvalidArgument);
    CHECK_THROWS_AS(polarization(flat_geometry(), 1.5), InvalidArgument);
}
