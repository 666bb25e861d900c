// Units, detectors and .poni files against pyFAI 0.21.3's own results
// (tests/data/pyfai/make_fixtures.py wrote them).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>

#include "cpu_support.hpp"
#include "kiln/csr.hpp"
#include "kiln/detector.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"
#include "kiln/poni.hpp"

using namespace kiln;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

std::string fixture(const std::string& name) {
    return (test::data_dir() / "pyfai" / name).string();
}

std::vector<double> npy(const std::string& name) {
    return test::npy_values(std::filesystem::path("pyfai") / (name + ".npy"));
}

const std::pair<Radial, const char*> unit_files[] = {
    {Radial::q_nm, "q_nm"}, {Radial::q_A, "q_A"},           {Radial::two_theta_deg, "2th_deg"},
    {Radial::r_mm, "r_mm"}, {Radial::d_star2_A, "dstar2_A"}, {Radial::two_theta_rad, "2th_rad"},
    {Radial::chi_deg, "chi_deg"}};

}  // namespace

TEST_CASE("pixel centres in every unit match pyFAI", "[cpu][azimuthal][geometry][pyfai]") {
    const Geometry g = test::pyfai_fixture_geometry();
    for (const auto& [unit, file] : unit_files) {
        INFO(radial_name(unit));
        const auto ref = npy("centre_" + std::string(file));
        const auto got = radial_centers(g, unit);
        REQUIRE(got.size() == ref.size());
        // pyFAI 0.21 evaluates pixel positions partly in float32 (its pixel
        // coordinates are float32 arrays): measured up to 5.7e-7 relative
        // against kiln's float64, in every unit alike; chi near 0 in absolute terms.
        for (size_t i = 0; i < ref.size(); ++i) {
            if (unit == Radial::chi_deg)
                CHECK_THAT(got[i], WithinAbs(ref[i], 1e-3));
            else
                CHECK_THAT(got[i], WithinRel(ref[i], unit == Radial::d_star2_A ? 2e-6 : 1e-6));  // d*2 squares q
        }
    }
}

TEST_CASE("unit names are pyFAI's", "[cpu][azimuthal][geometry]") {
    for (const char* name : {"q_nm^-1", "q_A^-1", "2th_deg", "2th_rad", "r_mm", "d*2_A^-2", "chi_deg"})
        CHECK(std::string(radial_name(parse_radial(name))) == name);
    CHECK(parse_radial("q_nm") == Radial::q_nm);
    CHECK(parse_radial("two_theta_deg") == Radial::two_theta_deg);
    CHECK_THROWS_AS(parse_radial("q_pm^-1"), InvalidArgument);
    CHECK_THROWS_AS(radial_of_two_theta(0.1, Radial::r_mm, 1e-10), InvalidArgument);
}

TEST_CASE("1-D integration without splitting matches pyFAI's CSR engine", "[cpu][azimuthal][csr][pyfai]") {
    const Geometry g = test::pyfai_fixture_geometry();
    const auto frame = npy("frame");
    for (const auto& [unit, file] : unit_files) {
        if (unit == Radial::chi_deg) continue;  // no radial unit of pyFAI 0.21's integrate1d
        INFO(radial_name(unit));
        const auto ref = npy("int1d_" + std::string(file));  // radial, intensity, count, lo, hi
        const size_t bins = ref.size() / 5;
        const Csr m = build_csr(g, unit, bins, std::make_pair(ref[3 * bins], ref[4 * bins]), PixelSplit::none);
        // pyFAI 0.21's engine truncates (position - lower edge) / width toward
        // zero, so pixels less than one bin below the range's lower edge land
        // in bin 0 as well (30 against 19 pixels here). kiln leaves every
        // pixel outside the range out; bin 0's count differs by exactly
        // those pixels, and from bin 1 on the bins agree.
        const double lo = ref[3 * bins], width = (ref[4 * bins] - lo) / double(bins);
        const auto pos = radial_centers(g, unit);
        double below = 0;
        for (double p : pos) below += (p < lo && p > lo - width) ? 1 : 0;
        CHECK(double(m.indptr[1] - m.indptr[0]) + below == ref[2 * bins]);
        CHECK(below > 0);
        for (size_t k = 1; k < bins; ++k) {
            double sum = 0, count = 0;
            for (int32_t e = m.indptr[k]; e < m.indptr[k + 1]; ++e) {
                sum += m.data[e] * frame[size_t(m.indices[e])];
                count += m.data[e];
            }
            // Same pixels in each bin (pyFAI bins float64 positions with the
            // same edges), so counts are exact; pyFAI accumulates in float32.
            CHECK(count == ref[2 * bins + k]);
            CHECK_THAT(m.bin_centers[k], WithinRel(ref[k], 1e-6));  // pyFAI's float32 edges
            if (count > 0) CHECK_THAT(sum / count, WithinRel(ref[bins + k], 1e-6));
        }
    }
}

TEST_CASE("rectangular pixels: x and y scale separately", "[cpu][azimuthal][geometry]") {
    Geometry g = test::pyfai_fixture_geometry();
    g.rot1 = g.rot2 = g.rot3 = 0;
    const auto r = radial_centers(g, Radial::r_mm);
    // Pixel (i, j) lies (i + 0.5) * pixel1 - poni1 down and (j + 0.5) * pixel2 - poni2 across.
    const double y = (30 + 0.5) * 75e-6 - g.poni1, x = (2 + 0.5) * 100e-6 - g.poni2;
    CHECK_THAT(r[30 * 41 + 2], WithinRel(std::hypot(y, x) * 1000, 1e-12));
}

TEST_CASE("chi with pixel splitting wraps at 180 degrees", "[cpu][azimuthal][csr]") {
    const Geometry g = test::pyfai_fixture_geometry();
    const Csr m = build_csr(g, Radial::chi_deg, 36, std::make_pair(-180.0, 180.0), PixelSplit::bbox);
    std::vector<double> per_pixel(m.pixels, 0.0);
    for (size_t e = 0; e < m.nnz(); ++e) per_pixel[size_t(m.indices[e])] += m.data[e];
    for (double s : per_pixel) CHECK_THAT(s, WithinAbs(1.0, 1e-5));
}

TEST_CASE("detectors by name match pyFAI's, gap masks included", "[cpu][azimuthal][pyfai]") {
    size_t n = 0;
    for (const std::string& line : test::data_lines("pyfai/detectors.txt")) {
        std::istringstream in(line);
        std::string name, gap[2];
        size_t rows = 0, cols = 0, masked = 0;
        double p1 = 0, p2 = 0;
        in >> name >> rows >> cols >> p1 >> p2 >> masked >> gap[0] >> gap[1];
        INFO(name);
        const Detector d = detector_by_name(name);
        CHECK(d.name == name);
        CHECK(d.rows == rows);
        CHECK(d.cols == cols);
        CHECK(d.pixel1 == p1);
        CHECK(d.pixel2 == p2);
        // Gaps are whole rows and columns, listed as start:stop ranges.
        std::vector<uint8_t> row_gap(rows, 0), col_gap(cols, 0);
        for (int axis = 0; axis < 2; ++axis) {
            if (gap[axis] == "-") continue;
            std::istringstream rs(gap[axis]);
            for (std::string range; std::getline(rs, range, ',');) {
                const size_t colon = range.find(':');
                for (size_t i = std::stoul(range.substr(0, colon)); i < std::stoul(range.substr(colon + 1)); ++i)
                    (axis == 0 ? row_gap : col_gap)[i] = 1;
            }
        }
        const auto mask = d.mask();
        size_t wrong = 0, total = 0;
        for (size_t i = 0; i < rows; ++i)
            for (size_t j = 0; j < cols; ++j) {
                const uint8_t expect = row_gap[i] | col_gap[j];
                wrong += mask[i * cols + j] != expect;
                total += mask[i * cols + j];
            }
        CHECK(wrong == 0);
        CHECK(total == masked);
        ++n;
    }
    CHECK(n == 13);
    CHECK(detector_by_name("eiger 4m").name == "Eiger4M");
    CHECK(detector_by_name("Eiger2 4M").name == "Eiger2_4M");
    CHECK_THROWS_AS(detector_by_name("Pilatus 7M"), InvalidArgument);
}

TEST_CASE(".poni files of versions 1 and 2 read as pyFAI reads them", "[cpu][azimuthal][pyfai]") {
    size_t n = 0;
    for (const std::string& line : test::data_lines("pyfai/poni.txt")) {
        std::istringstream in(line);
        std::string file, detector;
        size_t rows = 0, cols = 0;
        double v[9];
        in >> file >> detector >> rows >> cols;
        for (double& x : v) in >> x;
        INFO(file);
        const Poni p = read_poni(fixture(file + ".poni"));
        const Geometry& g = p.geometry;
        CHECK(p.detector.name == detector);
        CHECK(g.rows == rows);
        CHECK(g.cols == cols);
        const double got[9] = {g.pixel1, g.pixel2, g.dist, g.poni1, g.poni2, g.rot1, g.rot2, g.rot3, g.wavelength};
        for (int k = 0; k < 9; ++k) CHECK(got[k] == v[k]);  // the same decimal text, parsed
        ++n;
    }
    CHECK(n == 4);
    CHECK(parse_poni("poni_version: 1\nDetector: Eiger 1M\n").detector.mask().size() == 1065 * 1030);
    CHECK_THROWS_AS(parse_poni("poni_version: 3\n"), IoError);
    CHECK_THROWS_AS(parse_poni("Distance: far\n"), IoError);
    CHECK_THROWS_AS(parse_poni("poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": [\n"), IoError);
    CHECK_THROWS_AS(parse_poni("SplineFile: /x.spline\n"), IoError);
}
