// Thresholds and label tools (issue 18, items 4 and 5): W50 threshold_otsu,
// W51 relabel_sequential, W52 exclude_labels_on_edges, W53 label_sizes, W54
// find_objects, W55 voronoi_otsu_labeling, on a synthetic 2048^2 image of
// Gaussian blobs and its label image (256^2 at the small size). The same
// inputs are made by bench/peers_threshold.py for CuPy.
#include <cmath>

#include "bench.hpp"
#include "kiln/label_tools.hpp"
#include "kiln/reference/label_tools.hpp"
#include "kiln/reference/threshold.hpp"
#include "kiln/threshold.hpp"

namespace kiln::bench {

namespace {

size_t side(Size size) { return size == Size::full ? 2048 : 256; }

// Blobs on a 32-pixel grid, centres jittered by a fixed hash, sigma 5, on a
// background ramp with hashed noise; the labels are the discs of radius 9
// around the centres numbered 3k + 1 (gaps for the renumbering ops).
struct Blobs {
    HostArray image, labels;
};

uint32_t hash(uint32_t x) {
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    return x;
}

Blobs blobs(size_t n) {
    Blobs b{HostArray(Shape{n, n}, DType::float32), HostArray(Shape{n, n}, DType::int32)};
    auto img = b.image.as<float>();
    auto lab = b.labels.as<int32_t>();
    for (size_t i = 0; i < img.size(); ++i)
        img[i] = 10.0f + 5.0f * float(i % n) / float(n) + float(hash(uint32_t(i)) % 1000) / 500.0f;
    const size_t cells = n / 32;
    for (size_t cy = 0; cy < cells; ++cy)
        for (size_t cx = 0; cx < cells; ++cx) {
            const uint32_t k = uint32_t(cy * cells + cx), h = hash(k + 12345);
            const double y0 = double(cy * 32) + 4 + h % 24, x0 = double(cx * 32) + 4 + (h >> 8) % 24;
            const float peak = 50.0f + float((h >> 16) % 50);
            for (long y = long(y0) - 15; y <= long(y0) + 15; ++y)
                for (long x = long(x0) - 15; x <= long(x0) + 15; ++x) {
                    if (y < 0 || x < 0 || y >= long(n) || x >= long(n)) continue;
                    const double r2 = (y - y0) * (y - y0) + (x - x0) * (x - x0);
                    img[size_t(y) * n + size_t(x)] += peak * float(std::exp(-r2 / 50.0));
                    if (r2 <= 81) lab[size_t(y) * n + size_t(x)] = int32_t(3 * k + 1);
                }
        }
    return b;
}

std::vector<int32_t> ints(const HostArray& a) {
    auto v = a.as<int32_t>();
    return {v.begin(), v.end()};
}

// A label tool timed on the blob labels and checked against its reference.
Result label_tool(Context& ctx, Size size, int n, Array (*op)(const Array&), HostArray (*ref)(const HostArray&)) {
    const Blobs b = blobs(side(size));
    const Array labels = Array::from_host(ctx, b.labels);
    Array got;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = op(labels); }, n, 3));
    r.metrics["GB/s"] = b.labels.nbytes() * 2.0 / (r.gpu_ms * 1e-3) / 1e9;
    r.checked = true;
    r.ok = got.to_vector<int32_t>() == ints(ref(b.labels));
    if (!r.ok) r.note = "differs from the CPU reference";
    return r;
}

}  // namespace

Register w50{{"W50", "threshold_otsu 2048^2 float32 (256 bins)", "threshold", [](Context& ctx, Size size, int n) {
    const Blobs b = blobs(side(size));
    const Array image = Array::from_host(ctx, b.image);
    double got = 0;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = threshold_otsu(image); }, n, 3));
    r.checked = true;
    r.ok = got == cpu::threshold_otsu(b.image);
    if (!r.ok) r.note = "threshold differs from cpu::threshold_otsu";
    return r;
}}};

Register w51{{"W51", "relabel_sequential 2048^2 int32 blob labels", "threshold", [](Context& ctx, Size size, int n) {
    return label_tool(ctx, size, n, relabel_sequential, cpu::relabel_sequential);
}}};

Register w52{{"W52", "exclude_labels_on_edges 2048^2 int32 blob labels", "threshold", [](Context& ctx, Size size,
                                                                                          int n) {
    return label_tool(ctx, size, n, exclude_labels_on_edges, cpu::exclude_labels_on_edges);
}}};

Register w53{{"W53", "label_sizes 2048^2 int32 blob labels", "threshold", [](Context& ctx, Size size, int n) {
    return label_tool(ctx, size, n, label_sizes, cpu::label_sizes);
}}};

Register w54{{"W54", "find_objects 2048^2 int32 blob labels", "threshold", [](Context& ctx, Size size, int n) {
    return label_tool(ctx, size, n, find_objects, cpu::find_objects);
}}};

Register w55{{"W55", "voronoi_otsu_labeling 2048^2 float32 blobs, sigmas 2 2", "threshold", [](Context& ctx, Size size,
                                                                                                 int n) {
    const Blobs b = blobs(side(size));
    const Array image = Array::from_host(ctx, b.image);
    Array got;
    Result r;
    take_times(r, timed(ctx, size, [&] { got = voronoi_otsu_labeling(image, 2, 2); }, n, 2));
    // The CPU reference grows pixel by pixel: checked at the small size only.
    if (size == Size::small) {
        r.checked = true;
        r.ok = got.to_vector<int32_t>() == ints(cpu::voronoi_otsu_labeling(b.image, 2, 2));
        if (!r.ok) r.note = "labels differ from cpu::voronoi_otsu_labeling";
    }
    return r;
}}};

}  // namespace kiln::bench
