// The astronomy workloads of REFERENCE.md on the synthetic sky:
//   W8  connected component labelling of the 5-sigma mask, 4-connectivity;
//   W9  measurements (sum and centre of mass among them) of every label;
//   W9c the two chained with the label count left on the device.
// The mask is the one bench/compare.py gives CuPy and SciPy: image > 5 * the
// kappa-sigma clipped std. Both results are checked against the CPU refs.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "bench.hpp"
#include "kiln/elementwise.hpp"
#include "kiln/label.hpp"
#include "kiln/measure.hpp"
#include "kiln/pinned.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/reference/label.hpp"
#include "kiln/reference/measure.hpp"
#include "kiln/statistics.hpp"
#include <chrono>
#include <cstring>

namespace kiln::bench {

namespace {

struct Sky {
    const HostArray& image;  // sky_input's
    HostArray mask;          // its 5-sigma segmentation
    cpu::LabelResult labels;
};

// The inputs of W8/W9, made once per size (the CPU labelling is slow).
const Sky& sky(Size size) {
    static std::unique_ptr<Sky> cache[2];
    auto& s = cache[size == Size::full];
    if (!s) {
        const SkyInput& in = sky_input(size);
        s.reset(new Sky{in.image, cpu::threshold(in.image, 5 * in.clip.std), {}});
        s->labels = cpu::label(s->mask);
    }
    return *s;
}

Register w8{{"W8", "label 2048^2 5-sigma mask, 4-connectivity", "astro",
             [](Context& ctx, Size size, int n) {
                 const Sky& s = sky(size);
                 Array mask = Array::from_host(ctx, s.mask);
                 LabelsAsync out;
                 Result r;
                 take_times(r, timed(ctx, size, [&] { out = label_async(mask, 4); }, n, 3));
                 r.metrics["labels"] = s.labels.count;
                 r.metrics["Gpix/s"] = double(s.mask.size()) / (r.gpu_ms * 1e-3) / 1e9;
                 r.checked = true;
                 const int32_t count = out.count.to_vector<int32_t>()[0];
                 const auto got = out.labels.to_vector<int32_t>();
                 const auto want = s.labels.labels.as<int32_t>();
                 r.ok = count == s.labels.count && std::equal(got.begin(), got.end(), want.begin());
                 if (!r.ok)
                     r.note = "labels differ from cpu::label (count " + std::to_string(count) + ")";
                 return r;
             }}};

// Compares a measured table with cpu::measure's on the sky's labels.
void check_table(Result& r, const Sky& s, const std::vector<LabelStats>& got) {
    r.checked = true;
    const auto want = cpu::measure(s.image, s.labels.labels);
    r.ok = got.size() == want.size();
    if (!r.ok) r.note = std::to_string(got.size()) + " labels measured, not " + std::to_string(want.size());
    for (size_t k = 0; r.ok && k < got.size(); ++k) {
        auto close = [](double a, double b) {
            return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
        };
        r.ok = got[k].count == want[k].count && close(got[k].sum, want[k].sum) &&
               close(got[k].center_of_mass[1], want[k].center_of_mass[1]) &&
               close(got[k].center_of_mass[2], want[k].center_of_mass[2]) &&
               got[k].bbox_stop == want[k].bbox_stop && got[k].max_pos == want[k].max_pos;
        if (!r.ok) r.note = "label " + std::to_string(k + 1) + " differs from cpu::measure";
    }
}

Register w9{
    {"W9", "measure all labels (sum, centre of mass, ...)", "astro",
     [](Context& ctx, Size size, int n) {
         const Sky& s = sky(size);
         Array image = Array::from_host(ctx, s.image);
         Array labels = Array::from_host(ctx, s.labels.labels);
         std::vector<LabelStats> got;
         Result r;
         take_times(r, timed(ctx, size, [&] { got = measure_async(image, labels, s.labels.count).stats(); },
                           n, 3));
         r.metrics["labels"] = s.labels.count;
         check_table(r, s, got);
         return r;
     }}};

// W8 and W9 chained with the count left on the device: one submission and
// one read-back (of the count and the table together).
Register w9c{
    {"W9c", "label then measure, count on the device, one read-back", "astro",
     [](Context& ctx, Size size, int n) {
         const Sky& s = sky(size);
         Array image = Array::from_host(ctx, s.image);
         Array mask = Array::from_host(ctx, s.mask);
         std::vector<LabelStats> got;
         Result r;
         take_times(r, timed(ctx, size, [&] { got = measure_async(image, label_async(mask, 4)).stats(); },
                           n, 3));
         r.metrics["labels"] = s.labels.count;
         check_table(r, s, got);
         return r;
     }}};

// W10: the four steps end to end, as the lesson runs them: push the image
// (from pinned memory), clip, threshold, label, measure, catalogue pulled.
// Wall time (host clock), since it includes transfers and read-backs.
Register w10{{"W10", "astronomy pipeline end to end (push .. catalogue)", "astro", [](Context& ctx, Size size, int n) {
    const Sky& s = sky(size);
    PinnedBuffer host(ctx, s.image.nbytes());
    std::memcpy(host.data(), s.image.data(), s.image.nbytes());
    Array image = Array::empty(ctx, s.image.shape, DType::float32);
    std::vector<LabelStats> table;
    int32_t count = 0;
    // Clipping, segmentation, labelling and measurement recorded as one
    // chain: the clipped std, the label count and the table stay on the
    // device until the catalogue is read back (the push from pinned memory
    // is its own submission, since push returns once the buffer is free).
    auto once = [&] {
        image.push(host.data(), host.size());
        ClipResultAsync c = kappa_sigma_clip_async(image, 3.0);
        table = measure_async(image, label_async(threshold(image, c.stats, 1, 5.0), 4)).stats();
        count = static_cast<int32_t>(table.size());
    };
    std::vector<double> wall, gpu;
    size_t submissions = 0;
    once();
    hold_clock(ctx, size);
    for (int i = 0; i < std::max(3, n / 2); ++i) {
        const uint64_t before = ctx.profile().submission_count();
        auto t0 = std::chrono::steady_clock::now();
        once();
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        double g = 0;
        for (double d : ctx.profile().submissions_since(before)) g += d;
        gpu.push_back(g);
        submissions += ctx.profile().submission_count() - before;
    }
    Result r;
    r.wall_ms = median_of(wall);
    r.gpu_ms = median_of(gpu);
    r.gpu_min = *std::min_element(gpu.begin(), gpu.end());
    r.gpu_max = *std::max_element(gpu.begin(), gpu.end());
    r.metrics["sources"] = count;
    r.metrics["submissions"] = double(submissions) / double(wall.size());
    check_table(r, s, table);
    if (r.ok) r.note = "wall time includes push, 4 steps, catalogue pull; gpu_ms sums the submissions";
    return r;
}}};

}  // namespace

}  // namespace kiln::bench
