// scipy.signal.fftconvolve through one real-FFT plan of the padded shape:
// in2's spectrum kept, in1 transformed in the work buffer, multiplied,
// transformed back, and the mode's window copied out.
#include <string>

#include "kiln/error.hpp"
#include "kiln/fft.hpp"
#include "ops/fft_copy.hpp"
#include "ops/fft_plan.hpp"
#include "ops/kernel.hpp"

namespace kiln {

uint64_t fft_fast_length(uint64_t n) {
    if (n <= 1) return 1;
    for (uint64_t m = n + (n & 1);; m += 2) {
        uint64_t r = m;
        for (uint64_t p : {2, 3, 5, 7})
            while (r % p == 0) r /= p;
        if (r == 1) return m;
    }
}

namespace {

void multiply(const Array& a, const Array& b, uint64_t n) {
    struct Push {
        uint32_t n;
    } p{static_cast<uint32_t>(n)};
    ops::Dispatcher d(ops::services(a), ops::variant(ops::Shader::complex_multiply, dtype_real_part(a.dtype())),
                      {256, 1, 1});
    d.read_write(a).read(b).push(p).stride_grid(n).record();
}

} // namespace

Array fftconvolve(const Array& in1, const Array& in2, std::string_view mode) {
    if (!in1.valid() || !in2.valid()) throw InvalidArgument("fftconvolve: an input array is null");
    ops::check_same_context(in1, in2, "fftconvolve");
    const DType t = in1.dtype();
    if (!dtype_is_float(t) || in2.dtype() != t)
        throw InvalidArgument("fftconvolve takes two float32 (or two float64) arrays, not " +
                              std::string(dtype_name(t)) + " and " + std::string(dtype_name(in2.dtype())));
    const size_t nd = in1.ndim();
    if (in2.ndim() != nd)
        throw InvalidArgument("fftconvolve: in1 is " + std::to_string(nd) + "-D and in2 " +
                              std::to_string(in2.ndim()) + "-D; give arrays of the same number of dimensions");
    if (mode != "full" && mode != "same" && mode != "valid")
        throw InvalidArgument("fftconvolve: unknown mode '" + std::string(mode) + "'; accepted: full, same, valid");

    ops::FftGeometry g;
    g.dims = uint32_t(nd);
    g.real = true;
    g.f64 = t == DType::float64;
    std::vector<size_t> out(nd);
    ops::FftBox reals, spectrum, window;
    std::array<uint64_t, 3> origin{0, 0, 0};
    for (size_t i = 0; i < nd; ++i) {
        const uint64_t n1 = in1.shape()[i], n2 = in2.shape()[i], full = n1 + n2 - 1;
        if (mode == "valid" && n1 < n2)
            throw InvalidArgument("fftconvolve: mode 'valid' needs in1 at least as large as in2 on every axis; "
                                  "shapes " + in1.shape().str() + " and " + in2.shape().str());
        g.sizes[nd - 1 - i] = fft_fast_length(full);
        out[i] = mode == "full" ? full : mode == "same" ? n1 : n1 - n2 + 1;
        origin[3 - nd + i] = (full - out[i]) / 2;  // scipy's _centered
        reals.extent[3 - nd + i] = g.sizes[nd - 1 - i];
    }
    const uint64_t row = g.complex_row();
    reals.pitch = 2 * row;
    spectrum = reals;
    spectrum.pitch = 0;
    spectrum.extent[2] = row;
    spectrum.complex = true;
    double count = 1;
    for (uint32_t i = 0; i < g.dims; ++i) count *= double(g.sizes[i]);

    const Context ctx = in1.context();
    detail::OpServices& services = ops::services(in1);
    auto lock = services.lock();
    std::shared_ptr<ops::FftPlan> plan = ops::fft_plan(ctx, g);
    const Array work = plan->work(ctx);
    Array kept = Array::empty(ctx, Shape({size_t(g.complex_count())}), work.dtype());
    ops::complex_copy(in2, ops::box_of(in2), work, reals, 1.0);
    plan->record(services, false);
    ops::complex_copy(work, spectrum, kept, spectrum, 1.0);
    ops::complex_copy(in1, ops::box_of(in1), work, reals, 1.0);
    plan->record(services, false);
    multiply(work, kept, g.complex_count());
    plan->record(services, true);
    Array result = Array::empty(ctx, Shape::of(nd, out.data()), t);
    ops::complex_copy(work, reals, result, ops::box_of(result), 1.0 / count, origin);
    return result;
}

} // namespace kiln
