#include "cpu_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "kiln/io.hpp"
#include "kiln/random.hpp"

namespace kiln::test {

std::filesystem::path data_dir() {
    if (const char* d = std::getenv("KILN_TEST_DATA"); d && *d) return d;
    return KILN_TEST_DATA;
}

HostArray npy_fixture(const std::filesystem::path& relative) {
    return io::read_npy((data_dir() / relative).string());
}

double max_abs(const HostArray& a) {
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::isfinite(a.at(i))) m = std::max(m, std::abs(a.at(i)));
    return m;
}

std::vector<double> npy_values(const std::filesystem::path& relative) {
    const HostArray a = npy_fixture(relative);
    std::vector<double> v(a.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = a.at(i);
    return v;
}

std::vector<std::string> data_lines(const std::filesystem::path& relative) {
    std::ifstream f(data_dir() / relative);
    REQUIRE(f);
    std::vector<std::string> out;
    for (std::string line; std::getline(f, line);)
        if (!line.empty() && line[0] != '#') out.push_back(line);
    return out;
}

Geometry pyfai_fixture_geometry() {
    return Geometry{37, 41, 75e-6, 100e-6, 0.05, 18.3 * 75e-6, 20.6 * 100e-6, 0.02, -0.03, 0.1, 1.0e-10};
}

HostArray from_values(const std::vector<size_t>& dims, DType t, const std::vector<double>& values) {
    HostArray h(Shape::of(dims.size(), dims.data()), t);
    visit_dtype(t, [&](auto v) {
        using T = decltype(v);
        auto out = h.as<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(values[i]);
    });
    return h;
}

HostArray to_host(const FixtureArray& a, DType t) {
    return from_values(a.shape, t, a.values);
}

HostArray to_host(const FixtureArray& a) {
    return to_host(a, parse_dtype(a.dtype));
}

HostArray host(std::vector<double> values) {
    return HostArray::from(Shape{values.size()}, values);
}

HostArray host(std::vector<size_t> shape, std::vector<double> values) {
    return HostArray::from(Shape::of(shape.size(), shape.data()), values);
}

HostArray random(Shape shape, DType t, uint64_t seed, double lo, double hi) {
    HostArray a(shape, t);
    uint64_t s = seed;
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        auto v = a.as<T>();
        for (auto& x : v) {
            double u = kiln::uniform01(s);
            if constexpr (std::is_floating_point_v<T>) {
                x = static_cast<T>(lo + u * (hi - lo));
            } else {
                double l = std::max<double>(lo, std::numeric_limits<T>::min());
                double h = std::min<double>(hi, std::numeric_limits<T>::max());
                x = static_cast<T>(std::floor(l + u * (h - l + 1)));
                if (x > h) x = static_cast<T>(h);
            }
        }
    });
    return a;
}

void require_close(const HostArray& got, const HostArray& want, double rtol, double atol) {
    REQUIRE(got.shape == want.shape);
    REQUIRE(got.dtype == want.dtype);
    size_t bad = 0, first = 0;
    std::ostringstream detail;
    for (size_t i = 0; i < got.size(); ++i) {
        double g = got.at(i), w = want.at(i);
        bool ok;
        if (std::isnan(w)) ok = std::isnan(g);
        else if (std::isinf(w)) ok = g == w;
        else if (dtype_is_float(want.dtype)) ok = std::abs(g - w) <= atol + rtol * std::abs(w);
        else ok = g == w;
        if (!ok) {
            if (bad < 8) detail << "  [" << i << "] got " << g << " want " << w << "\n";
            if (!bad) first = i;
            ++bad;
        }
    }
    INFO(bad << " of " << got.size() << " elements differ (first at " << first << "):\n" << detail.str());
    REQUIRE(bad == 0);
}

void require_close(const HostArray& got, const FixtureArray& want, double rtol, double atol) {
    REQUIRE(dtype_name(got.dtype) == std::string(want.dtype));
    REQUIRE(got.shape.str() == Shape::of(want.shape.size(), want.shape.data()).str());
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = got.at(i), w = want.values[i];
        const bool ok =
            (std::isnan(g) && std::isnan(w)) || g == w || std::abs(g - w) <= atol + rtol * std::abs(w);
        if (!ok && bad++ == 0) first = i;
    }
    INFO("first mismatch at flat index " << first << ": got " << got.at(first) << ", want "
                                         << want.values[first] << " (" << bad << " in all)");
    REQUIRE(bad == 0);
}

bool close_rel(double got, double want, double rtol) {
    return (std::isnan(got) && std::isnan(want)) || got == want ||
           std::abs(got - want) <= rtol * std::abs(want);
}

void check_same(double got, double want) {
    INFO("got " << got << " want " << want);
    if (std::isnan(want))
        CHECK(std::isnan(got));
    else
        CHECK(got == want);
}

TempDir::TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("kiln_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
}

std::string TempDir::file(const std::string& name) const { return (path / name).string(); }

std::vector<std::filesystem::path> TempDir::files() const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(path)) out.push_back(e.path());
    return out;
}

} // namespace kiln::test
