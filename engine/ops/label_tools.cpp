// Label tools on the GPU. The renumbering ones share three steps, recorded
// together after one read-back of the label range: pixel counts per label
// (labtool_count), a one-workgroup scan that makes the table old -> new
// (labtool_map), and a pass applying it (labtool_apply). find_objects
// updates bounding boxes once per run of a label along x (labtool_boxes);
// dilate_labels and voronoi_otsu_labeling grow labels with pyclesperanto's
// steps (labtool_grow).
#include "kiln/label_tools.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/elementwise.hpp"
#include "kiln/filters.hpp"
#include "kiln/label.hpp"
#include "kiln/threshold.hpp"
#include "ops/finite_range.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;
using ops::KernelId;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
// Growth steps recorded between two read-backs of the change flags.
constexpr uint32_t grow_batch = 16;

struct MapPush {
    uint32_t entries, lo, hi;
};
static_assert(sizeof(MapPush) == 12);

struct EdgePush {
    uint32_t nx, ny, nz, fx, fy, fz;
};
static_assert(sizeof(EdgePush) == 24);

struct BoxPush {
    uint32_t nx, ny, nz, n, count, ndim;
};
static_assert(sizeof(BoxPush) == 24);

struct GrowPush {
    uint32_t nx, ny, nz, iter, check;
};
static_assert(sizeof(GrowPush) == 20);

void check_labels(const Array& labels, const char* op) {
    if (!labels) throw InvalidArgument(std::string(op) + ": the label image is a null Array");
    if (labels.dtype() != DType::int32)
        throw InvalidArgument(std::string(op) + ": the label image is " + std::string(dtype_name(labels.dtype())) +
                              "; label tools take int32 label images (kiln::label's), convert with kiln::cast");
    if (labels.size() == 0 || labels.size() >= (1ull << 31))
        throw Unsupported(std::string(op) + ": a label image of " + std::to_string(labels.size()) +
                          " elements; 1 to 2^31 - 1 are supported");
}

// kiln has no empty arrays: a result with no row is refused.
[[noreturn]] void throw_no_labels(const char* op) {
    throw InvalidArgument(std::string(op) + ": the label image has no label > 0, and the result would be empty "
                          "(kiln arrays have at least one element); check kiln::max(labels) > 0 first");
}

// Pixel counts of the labels 1..max (entry 0, background, stays 0): the
// range read back to size them (and refuse negative labels), then
// labtool_count, which skips background instead of piling atomics on it.
Array label_counts(const Array& labels, const char* op) {
    const ops::FiniteRange r = ops::finite_range(labels);
    if (r.min < 0)
        throw InvalidArgument(std::string(op) + ": the label image holds " + std::to_string(int64_t(r.min)) +
                              "; labels must be >= 0");
    const auto entries = static_cast<size_t>(r.max) + 1;
    Array counts = Array::zeros(labels.context(), Shape{entries}, DType::uint32);
    const auto n = static_cast<uint32_t>(labels.size());
    constexpr uint32_t run = 16;  // pixels per invocation, as labtool_count's RUN
    Dispatcher(ops::services(labels), KernelId::labtool_count, linear_local)
        .read(labels)
        .read_write(counts)
        .push(n)
        .stride_grid((uint64_t(n) + run - 1) / run)
        .record();
    return counts;
}

// Labels l in 1..max kept when lo <= counts[l] <= hi and flags[l] == 0
// (no flags: all), numbered 1, 2, ... in order; the rest become 0.
Array renumber(const Array& labels, const Array& counts, const Array& flags, uint32_t lo, uint32_t hi) {
    detail::OpServices& ctx = ops::services(labels);
    const auto entries = static_cast<uint32_t>(counts.size());
    Array map = Array::empty(labels.context(), Shape{entries}, DType::int32);
    Array total = Array::empty(labels.context(), Shape{1}, DType::int32);
    Dispatcher(ctx, KernelId::labtool_map, {1024, 1, 1})
        .read(counts)
        .read(flags ? flags : counts)
        .write(map)
        .write(total)
        .spec(flags ? 1u : 0u)
        .push(MapPush{entries, lo, hi})
        .groups(1)
        .record();
    Array out = Array::empty(labels.context(), labels.shape(), DType::int32);
    const auto n = static_cast<uint32_t>(labels.size());
    Dispatcher(ctx, KernelId::labtool_apply, linear_local)
        .read(labels)
        .read(map)
        .write(out)
        .spec(0)
        .push(n)
        .stride_grid(n)
        .record();
    return out;
}

uint32_t size_bound(double v) {
    if (!(v > 0)) return 0;
    if (v >= 4294967295.0) return std::numeric_limits<uint32_t>::max();
    return static_cast<uint32_t>(v);
}

void grow_step(const Array& src, const Array& dst, const Array& flags, uint32_t iter, bool check, bool box) {
    const Shape& s = src.shape();
    const GrowPush push{uint32_t(s.x()), uint32_t(s.y()), uint32_t(s.z()), iter, check ? 1u : 0u};
    Dispatcher(ops::services(src), KernelId::labtool_grow, linear_local)
        .read(src)
        .write(dst)
        .read_write(flags)
        .spec(box ? 1u : 0u)
        .push(push)
        .stride_grid(src.size())
        .record();
}

}  // namespace

Array relabel_sequential(const Array& labels) {
    check_labels(labels, "relabel_sequential");
    const Array counts = label_counts(labels, "relabel_sequential");
    return renumber(labels, counts, {}, 1, std::numeric_limits<uint32_t>::max());
}

Array exclude_labels_on_edges(const Array& labels) {
    check_labels(labels, "exclude_labels_on_edges");
    const Array counts = label_counts(labels, "exclude_labels_on_edges");
    Array flags = Array::zeros(labels.context(), Shape{counts.size()}, DType::uint32);
    const Shape& s = labels.shape();
    const size_t nd = labels.ndim();
    const auto nx = uint32_t(s.x()), ny = uint32_t(s.y()), nz = uint32_t(s.z());
    // Axes of extent 1 have no faces of their own (pyclesperanto skips them).
    const EdgePush push{nx, ny, nz, nx > 1 ? nz * ny * 2 : 0, nd >= 2 && ny > 1 ? nz * nx * 2 : 0,
                        nd == 3 && nz > 1 ? ny * nx * 2 : 0};
    const uint64_t faces = uint64_t(push.fx) + push.fy + push.fz;
    if (faces > 0)
        Dispatcher(ops::services(labels), KernelId::labtool_edges, linear_local)
            .read(labels)
            .write(flags)
            .push(push)
            .stride_grid(faces)
            .record();
    return renumber(labels, counts, flags, 0, std::numeric_limits<uint32_t>::max());
}

Array exclude_labels_outside_size_range(const Array& labels, double minimum_size, double maximum_size) {
    check_labels(labels, "exclude_labels_outside_size_range");
    if (std::isnan(minimum_size) || std::isnan(maximum_size) || minimum_size > maximum_size)
        throw InvalidArgument("exclude_labels_outside_size_range: minimum_size = " + std::to_string(minimum_size) +
                              ", maximum_size = " + std::to_string(maximum_size) +
                              "; give numbers with minimum_size <= maximum_size");
    const Array counts = label_counts(labels, "exclude_labels_outside_size_range");
    // A count c is kept when minimum_size <= c <= maximum_size.
    const uint32_t lo = size_bound(std::ceil(minimum_size)), hi = size_bound(std::floor(maximum_size));
    if (maximum_size < 0) return renumber(labels, counts, {}, 1, 0);
    return renumber(labels, counts, {}, lo, hi);
}

Array label_sizes(const Array& labels) {
    check_labels(labels, "label_sizes");
    const Array counts = label_counts(labels, "label_sizes");
    const size_t n = counts.size() - 1;
    if (n == 0) throw_no_labels("label_sizes");
    Array out = Array::empty(labels.context(), Shape{n}, DType::int32);
    Dispatcher(ops::services(labels), KernelId::labtool_apply, linear_local)
        .read(counts)
        .read(counts)
        .write(out)
        .spec(1)
        .push(static_cast<uint32_t>(n))
        .stride_grid(n)
        .record();
    return out;
}

Array find_objects(const Array& labels) {
    check_labels(labels, "find_objects");
    const double top = ops::finite_range(labels).max;
    const auto count = static_cast<uint32_t>(std::max(0.0, top));
    const auto nd = static_cast<uint32_t>(labels.ndim());
    if (count == 0) throw_no_labels("find_objects");
    Array out = Array::empty(labels.context(), Shape{count, 2 * nd}, DType::int32);
    Array boxes = Array::zeros(labels.context(), Shape{size_t(count) * 6}, DType::int32);
    const Shape& s = labels.shape();
    const auto n = static_cast<uint32_t>(labels.size());
    BoxPush push{uint32_t(s.x()), uint32_t(s.y()), uint32_t(s.z()), n, count, nd};
    detail::OpServices& ctx = ops::services(labels);
    Dispatcher(ctx, KernelId::labtool_boxes, linear_local)
        .read(labels).read_write(boxes).write(out).spec(0).push(push).stride_grid(n).record();
    Dispatcher(ctx, KernelId::labtool_boxes, linear_local)
        .read(labels).read_write(boxes).write(out).spec(1).push(push).stride_grid(count).record();
    return out;
}

Array dilate_labels(const Array& labels, int radius) {
    check_labels(labels, "dilate_labels");
    if (radius < 0)
        throw InvalidArgument("dilate_labels: radius = " + std::to_string(radius) + "; it must be >= 0");
    if (radius == 0) return copy(labels);
    // pyclesperanto stops at a step that changes nothing; the steps after it
    // see its flag and copy, so all of them are recorded without a read-back.
    Array flags = Array::zeros(labels.context(), Shape{size_t(radius)}, DType::uint32);
    Array a = copy(labels), b = Array::empty(labels.context(), labels.shape(), DType::int32);
    for (int k = 0; k < radius; ++k) {
        grow_step(a, b, flags, static_cast<uint32_t>(k), k > 0, k % 2 == 0);
        std::swap(a, b);
    }
    return a;
}

Array voronoi_otsu_labeling(const Array& image, double spot_sigma, double outline_sigma) {
    if (!image) throw InvalidArgument("voronoi_otsu_labeling: the image is a null Array");
    const Array spot_blur = gaussian_blur(image, spot_sigma);
    const Array outline_blur = outline_sigma == spot_sigma ? spot_blur : gaussian_blur(image, outline_sigma);
    const Array binary = threshold(outline_blur, threshold_otsu(outline_blur));
    Array spots = Array::empty(image.context(), image.shape(), DType::uint8);
    const Shape& s = image.shape();
    const std::array<uint32_t, 3> dims{uint32_t(s.x()), uint32_t(s.y()), uint32_t(s.z())};
    Dispatcher(ops::services(image), ops::variant(ops::Shader::labtool_maxima, spot_blur.dtype()), linear_local)
        .read(spot_blur)
        .read(binary)
        .write(spots)
        .push(dims)
        .stride_grid(image.size())
        .record();
    const int box = image.ndim() == 1 ? 2 : image.ndim() == 2 ? 8 : 26;
    // Seeds inside the foreground, 0 where they may grow, -1 where not.
    Array a = where(binary, label_async(spots, box).labels, -1.0);
    Array b = Array::empty(image.context(), image.shape(), DType::int32);
    for (uint32_t done = 0;; done += grow_batch) {
        Array flags = Array::zeros(image.context(), Shape{grow_batch}, DType::uint32);
        for (uint32_t k = 0; k < grow_batch; ++k) {
            grow_step(a, b, flags, k, k > 0, (done + k) % 2 == 0);
            std::swap(a, b);
        }
        // A step without change in the batch: the last output is the result.
        if (flags.to_vector<uint32_t>().back() == 0) return maximum(a, 0.0);
    }
}

}  // namespace kiln

// The manifest entries (kiln/manifest.hpp).
#include "kiln/manifest.hpp"

namespace kiln {
namespace {

ArgSpec labels_arg() { return {"labels", ArgKind::array, "Label image file (int32, 0 = background)"}; }

const OpFamily label_tools_family("label_tools", {
    {"relabel_sequential", "Labels renumbered 1..N in order, as skimage.segmentation.relabel_sequential's first output",
     {labels_arg()}, ResultKind::array, {}, {},
     [](const OpArgs& x) { return OpResult(relabel_sequential(x.array("labels"))); }},
    {"exclude_labels_on_edges", "Labels touching the image border removed, the rest renumbered (pyclesperanto)",
     {labels_arg()}, ResultKind::array, {}, {},
     [](const OpArgs& x) { return OpResult(exclude_labels_on_edges(x.array("labels"))); }},
    {"exclude_labels_outside_size_range",
     "Labels whose pixel count is outside [minimum_size, maximum_size] removed, the rest renumbered (pyclesperanto)",
     {labels_arg(),
      {"minimum_size", ArgKind::number, "Smallest pixel count kept", "0"},
      {"maximum_size", ArgKind::number, "Largest pixel count kept", "100"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return OpResult(exclude_labels_outside_size_range(x.array("labels"), x.number("minimum_size"),
                                                           x.number("maximum_size")));
     }},
    {"label_sizes", "Pixel count of every label 1..max, numpy.bincount(labels)[1:] (int32)", {labels_arg()},
     ResultKind::array, {}, {}, [](const OpArgs& x) { return OpResult(label_sizes(x.array("labels"))); }},
    {"find_objects",
     "Bounding boxes as scipy.ndimage.find_objects: int32 (N, 2*ndim) of start, stop per axis; -1 -1 for absent labels",
     {labels_arg()}, ResultKind::array, {}, {},
     [](const OpArgs& x) { return OpResult(find_objects(x.array("labels"))); }},
    {"dilate_labels", "Labels grown by radius steps without overwriting each other (pyclesperanto's dilate_labels)",
     {labels_arg(), {"radius", ArgKind::integer, "Number of growth steps (box and face steps alternating)", "2", false,
                     {}, 0, 1 << 20}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return OpResult(dilate_labels(x.array("labels"), int(x.integer("radius")))); }},
    {"voronoi_otsu_labeling",
     "pyclesperanto's voronoi_otsu_labeling: blurred maxima as seeds, Otsu foreground, masked Voronoi growth (int32)",
     {{"image", ArgKind::array, "Input image file (2-D or 3-D)"},
      {"spot_sigma", ArgKind::number, "Gaussian sigma of the blur the spots are found in", "2"},
      {"outline_sigma", ArgKind::number, "Gaussian sigma of the blur that is thresholded", "2"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) {
         return OpResult(
             voronoi_otsu_labeling(x.array("image"), x.number("spot_sigma"), x.number("outline_sigma")));
     }},
});

}  // namespace
}  // namespace kiln
