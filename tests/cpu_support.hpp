#pragma once
// Test helpers that need no Vulkan: host arrays from values and from the
// generated fixture tables, random data with fixed seeds, comparisons with
// dtype-aware tolerances. support.hpp adds the GPU ones on top.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kiln/conv_types.hpp"
#include "kiln/dtype.hpp"
#include "kiln/error.hpp"
#include "kiln/geometry.hpp"
#include "kiln/host_array.hpp"
#include "kiln/shape.hpp"

namespace kiln::test {

/// One array of a generated fixture table (tests/data/*/…_cases.inc): the
/// dtype's name, the extents in (z, y, x) order and the values in C order.
struct FixtureArray {
    const char* dtype;
    std::vector<size_t> shape;
    std::vector<double> values;
};

/// An array of the given extents and dtype holding the values (C order).
HostArray from_values(const std::vector<size_t>& dims, DType t, const std::vector<double>& values);

/// The fixture's values converted to dtype t.
HostArray to_host(const FixtureArray& a, DType t);

/// The fixture's values in its own dtype.
HostArray to_host(const FixtureArray& a);

/// A 1-D float64 array of the values.
HostArray host(std::vector<double> values);

/// A float64 array of the given extents and values (C order).
HostArray host(std::vector<size_t> shape, std::vector<double> values);

/// Random values of dtype t (floats in [lo, hi), integers over [lo, hi]).
HostArray random(Shape shape, DType t, uint64_t seed, double lo = -100, double hi = 100);

/// Element-wise comparison: exact for integers, relative+absolute for floats;
/// NaN equals NaN. Reports the first mismatches.
void require_close(const HostArray& got, const HostArray& want, double rtol = 1e-6, double atol = 0);

/// Element-wise |got - want| <= atol + rtol * |want|, NaN matching NaN, against
/// a fixture whose dtype and shape must also match.
void require_close(const HostArray& got, const FixtureArray& want, double rtol, double atol);

/// Scalars equal, both NaN, or within rtol relative to want.
bool close_rel(double got, double want, double rtol);

/// CHECKs that got equals want exactly (or both are NaN): results promised
/// bit-identical, such as order statistics.
void check_same(double got, double want);

/// The committed fixture files (tests/data): $KILN_TEST_DATA when set (a
/// suite carried to another machine), else the source tree's folder.
std::filesystem::path data_dir();

/// The .npy file data_dir() / relative as it was written (dtype and shape).
HostArray npy_fixture(const std::filesystem::path& relative);

/// The values of the .npy file data_dir() / relative, as double.
std::vector<double> npy_values(const std::filesystem::path& relative);

/// The largest |value| among a's finite elements (0 when there are none):
/// the scale of a tolerance in rounding units.
double max_abs(const HostArray& a);

/// The lines of the text fixture data_dir() / relative that hold data (not
/// blank, not '#' comments), in order; REQUIREs that the file opens.
std::vector<std::string> data_lines(const std::filesystem::path& relative);

/// The detector geometry of tests/data/pyfai/make_fixtures.py's integrator()
/// (also make_stats_fixtures.py's): 37 x 41 rectangular pixels (75 x 100
/// um), three rotations, the direct beam just outside the detector.
Geometry pyfai_fixture_geometry();

/// A fresh folder under the system's temporary one (named after the process
/// and a counter, so parallel test processes never share one), removed with
/// everything in it when the object goes.
struct TempDir {
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::filesystem::path path;
    /// The path of `name` inside the folder.
    std::string file(const std::string& name) const;
    /// What the folder holds now.
    std::vector<std::filesystem::path> files() const;
    size_t entries() const { return files().size(); }
};

/// Runs f and returns the message of the IoError it throws (fails the test
/// if it throws none).
template <typename F> std::string io_error(F&& f) {
    try {
        f();
    } catch (const IoError& e) {
        return e.what();
    }
    FAIL("no IoError thrown");
    return {};
}

} // namespace kiln::test
