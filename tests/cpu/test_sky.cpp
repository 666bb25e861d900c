// kiln::synthetic_sky: determinism, the noise level where there are no
// sources, and a plausible number of 5-sigma sources found by cpu::label.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kiln/reference/label.hpp"
#include "kiln/sky.hpp"

using kiln::DType;
using kiln::HostArray;
using kiln::Shape;
using kiln::SkyParams;
using kiln::SkyTruth;

namespace {

struct CornerStats {
    double mean, std;
};

CornerStats corner_stats(const HostArray& image, size_t corner, size_t extent) {
    const size_t n = image.shape.x();
    const size_t y0 = corner & 1 ? n - extent : 0, x0 = corner & 2 ? n - extent : 0;
    double sum = 0, squares = 0;
    for (size_t y = y0; y < y0 + extent; ++y)
        for (size_t x = x0; x < x0 + extent; ++x) {
            const double v = image.at(y * n + x);
            sum += v;
            squares += v * v;
        }
    const double count = double(extent * extent), mean = sum / count;
    return {mean, std::sqrt(squares / count - mean * mean)};
}

HostArray above(const HostArray& image, double level) {
    HostArray mask(image.shape, DType::uint8);
    const auto v = image.as<float>();
    auto m = mask.as<uint8_t>();
    for (size_t i = 0; i < v.size(); ++i) m[i] = v[i] > level;
    return mask;
}

}  // namespace

TEST_CASE("synthetic_sky is a deterministic function of its params", "[cpu][sky]") {
    SkyParams p;
    p.size = 512;
    p.n_compact = 30;
    p.n_shells = 2;
    SkyTruth t1, t2;
    const HostArray a = kiln::synthetic_sky(p, &t1);
    const HostArray b = kiln::synthetic_sky(p, &t2);
    CHECK(a.dtype == DType::float32);
    CHECK(a.shape == Shape{512, 512});
    CHECK(a.bytes == b.bytes);
    CHECK(t1.positions == t2.positions);
    CHECK(t1.fluxes == t2.fluxes);

    p.seed = 43;
    CHECK(kiln::synthetic_sky(p).bytes != a.bytes);

    // The noise has its own stream: with other sources, the source-free
    // border is bit for bit the same.
    p.seed = 42;
    p.n_compact = 5;
    p.n_shells = 0;
    const HostArray c = kiln::synthetic_sky(p);
    CHECK(c.bytes != a.bytes);
    // Sources start size/16 from the edge and reach 5 widths (15 px) around.
    const size_t border = p.size / 16 - 15;
    for (size_t y = 0; y < border; ++y)
        for (size_t x = 0; x < p.size; ++x) REQUIRE(c.at(y * p.size + x) == a.at(y * p.size + x));
}

TEST_CASE("synthetic_sky default image: noise, truth and sources", "[cpu][sky]") {
    const SkyParams p;  // the astronomy sample's image
    SkyTruth truth;
    const HostArray image = kiln::synthetic_sky(p, &truth);
    REQUIRE(image.shape == Shape{p.size, p.size});

    // Sources keep size/16 away from the edges: the corners are pure noise.
    for (size_t corner = 0; corner < 4; ++corner) {
        const CornerStats s = corner_stats(image, corner, p.size / 16);
        INFO("corner " << corner);
        CHECK(std::abs(s.std / p.noise_sigma - 1) < 0.05);
        // The standard error of a mean of 128^2 samples is sigma / 128.
        CHECK(std::abs(s.mean) < 5 * p.noise_sigma / 128);
    }

    REQUIRE(truth.positions.size() == size_t(p.n_compact));
    REQUIRE(truth.fluxes.size() == size_t(p.n_compact));
    const double margin = double(p.size) / 16;
    int bright = 0;
    for (size_t i = 0; i < truth.fluxes.size(); ++i) {
        for (double c : truth.positions[i]) {
            CHECK(c >= margin);
            CHECK(c <= double(p.size) - margin);
        }
        CHECK(truth.fluxes[i] >= 3 * p.noise_sigma);
        CHECK(truth.fluxes[i] <= 300 * p.noise_sigma);
        bright += truth.fluxes[i] > 5 * p.noise_sigma;
    }
    // Log-uniform peaks in [3, 300] sigma: 89% lie above 5 sigma.
    CHECK(bright > p.n_compact * 8 / 10);
    CHECK(bright < p.n_compact * 95 / 100);

    const auto found = kiln::cpu::label(above(image, 5 * p.noise_sigma), 8);
    // Every compact source above 5 sigma, the shells and the radio galaxy's
    // core and lobes; fewer where sources blend, a few more where noise
    // lifts a faint source's wing into an island of its own.
    INFO("components " << found.count << ", compact sources above 5 sigma " << bright);
    CHECK(found.count >= bright * 9 / 10);
    CHECK(found.count <= bright + p.n_shells + 3 + bright / 5);

    // A source 15 sigma bright is detected at its centre pixel, whatever the noise.
    const auto labels = found.labels.as<int32_t>();
    for (size_t i = 0; i < truth.fluxes.size(); ++i) {
        if (truth.fluxes[i] < 15 * p.noise_sigma) continue;
        const size_t y = size_t(std::lround(truth.positions[i][0]));
        const size_t x = size_t(std::lround(truth.positions[i][1]));
        REQUIRE(labels[y * p.size + x] != 0);
    }
}

TEST_CASE("synthetic_sky rejects params outside their ranges", "[cpu][sky]") {
    const auto with = [](auto change) {
        SkyParams p;
        p.size = 128;
        change(p);
        return p;
    };
    CHECK_THROWS_WITH(kiln::synthetic_sky(with([](SkyParams& p) { p.size = 63; })),
                      Catch::Contains("size 63") && Catch::Contains("accepted: 64 to 32768"));
    // -1 read as an unsigned size, and sizes whose square overflows 64 bits:
    // refused before anything is allocated (they used to overflow the canvas).
    for (size_t size : {~size_t(0), size_t(1) << 32, size_t(32769)}) {
        INFO("size " << size);
        CHECK_THROWS_WITH(kiln::synthetic_sky(with([&](SkyParams& p) { p.size = size; })),
                          Catch::Contains(std::to_string(size)) && Catch::Contains("accepted: 64 to 32768"));
    }
    CHECK_THROWS_AS(kiln::synthetic_sky(with([](SkyParams& p) { p.noise_sigma = 0; })),
                    kiln::InvalidArgument);
    CHECK_THROWS_AS(kiln::synthetic_sky(
                        with([](SkyParams& p) { p.noise_sigma = std::numeric_limits<double>::quiet_NaN(); })),
                    kiln::InvalidArgument);
    CHECK_THROWS_AS(kiln::synthetic_sky(with([](SkyParams& p) { p.n_compact = -1; })),
                    kiln::InvalidArgument);
    CHECK_THROWS_AS(kiln::synthetic_sky(with([](SkyParams& p) { p.n_shells = -1; })),
                    kiln::InvalidArgument);
    CHECK(kiln::synthetic_sky(with([](SkyParams& p) { p.size = 64; })).shape == Shape{64, 64});
}
