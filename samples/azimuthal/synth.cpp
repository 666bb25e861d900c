#include "synth.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <thread>

#include "kiln/io.hpp"
#include "kiln/random.hpp"
#include "progress.hpp"

namespace sample {

namespace {

double uniform(uint64_t& s) { return kiln::uniform01(s); }

// Poisson deviate: inversion for small means (a few steps for the counts
// here), a rounded normal for large ones.
uint32_t poisson(double mean, uint64_t& s) {
    if (mean <= 0) return 0;
    if (mean > 30) {
        const double u1 = std::max(uniform(s), 1e-300), u2 = uniform(s);
        const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
        return uint32_t(std::max(0.0, std::round(mean + std::sqrt(mean) * z)));
    }
    const double u = uniform(s);
    double p = std::exp(-mean), cdf = p;
    uint32_t k = 0;
    while (u > cdf && k < 1000) {
        ++k;
        p *= mean / k;
        cdf += p;
    }
    return k;
}

// Eiger 4M layout: 2 x 4 modules of 1030 x 514 pixels, with gaps between
// them (scaled with the detector for small stacks).
bool in_gap(const StackParams& p, size_t i, size_t j) {
    const double sy = double(p.rows) / 2162.0, sx = double(p.cols) / 2068.0;
    const size_t module_h = size_t(514 * sy), module_w = size_t(1030 * sx);
    const size_t gap_h = (p.rows - 4 * module_h) / 3, gap_w = p.cols - 2 * module_w;
    const size_t pitch_h = module_h + gap_h;
    const bool gap_row = i % pitch_h >= module_h && i < 3 * pitch_h;
    const bool gap_col = j >= module_w && j < module_w + gap_w;
    return gap_row || gap_col;
}

// Runs f(first_row, last_row) over blocks of rows on every core.
template <typename F> void parallel_rows(size_t rows, F f) {
    const size_t block = 64;
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t b; (b = next.fetch_add(1)) * block < rows;) f(b * block, std::min(rows, (b + 1) * block), b);
    };
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
}

}  // namespace

kiln::Geometry stack_geometry(const StackParams& p) {
    // The same angles for any pixel count: the distance scales with the
    // detector's height (0.1 m for the Eiger's 2162 rows of 75 um).
    const double dist = 0.1 * double(p.rows) * p.pixel / (2162 * 75e-6);
    return kiln::Geometry{p.rows, p.cols, p.pixel, p.pixel, dist, 0.51 * p.rows * p.pixel,
                          0.48 * p.cols * p.pixel, 0.002, -0.001, 0.0, 1.0e-10};
}

std::vector<float> mean_counts(const StackParams& p) {
    const auto g = stack_geometry(p);
    const auto q = kiln::q_nm(g);
    const auto solid = kiln::solid_angle(g);
    const auto polar = kiln::polarization(g, 0.99);
    // Silicon (a = 0.5431 nm): reflections with h^2 + k^2 + l^2 = N.
    const int allowed[] = {3, 8, 11, 16, 19, 24, 27, 32, 35, 40, 43, 48};
    std::vector<float> mean(q.size());
    for (size_t i = 0; i < g.rows; ++i)
        for (size_t j = 0; j < g.cols; ++j) {
            const size_t k = i * g.cols + j;
            if (in_gap(p, i, j)) {
                mean[k] = -1;
                continue;
            }
            double v = 1.5 + 40 * std::exp(-q[k] / 4);
            for (size_t n = 0; n < std::size(allowed); ++n) {
                const double qn = 2 * std::numbers::pi * std::sqrt(double(allowed[n])) / 0.5431;
                const double d = (q[k] - qn) / 0.12;
                v += 80 / std::sqrt(double(n) + 1) * std::exp(-0.5 * d * d);
            }
            mean[k] = float(v * solid[k] * polar[k]);
        }
    return mean;
}

std::vector<uint32_t> make_frame(const StackParams& p, const std::vector<float>& mean, size_t index) {
    // The rings brighten and fade slowly along the stack.
    const double scale = 0.8 + 0.4 * (0.5 + 0.5 * std::sin(2 * std::numbers::pi * double(index) / 60));
    std::vector<uint32_t> out(p.rows * p.cols);
    parallel_rows(p.rows, [&](size_t r0, size_t r1, size_t block) {
        uint64_t s = (uint64_t(p.seed) << 40) ^ (uint64_t(index) << 20) ^ block;
        kiln::splitmix64(s);
        for (size_t k = r0 * p.cols; k < r1 * p.cols; ++k)
            out[k] = mean[k] < 0 ? gap_value : poisson(mean[k] * scale, s);
    });
    return out;
}

void write_stack(const StackParams& p, const std::string& path) {
    const auto mean = mean_counts(p);
    kiln::io::FrameStackWriter w(path, "/entry/data/data", p.rows, p.cols, kiln::DType::uint32, true);
    Progress bar("writing " + std::to_string(p.frames) + " frames", p.frames);
    for (size_t f = 0; f < p.frames; ++f) {
        w.write_frame(kiln::HostArray::from(kiln::Shape{p.rows, p.cols}, make_frame(p, mean, f)));
        bar.update(f + 1);
    }
    w.close();
    bar.finish();
}

std::string stack_name(const StackParams& p) {
    return "eiger_" + std::to_string(p.rows) + "x" + std::to_string(p.cols) + "_" + std::to_string(p.frames) +
           "f_s" + std::to_string(p.seed) + ".h5";
}

}  // namespace sample
