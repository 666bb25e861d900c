// The azimuthal integrator: set-up (matrix and corrections uploaded once),
// and its kernels: integration, fused or as pyFAI's two, and sigma clipping.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>

#include "kiln/azimuthal.hpp"
#include "ops/azimuthal_state.hpp"
#include "ops/kernel.hpp"

namespace kiln {


namespace {

using EM = IntegrateParams::ErrorModel;
constexpr std::array<uint32_t, 3> row_local{256, 1, 1};
constexpr std::array<uint32_t, 3> pixel_local{256, 1, 1};

// std430 layout of azim_integrate's push constants.
struct IntegratePush {
    uint32_t pixels, rows, bins, pad1 = 0;
    uint32_t dummy[4] = {0, 0, 0, 0};
    float empty;
};
static_assert(sizeof(IntegratePush) == 36);

struct PreprocessPush {
    uint32_t pixels, total, pad0 = 0, pad1 = 0;
    uint32_t dummy[4] = {0, 0, 0, 0};
};
static_assert(sizeof(PreprocessPush) == 32);

struct ClipPush {
    uint32_t pixels, bins, max_iter, pad0 = 0;
    uint32_t dummy[4] = {0, 0, 0, 0};
    uint32_t kappa64[2];
    float kappa32, empty;
};
static_assert(sizeof(ClipPush) == 48);

constexpr int max_clip_iterations = 64;  // azim_clip.comp's MAX_ITER
// integrate() gives each row lanes of a subgroup rather than a workgroup when
// rows hold fewer than this many entries per subgroup lane on average (the
// kernel's 4 loads per pass: one pass of a subgroup).
constexpr size_t subgroup_rows_below = 4;
constexpr size_t default_segment_entries = 8192;  // the fastest of 512 to 8192 for W15 and W16 on an H200
constexpr size_t initial_counter_frames = 64;

void check_pixels(size_t got, size_t pixels, const char* what) {
    if (got != pixels)
        throw InvalidArgument(std::string("AzimuthalIntegrator: ") + what + " has " + std::to_string(got) +
                              " values; the detector has " + std::to_string(pixels) +
                              " pixels and every per-pixel input must match");
}

std::vector<double> doubles_of(const HostArray& a) {
    return visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        const auto v = a.as<T>();
        return std::vector<double>(v.begin(), v.end());
    });
}

std::vector<float> floats_of(const HostArray& a) {
    const auto d = doubles_of(a);
    return std::vector<float>(d.begin(), d.end());
}

// The same checks cpu::integrate makes, so a matrix that passes here is one
// the kernels can read without going out of bounds.
void check_csr(const Csr& c) {
    bool ok = c.indptr.size() == c.bins + 1 && c.bin_centers.size() == c.bins && c.indices.size() == c.data.size() &&
              c.bins > 0 && c.indptr.front() == 0 && size_t(c.indptr.back()) == c.indices.size() &&
              (c.azimuth_bins == 0 || (c.bins % c.azimuth_bins == 0 && c.azimuth_centers.size() == c.azimuth_bins));
    for (size_t k = 0; ok && k < c.bins; ++k) ok = c.indptr[k] <= c.indptr[k + 1];
    for (size_t e = 0; ok && e < c.indices.size(); ++e) ok = c.indices[e] >= 0 && size_t(c.indices[e]) < c.pixels;
    if (!ok)
        throw InvalidArgument(
            "AzimuthalIntegrator: inconsistent CSR matrix; indptr must hold bins + 1 non-decreasing offsets "
            "from 0 to the entry count, indices must lie in [0, pixels), one centre per bin (and a cake's "
            "azimuth_bins divide bins, with one azimuth centre each)");
}

template <typename T> Array upload(const Context& ctx, const std::vector<T>& v) {
    if (v.empty()) return Array::from(ctx, Shape{1}, std::vector<T>{0});  // never read: a placeholder
    return Array::from(ctx, Shape{v.size()}, v);
}

} // namespace

// Shared with the other azimuthal ops (ops/azimuthal_state.hpp).
namespace detail {

// Frames in `frames` (InvalidArgument unless it holds one frame or a stack
// along its first axis), after checking context and size limits.
size_t frame_count(const detail::AzimuthalState& m, const Array& frames, const char* op) {
    const std::string name = std::string("AzimuthalIntegrator::") + op;
    if (!frames) throw InvalidArgument(name + " of a null Array");
    if (&ops::services(frames) != &ops::services(*m.ctx))
        throw InvalidArgument(name + ": the frames belong to another context than the integrator");
    const Shape& s = frames.shape();
    const size_t n = frames.size() / m.pixels;
    const bool one = frames.size() == m.pixels;
    const bool stack = !one && s.ndim() >= 2 && frames.size() % m.pixels == 0 && s[0] == n;
    if (!one && !stack)
        throw InvalidArgument(name + ": frames of shape " + s.str() + " do not match the detector's " +
                              std::to_string(m.pixels) + " pixels; give one frame of that many elements or "
                              "a stack (n, rows, cols) or (n, pixels)");
    const uint64_t bytes = frames.nbytes();
    const DeviceInfo& info = m.ctx->device();
    // The kernels index with 32 bits and put frames along the grid's y axis.
    if (frames.size() >= (1ull << 32) || uint64_t(n) * m.bins >= (1ull << 32) ||
        bytes > info.max_storage_buffer_range || n > info.max_workgroup_count[1])
        throw Unsupported(name + ": a stack of " + std::to_string(n) + " frames (" + std::to_string(bytes) +
                          " bytes) is more than device '" + info.name + "' takes at once; integrate at most " +
                          std::to_string(std::max<uint64_t>(1, info.max_storage_buffer_range /
                                                                   (m.pixels * dtype_size(frames.dtype())))) +
                          " frames at a time");
    return one ? 1 : n;
}

// Eight float32 result arrays of shape (bins) or (n, bins), bound in the
// kernels' order: intensity, sem, std, signal, variance, norm, norm_sq, count.
AzimuthalResult new_result(const detail::AzimuthalState& m, size_t n) {
    const size_t azim = m.csr->azimuth_bins, rad = azim ? m.bins / azim : m.bins;
    const Shape shape = azim ? (n == 1 ? Shape{azim, rad} : Shape{n, azim, rad})
                             : (n == 1 ? Shape{m.bins} : Shape{n, m.bins});
    auto make = [&] { return Array::empty(*m.ctx, shape, DType::float32); };
    AzimuthalResult r;
    r.intensity = make();
    r.sem = make();
    r.sigma = r.sem;
    r.std = make();
    r.sum_signal = make();
    r.sum_variance = make();
    r.sum_normalization = make();
    r.sum_normalization_sq = make();
    r.count = make();
    r.radial.assign(m.csr->bin_centers.begin(), m.csr->bin_centers.begin() + long(rad));
    r.azimuthal = m.csr->azimuth_centers;
    return r;
}

void bind_outputs(ops::Dispatcher& d, const AzimuthalResult& r) {
    d.write(r.intensity).write(r.sem).write(r.std).write(r.sum_signal).write(r.sum_variance);
    d.write(r.sum_normalization).write(r.sum_normalization_sq).write(r.count);
}

// The reduction kernels need a 1-D workgroup of whole subgroups, at most 64.
void check_local(const detail::AzimuthalState& m, const ops::Dispatcher& d) {
    const uint32_t local = d.local()[0] * d.local()[1] * d.local()[2];
    const uint32_t sg = std::max<uint32_t>(1, m.ctx->device().subgroup_size);
    if (d.local()[1] != 1 || d.local()[2] != 1 || local % sg != 0 || local / sg > 64 ||
        local > m.ctx->device().max_workgroup_invocations)
        throw Unsupported("azimuthal integration: workgroup size " + std::to_string(d.local()[0]) + "x" +
                          std::to_string(d.local()[1]) + "x" + std::to_string(d.local()[2]) +
                          "; the kernels need a 1-D workgroup of a multiple of the subgroup size (" +
                          std::to_string(sg) + ") and at most 64 subgroups");
}

void bind_terms(const AzimuthalState& m, ops::Dispatcher& d, const Array& frames, const AzimuthalResult& r,
                bool dummy) {
    check_local(m, d);
    d.read(m.indptr).read(m.cols).read(m.weights).read(frames).read(m.dark_f).read(m.norm_f).read(m.var_f);
    bind_outputs(d, r);
    d.spec(m.dark ? 1 : 0).spec(m.norm_f.storage() != m.cols.storage() ? 1 : 0);
    d.spec(uint32_t(m.error_model)).spec(m.unit_weights ? 1 : 0).spec(dummy ? 1 : 0);
    d.spec(m.dark_variance ? 1 : 0);
}

uint32_t bins_grid(const AzimuthalState& m) {
    return uint32_t(std::min<size_t>({m.bins, 65535, m.ctx->device().max_workgroup_count[0]}));
}

} // namespace detail

using detail::bind_outputs;
using detail::check_local;
using detail::frame_count;
using detail::new_result;

AzimuthalIntegrator::AzimuthalIntegrator(const Context& ctx, const AzimuthalSetup& s)
    : impl_(std::make_unique<detail::AzimuthalState>()) {
    detail::AzimuthalState& m = *impl_;
    m.ctx = ctx;
    const size_t geometry_pixels = s.geometry.rows * s.geometry.cols;
    m.pixels = s.csr && geometry_pixels == 0 ? s.csr->pixels : geometry_pixels;
    if (m.pixels == 0)
        throw InvalidArgument("AzimuthalIntegrator: the geometry has no pixels; set rows and cols (or give a csr)");

    if (s.mask) {
        check_pixels(s.mask->size(), m.pixels, "mask");
        const auto d = doubles_of(*s.mask);
        m.mask.resize(d.size());
        for (size_t i = 0; i < d.size(); ++i) m.mask[i] = d[i] != 0;
        m.has_mask = true;
    }
    if (s.radial_sum && (s.azimuth_bins == 0 || s.csr))
        throw InvalidArgument("AzimuthalIntegrator: radial_sum merges the radial bins of a cake the integrator "
                              "builds; set azimuth_bins > 0 and give no csr");
    m.csr = s.csr ? s.csr
                  : cached_csr(s.geometry,
                               CsrSpec{s.unit, s.bins, s.range, s.azimuth_bins, s.azimuth_range, s.split,
                                       s.renormalize},
                               m.has_mask ? &m.mask : nullptr, s.csr_cache_dir);
    if (s.radial_sum) m.csr = std::make_shared<const Csr>(merge_radial(*m.csr));
    if (m.csr->pixels != m.pixels)
        throw InvalidArgument("AzimuthalIntegrator: the matrix has " + std::to_string(m.csr->pixels) +
                              " pixel columns; the geometry has " + std::to_string(m.pixels) + " pixels");
    check_csr(*m.csr);
    if (m.csr->nnz() >= (1ull << 31) || m.pixels >= (1ull << 31))
        throw Unsupported("AzimuthalIntegrator: matrices of 2^31 entries or pixels or more are not supported");
    m.bins = m.csr->bins;

    if (s.solid_angle || s.polarization_factor) {
        validate_geometry(s.geometry, false);  // with a given matrix the geometry may be unset
        if (geometry_pixels != m.pixels)
            throw InvalidArgument("AzimuthalIntegrator: solid angle and polarization come from the geometry, whose " +
                                  std::to_string(geometry_pixels) + " pixels differ from the matrix's " +
                                  std::to_string(m.pixels));
    }
    if (s.solid_angle) m.solid = solid_angle(s.geometry);
    if (s.polarization_factor) {
        if (!(std::abs(*s.polarization_factor) <= 1))
            throw InvalidArgument("AzimuthalIntegrator: polarization factor " +
                                  std::to_string(*s.polarization_factor) + "; it must lie in [-1, 1]");
        m.polar = polarization(s.geometry, *s.polarization_factor, s.polarization_axis_offset);
    }
    if (s.dark) check_pixels(s.dark->size(), m.pixels, "dark");
    if (s.flat) check_pixels(s.flat->size(), m.pixels, "flat");
    m.dark = s.dark;
    m.flat = s.flat;
    m.error_model = s.error_model;
    m.dark_variance = s.dark_variance;
    if (s.error_model == EM::variance) {
        if (!s.variance)
            throw InvalidArgument("AzimuthalIntegrator: error model 'variance' needs a variance array; "
                                  "give one or use the poisson or none model");
        check_pixels(s.variance->size(), m.pixels, "variance");
        m.variance = s.variance;
    }
    if (s.dummy) {
        if (!std::isfinite(*s.dummy) || !(s.delta_dummy >= 0) || !std::isfinite(s.delta_dummy))
            throw InvalidArgument("AzimuthalIntegrator: dummy " + std::to_string(*s.dummy) + " and delta_dummy " +
                                  std::to_string(s.delta_dummy) + "; both must be finite, delta_dummy >= 0");
        m.dummy = s.dummy;
        m.delta_dummy = s.delta_dummy;
    }
    m.empty = s.empty;
    m.kernels = s.kernels;
    m.geometry = s.geometry;

    const bool has_f64 = ops::services(ctx).enabled().float64;
    if (s.accumulation == Accumulation::float64 && !has_f64)
        throw Unsupported("AzimuthalIntegrator: float64 accumulation needs shaderFloat64, which device '" +
                          ctx.device().name + "' lacks; use Accumulation::compensated or automatic");
    m.f64 = s.accumulation == Accumulation::float64 || (s.accumulation == Accumulation::automatic && has_f64);

    // Mask, flat, solid angle and polarization fold into one normalization
    // per pixel; 0 excludes a pixel exactly as a mask does.
    std::vector<float> norm;
    if (m.has_mask || s.flat || !m.solid.empty() || !m.polar.empty()) {
        const auto flat = s.flat ? doubles_of(*s.flat) : std::vector<double>();
        norm.resize(m.pixels);
        for (size_t i = 0; i < m.pixels; ++i) {
            double n = 1.0;
            if (!flat.empty()) n *= flat[i];
            if (!m.solid.empty()) n *= m.solid[i];
            if (!m.polar.empty()) n *= m.polar[i];
            const float f = float(n);
            norm[i] = (m.has_mask && m.mask[i]) || !std::isfinite(f) ? 0.0f : f;
        }
    }
    const Csr& c = *m.csr;
    m.unit_weights = std::all_of(c.data.begin(), c.data.end(), [](float w) { return w == 1.0f; });
    m.indptr = upload(ctx, c.indptr);
    m.cols = upload(ctx, c.indices);
    m.weights = m.unit_weights ? m.cols : upload(ctx, c.data);
    m.dark_f = s.dark ? upload(ctx, floats_of(*s.dark)) : m.cols;
    m.norm_f = norm.empty() ? m.cols : upload(ctx, norm);
    m.var_f = m.variance ? upload(ctx, floats_of(*m.variance)) : m.cols;

    // Rows longer than a segment: every row cut into equal segments of at most that length.
    const size_t segment = s.segment_entries ? s.segment_entries : default_segment_entries;
    size_t longest = 0;
    for (size_t k = 0; k < m.bins; ++k) longest = std::max<size_t>(longest, size_t(c.indptr[k + 1] - c.indptr[k]));
    if (longest > segment) {
        // An empty row gets one empty segment, which writes its `empty` results.
        std::vector<int32_t> starts, first(m.bins + 1), owner;
        for (size_t k = 0; k < m.bins; ++k) {
            const int64_t len = c.indptr[k + 1] - c.indptr[k];
            const int64_t parts = std::max<int64_t>(1, (len + int64_t(segment) - 1) / int64_t(segment));
            first[k] = int32_t(starts.size());
            for (int64_t j = 0; j < parts; ++j) {
                starts.push_back(int32_t(c.indptr[k] + len * j / parts));
                owner.push_back(int32_t(k));
            }
        }
        first[m.bins] = int32_t(starts.size());
        m.segments = starts.size();
        starts.push_back(c.indptr[m.bins]);
        m.segment_start = upload(ctx, starts);
        m.bin_segment = upload(ctx, first);
        m.segment_bin = upload(ctx, owner);
        m.counter_frames = initial_counter_frames;
        m.counters = Array::zeros(ctx, Shape{m.bins * m.counter_frames}, DType::uint32);
    }
}

AzimuthalIntegrator::~AzimuthalIntegrator() = default;
AzimuthalIntegrator::AzimuthalIntegrator(AzimuthalIntegrator&&) noexcept = default;
AzimuthalIntegrator& AzimuthalIntegrator::operator=(AzimuthalIntegrator&&) noexcept = default;

Array AzimuthalIntegrator::preprocess(const Array& frames) const {
    const detail::AzimuthalState& m = *impl_;
    const size_t n = frame_count(m, frames, "preprocess");
    const uint64_t total = uint64_t(n) * m.pixels;
    if (total * 16 > m.ctx->device().max_storage_buffer_range)
        throw Unsupported("preprocess: " + std::to_string(n) + " frames of " + std::to_string(m.pixels) +
                          " pixels make " + std::to_string(total * 16) + " bytes of float4 terms, more than device '" +
                          m.ctx->device().name + "' binds at once; pre-process fewer frames at a time or use "
                          "the fused kernels");
    Array out = Array::empty(*m.ctx, Shape{size_t(total), 4}, DType::float32);
    PreprocessPush pc{uint32_t(m.pixels), uint32_t(total)};
    std::optional<std::array<uint32_t, 4>> dummy;
    if (m.dummy) dummy = dummy_bounds(frames.dtype(), *m.dummy, m.delta_dummy);
    if (dummy) std::memcpy(pc.dummy, dummy->data(), 16);
    ops::Dispatcher d(ops::services(*m.ctx), ops::variant(ops::Shader::azim_preprocess, frames.dtype()), pixel_local);
    d.read(frames).read(m.dark_f).read(m.norm_f).read(m.var_f).write(out);
    d.spec(m.dark ? 1 : 0).spec(m.norm_f.storage() != m.cols.storage() ? 1 : 0);
    d.spec(uint32_t(m.error_model)).spec(dummy ? 1 : 0).spec(m.dark_variance ? 1 : 0);
    d.push(pc).stride_grid(total).record();
    return out;
}

AzimuthalResult AzimuthalIntegrator::integrate(const Array& frames) const {
    detail::AzimuthalState& m = *impl_;
    const size_t n = frame_count(m, frames, "integrate");
    const bool separate = m.kernels == AzimuthalKernels::separate;
    const Array input = separate ? preprocess(frames) : frames;
    const DType t = separate ? DType::float32 : frames.dtype();
    AzimuthalResult r = new_result(m, n);

    IntegratePush pc{uint32_t(m.pixels), uint32_t(m.bins), uint32_t(m.bins)};
    pc.empty = float(m.empty);
    std::optional<std::array<uint32_t, 4>> dummy;
    if (m.dummy && !separate) dummy = dummy_bounds(t, *m.dummy, m.delta_dummy);
    if (dummy) std::memcpy(pc.dummy, dummy->data(), 16);

    const ops::KernelId kernel = ops::variant(ops::Shader::azim_integrate, t, m.f64 ? DType::float64 : DType::float32);
    const auto& limit = m.ctx->device().max_workgroup_count;
    ops::Dispatcher d(ops::services(*m.ctx), kernel, row_local);
    check_local(m, d);
    d.spec(separate ? 1 : 0).spec(m.dark ? 1 : 0).spec(m.norm_f.storage() != m.cols.storage() ? 1 : 0);
    d.spec(uint32_t(m.error_model)).spec(m.unit_weights ? 1 : 0).spec(dummy ? 1 : 0).spec(m.segments ? 1 : 0);
    // Rows shorter than a subgroup's loads per pass (a cake's bins) each go to
    // a cluster of lanes of a subgroup, the fewest power of 2 whose 4 loads a
    // lane cover the mean row, rather than to a workgroup each.
    const uint32_t subgroup = std::max<uint32_t>(1, m.ctx->device().subgroup_size);
    const size_t mean_row = (m.csr->nnz() + m.bins - 1) / m.bins;
    const bool subgroup_rows = !m.segments && mean_row < size_t(subgroup_rows_below) * subgroup;
    uint32_t lanes = 1;
    while (lanes < subgroup && size_t(lanes) * subgroup_rows_below < mean_row) lanes *= 2;
    d.spec(m.dark_variance ? 1 : 0).spec(subgroup_rows ? 1 : 0).spec(lanes);
    if (!m.segments) {
        d.read(m.indptr).read(m.cols).read(m.weights).read(input).read(m.dark_f).read(m.norm_f).read(m.var_f);
        bind_outputs(d, r);
        for (int k = 0; k < 4; ++k) d.read(m.cols);  // bindings 15-18 serve segments only
        const size_t rows_per_group = subgroup_rows ? std::max<size_t>(1, row_local[0] / lanes) : 1;
        const size_t groups = (m.bins + rows_per_group - 1) / rows_per_group;
        d.push(pc).groups(uint32_t(std::min<size_t>({groups, 65535, limit[0]})), uint32_t(n)).record();
        return r;
    }
    // Partial sums per (segment, frame), 8 bytes each (a double or a
    // compensated float pair), merged per bin by its last segment.
    const uint64_t part_bytes = uint64_t(n) * m.segments * 5 * 8;
    if (part_bytes > m.ctx->device().max_storage_buffer_range || uint64_t(n) * m.segments * 5 >= (1ull << 32))
        throw Unsupported("AzimuthalIntegrator::integrate: the partial sums of " + std::to_string(n) +
                          " frames take " + std::to_string(part_bytes) + " bytes, more than device '" +
                          m.ctx->device().name + "' binds at once; integrate at most " +
                          std::to_string(std::max<uint64_t>(1, m.ctx->device().max_storage_buffer_range /
                                                                   (m.segments * 5 * 8))) +
                          " frames at a time or give a larger segment_entries");
    const Array part = Array::empty(*m.ctx, Shape{size_t(part_bytes / 4)}, DType::float32);
    if (n > m.counter_frames) {
        m.counter_frames = n;
        m.counters = Array::zeros(*m.ctx, Shape{m.bins * n}, DType::uint32);
    }
    pc.rows = uint32_t(m.segments);
    d.read(m.segment_start).read(m.cols).read(m.weights).read(input).read(m.dark_f).read(m.norm_f).read(m.var_f);
    bind_outputs(d, r);
    d.read_write(part).read_write(m.counters).read(m.segment_bin).read(m.bin_segment);
    d.push(pc).groups(uint32_t(std::min<size_t>({m.segments, 65535, limit[0]})), uint32_t(n)).record();
    return r;
}

AzimuthalResult AzimuthalIntegrator::sigma_clip(const Array& frames, double kappa, int max_iter,
                                                ClipThreshold threshold) const {
    const detail::AzimuthalState& m = *impl_;
    if (m.error_model == EM::none)
        throw InvalidArgument("sigma_clip: the 'none' error model gives no standard deviation to clip with; "
                              "use poisson, variance or azimuthal");
    const bool fixed = threshold == ClipThreshold::fixed;
    if (!std::isfinite(kappa) || kappa < 0 || (fixed && kappa == 0) || max_iter < 0 || max_iter > max_clip_iterations)
        throw InvalidArgument("sigma_clip: kappa must be finite and >= 0 (> 0 with a fixed threshold) and max_iter "
                              "in [0, " + std::to_string(max_clip_iterations) + "] (got kappa " +
                              std::to_string(kappa) + ", max_iter " + std::to_string(max_iter) + ")");
    const size_t n = frame_count(m, frames, "sigma_clip");
    AzimuthalResult r = new_result(m, n);
    ClipPush pc{uint32_t(m.pixels), uint32_t(m.bins), uint32_t(max_iter)};
    std::memcpy(pc.kappa64, &kappa, 8);
    pc.kappa32 = float(kappa);
    pc.empty = float(m.empty);
    std::optional<std::array<uint32_t, 4>> dummy;
    if (m.dummy) dummy = dummy_bounds(frames.dtype(), *m.dummy, m.delta_dummy);
    if (dummy) std::memcpy(pc.dummy, dummy->data(), 16);

    const ops::KernelId kernel =
        ops::variant(ops::Shader::azim_clip, frames.dtype(), m.f64 ? DType::float64 : DType::float32);
    ops::Dispatcher d(ops::services(*m.ctx), kernel, row_local);
    detail::bind_terms(m, d, frames, r, dummy.has_value());
    d.spec(fixed ? 0 : 1);
    d.push(pc).groups(detail::bins_grid(m), uint32_t(n)).record();
    return r;
}

const Csr& AzimuthalIntegrator::csr() const { return *impl_->csr; }
const Context& AzimuthalIntegrator::context() const { return *impl_->ctx; }
std::shared_ptr<const Csr> AzimuthalIntegrator::shared_csr() const { return impl_->csr; }
size_t AzimuthalIntegrator::bins() const { return impl_->bins; }
size_t AzimuthalIntegrator::pixels() const { return impl_->pixels; }
bool AzimuthalIntegrator::float64() const { return impl_->f64; }

IntegrateParams AzimuthalIntegrator::cpu_params() const {
    const detail::AzimuthalState& m = *impl_;
    IntegrateParams p;
    p.dark = m.dark ? &*m.dark : nullptr;
    p.flat = m.flat ? &*m.flat : nullptr;
    p.solid_angle = m.solid.empty() ? nullptr : &m.solid;
    p.polarization = m.polar.empty() ? nullptr : &m.polar;
    p.mask = m.has_mask ? &m.mask : nullptr;
    p.dummy = m.dummy;
    p.delta_dummy = m.delta_dummy;
    p.error_model = m.error_model;
    p.dark_variance = m.dark_variance;
    p.variance = m.variance ? &*m.variance : nullptr;
    p.empty = m.empty;
    return p;
}

} // namespace kiln
