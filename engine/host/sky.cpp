#include "kiln/sky.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "kiln/error.hpp"
#include "kiln/random.hpp"

namespace kiln {
namespace {

// xoshiro256** seeded through splitmix64: both fully specified by integer
// arithmetic, unlike the standard library's distributions, whose output
// differs between implementations.
class Rng {
public:
    Rng(uint64_t seed, uint64_t stream) {
        uint64_t s = seed ^ (stream * 0xd1342543de82ef95ull);
        for (uint64_t& word : state_) word = splitmix64(s);
    }

    uint64_t next() {
        const uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

    /// Standard normal by Marsaglia's polar form of Box-Muller (log and sqrt only).
    double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        double u, v, s;
        do {
            u = 2.0 * uniform() - 1.0;
            v = 2.0 * uniform() - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        spare_ = v * f;
        has_spare_ = true;
        return u * f;
    }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    uint64_t state_[4];
    double spare_ = 0;
    bool has_spare_ = false;
};

// Accumulates in double; the image is rounded to float32 once at the end.
// The pixels are a HostArray so that an allocation the host cannot make is
// reported (OutOfMemory with the size) like any other array's.
class Canvas {
public:
    explicit Canvas(size_t size)
        : size_(size), image_(Shape{size, size}, DType::float64), pixels_(image_.as<double>()) {}
    Canvas(const Canvas&) = delete;  // pixels_ points into image_
    Canvas& operator=(const Canvas&) = delete;

    /// Adds profile(dy, dx) over the pixels within reach of (cy, cx).
    template <typename F>
    void add(double cy, double cx, double reach, F profile) {
        const auto lo = [&](double c) { return size_t(std::max(0.0, std::floor(c - reach))); };
        const auto hi = [&](double c) {
            return size_t(std::clamp(std::ceil(c + reach), 0.0, double(size_ - 1)));
        };
        for (size_t y = lo(cy); y <= hi(cy); ++y)
            for (size_t x = lo(cx); x <= hi(cx); ++x)
                pixels_[y * size_ + x] += profile(double(y) - cy, double(x) - cx);
    }

    std::span<const double> pixels() const { return pixels_; }

private:
    size_t size_;
    HostArray image_;
    std::span<double> pixels_;
};

void check(const SkyParams& p) {
    const auto bad = [](const std::string& what) { throw InvalidArgument("synthetic_sky: " + what); };
    if (p.size < SkyParams::min_size || p.size > SkyParams::max_size)
        bad("size " + std::to_string(p.size) + " is not accepted; accepted: " + std::to_string(SkyParams::min_size) +
            " to " + std::to_string(SkyParams::max_size) + " pixels a side");
    if (!(std::isfinite(p.noise_sigma) && p.noise_sigma > 0))
        bad("noise_sigma " + std::to_string(p.noise_sigma) +
            " is not valid; accepted: finite and > 0 (Jy/beam)");
    if (p.n_compact < 0 || p.n_shells < 0)
        bad("n_compact " + std::to_string(p.n_compact) + " and n_shells " + std::to_string(p.n_shells) +
            " must both be >= 0");
}

void add_compact_sources(Canvas& canvas, Rng& rng, const SkyParams& p, double margin, SkyTruth* truth) {
    const double lo = margin, hi = double(p.size) - margin;
    for (int i = 0; i < p.n_compact; ++i) {
        const double y = rng.uniform(lo, hi), x = rng.uniform(lo, hi);
        const double width = rng.uniform(1.0, 3.0);
        const double peak = p.noise_sigma * 3.0 * std::pow(100.0, rng.uniform());
        canvas.add(y, x, 5.0 * width, [&](double dy, double dx) {
            return peak * std::exp(-(dy * dy + dx * dx) / (2.0 * width * width));
        });
        if (truth) {
            truth->positions.push_back({y, x});
            truth->fluxes.push_back(peak);
        }
    }
}

void add_shells(Canvas& canvas, Rng& rng, const SkyParams& p, double margin) {
    const double size = double(p.size);
    for (int i = 0; i < p.n_shells; ++i) {
        const double radius = rng.uniform(size / 64.0, size / 24.0);
        const double width = rng.uniform(1.5, 3.0);
        const double reach = radius + 5.0 * width;
        const double y = rng.uniform(margin + reach, size - margin - reach);
        const double x = rng.uniform(margin + reach, size - margin - reach);
        const double peak = p.noise_sigma * rng.uniform(15.0, 30.0);
        const double bright_side = rng.uniform(0.0, 2.0 * std::numbers::pi);
        canvas.add(y, x, reach, [&](double dy, double dx) {
            const double r = std::sqrt(dy * dy + dx * dx);
            // Shells are brighter on one side, where they run into denser gas.
            const double side = 0.85 + 0.15 * std::cos(std::atan2(dy, dx) - bright_side);
            const double d = r - radius;
            return peak * side * std::exp(-d * d / (2.0 * width * width));
        });
    }
}

// An elliptical Gaussian cut off where it falls to a quarter of its peak, over about
// a pixel: a broad Gaussian crosses a 5-sigma threshold so gently that noise
// breaks its rim into hundreds of one-pixel islands, and the sample's
// catalogue should list sources, not those.
void add_lobe(Canvas& canvas, double cy, double cx, double peak, double major, double minor, double angle) {
    const double ca = std::cos(angle), sa = std::sin(angle);
    const double cut = std::sqrt(2.0 * std::log(1.0 / 0.25));
    canvas.add(cy, cx, cut * major + 5.0, [&](double dy, double dx) {
        const double along = (dx * ca + dy * sa) / major, across = (-dx * sa + dy * ca) / minor;
        const double rho = std::sqrt(along * along + across * across);
        const double edge = 1.0 / (1.0 + std::exp((rho - cut) * minor));
        return peak * std::exp(-0.5 * rho * rho) * edge;
    });
}

void add_radio_galaxy(Canvas& canvas, Rng& rng, const SkyParams& p) {
    const double size = double(p.size), c = size / 2.0, sigma = p.noise_sigma;
    const double core = 2.5;
    canvas.add(c, c, 5.0 * core, [&](double dy, double dx) {
        return 600.0 * sigma * std::exp(-(dy * dy + dx * dx) / (2.0 * core * core));
    });
    add_lobe(canvas, c, c, 40.0 * sigma, size / 64.0, size / 64.0, 0.0);
    const double angle = rng.uniform(0.0, std::numbers::pi), offset = size / 24.0;
    for (double sign : {-1.0, 1.0})
        add_lobe(canvas, c + sign * offset * std::sin(angle), c + sign * offset * std::cos(angle),
                 30.0 * sigma, size / 80.0, size / 200.0, angle);
}

}  // namespace

HostArray synthetic_sky(const SkyParams& params, SkyTruth* truth) {
    check(params);
    if (truth) *truth = {};
    Canvas canvas(params.size);
    Rng sources(params.seed, 1);
    const double margin = double(params.size) / 16.0;
    add_radio_galaxy(canvas, sources, params);
    add_shells(canvas, sources, params, margin);
    add_compact_sources(canvas, sources, params, margin, truth);

    Rng noise(params.seed, 2);
    HostArray image(Shape{params.size, params.size}, DType::float32);
    auto out = image.as<float>();
    const auto sky = canvas.pixels();
    for (size_t i = 0; i < out.size(); ++i) out[i] = float(sky[i] + params.noise_sigma * noise.normal());
    return image;
}

}  // namespace kiln
