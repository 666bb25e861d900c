// scipy.ndimage.fourier_gaussian (shaders/fourier_gaussian.comp): a
// spectrum times the Gaussian's transform, exp(-2 pi^2 sigma^2 (k/N)^2) per
// axis, from per-axis factor tables computed here in double.
#include <cmath>
#include <numbers>

#include "kiln/error.hpp"
#include "kiln/fft.hpp"
#include "ops/convolve_pass.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

struct GaussPush {
    uint32_t ext[3];  // x, y, z
    uint32_t complex_values;
};

// One axis' factors: SciPy's frequencies k are 0, 1, ..., then negative
// from (N + 1) / 2 on (numpy.fft.fftfreq's order times N); along a real
// FFT's axis (n > 0) k is the index itself and N is n.
std::vector<double> axis_factors(size_t extent, double sigma, int64_t n) {
    const bool half = n > 0;
    const double len = half ? double(n) : double(extent);
    const double c = -2.0 * std::numbers::pi * std::numbers::pi * sigma * sigma / (len * len);
    std::vector<double> f(extent);
    for (size_t i = 0; i < extent; ++i) {
        const double k = (half || i < (extent + 1) / 2) ? double(i) : double(i) - double(extent);
        f[i] = std::exp(c * k * k);
    }
    return f;
}

} // namespace

Array fourier_gaussian(const Array& input, const std::vector<double>& sigma, int64_t n) {
    if (!input.valid()) throw InvalidArgument("fourier_gaussian: the array is null");
    const DType t = input.dtype();
    if (!dtype_is_float(t) && !dtype_is_complex(t))
        throw InvalidArgument("fourier_gaussian takes complex64, complex128, float32 or float64 arrays, not " +
                              std::string(dtype_name(t)));
    const size_t nd = input.ndim();
    if (nd == 0) throw InvalidArgument("fourier_gaussian takes arrays of at least one dimension");
    if (sigma.size() != 1 && sigma.size() != nd)
        throw InvalidArgument("fourier_gaussian: " + std::to_string(sigma.size()) + " sigmas for a " +
                              std::to_string(nd) + "-D array; give one, or one per axis");
    for (double s : sigma)
        if (!std::isfinite(s)) throw InvalidArgument("fourier_gaussian: sigma must be finite");
    const size_t last = input.shape()[nd - 1];
    // (z, y, x): the last axis, the one before, every leading axis folded
    // into z (its table the product of theirs).
    std::vector<std::vector<double>> f(nd);
    for (size_t a = 0; a < nd; ++a)
        f[a] = axis_factors(input.shape()[a], sigma.size() == 1 ? sigma[0] : sigma[a], a == nd - 1 ? n : -1);
    std::vector<double> table = f[nd - 1];
    if (nd >= 2) table.insert(table.end(), f[nd - 2].begin(), f[nd - 2].end());
    else table.push_back(1.0);
    std::vector<double> folded{1.0};
    for (size_t a = 0; a + 2 < nd; ++a) {
        std::vector<double> next;
        next.reserve(folded.size() * f[a].size());
        for (double u : folded)
            for (double v : f[a]) next.push_back(u * v);
        folded = std::move(next);
    }
    table.insert(table.end(), folded.begin(), folded.end());

    const DType real_t = dtype_real_part(t);
    GaussPush p{};
    p.ext[0] = uint32_t(last);
    p.ext[1] = uint32_t(nd >= 2 ? input.shape()[nd - 2] : 1);
    p.ext[2] = uint32_t(folded.size());
    p.complex_values = dtype_is_complex(t) ? 1u : 0u;
    if (input.size() > UINT32_MAX / 2)
        throw Unsupported("fourier_gaussian: arrays past 2^31 elements are not supported");
    const Array factors = ops::conv::upload_weights(input.context(), table, real_t);
    Array out = Array::empty(input.context(), input.shape(), t);
    detail::OpServices& ctx = ops::services(input);
    ops::Dispatcher d(ctx, ops::variant(ops::Shader::fourier_gaussian, real_t), {256, 1, 1});
    d.read(input).write(out).read(factors).push(p).stride_grid(input.size()).record();
    return out;
}

} // namespace kiln
