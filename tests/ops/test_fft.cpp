// The FFTs (VkFFT through ops/fft_plan) against numpy.fft and
// scipy.signal.fftconvolve (fixtures of tests/data/make_fft.py): prime
// (Bluestein), odd and power-of-two lengths, 1-, 2- and 3-D, the norms,
// padding and cropping; complex arrays' parts and their refusal elsewhere.
#include <cmath>
#include <complex>
#include <set>
#include <string>
#include <vector>

#include "kiln/convolve.hpp"
#include "kiln/fft.hpp"
#include "kiln/filters.hpp"
#include "kiln/io.hpp"
#include "kiln/reference/convolve.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

HostArray fixture(const std::string& name) { return test::npy_fixture("fft/" + name + ".npy"); }

std::vector<std::complex<double>> values(const HostArray& h) {
    std::vector<std::complex<double>> v(h.size());
    for (size_t i = 0; i < h.size(); ++i) {
        if (h.dtype == DType::complex64) {
            auto c = h.as<std::complex<float>>()[i];
            v[i] = {c.real(), c.imag()};
        } else if (h.dtype == DType::complex128) {
            v[i] = h.as<std::complex<double>>()[i];
        } else {
            v[i] = h.at(i);
        }
    }
    return v;
}

// float32 FFTs: each output is a sum of N products whose rounding grows as
// sqrt(log2 N) per butterfly stage; relative to the largest magnitude of
// the result, within 1e-6 * sqrt(log2 N) times a margin of 4 for
// Bluestein's extra transforms (VkFFT's sincos in float). The fixtures are
// stored in single precision (relative error 6e-8, inside that).
double max_error(const Array& got, const HostArray& want, double* scale = nullptr) {
    REQUIRE(got.shape() == want.shape);
    auto g = values(got.to_host()), w = values(want);
    double m = 0, e = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        m = std::max(m, std::abs(w[i]));
        e = std::max(e, std::abs(g[i] - w[i]));
    }
    if (scale) *scale = m;
    return m > 0 ? e / m : e;
}

void require_close(const Array& got, const std::string& name, double n) {
    INFO(name);
    const double err = max_error(got, fixture(name));
    const double tol = 4e-6 * std::sqrt(std::max(1.0, std::log2(n)));
    INFO("relative max error " << err << ", tolerance " << tol);
    CHECK(err <= tol);
}

double count(const Shape& s) { return double(s.size()); }

void require_transforms(const Context& ctx, const std::string& name, bool odd_irfft) {
    const Array c = Array::from_host(ctx, fixture(name + "_c"));
    const Array r = Array::from_host(ctx, fixture(name + "_r"));
    const double n = count(c.shape());
    require_close(fftn(c), name + "_fftn", n);
    require_close(ifftn(c), name + "_ifftn", n);
    require_close(rfftn(r), name + "_rfftn", n);
    require_close(fftn(r), name + "_fftn_r", n);
    require_close(fft(c), name + "_fft", n);
    require_close(rfft(r), name + "_rfft", n);
    require_close(fftn(c, {}, FftNorm::ortho), name + "_fftn_ortho", n);
    require_close(ifftn(c, {}, FftNorm::forward), name + "_ifftn_forward", n);
    std::vector<int64_t> s;
    for (size_t i = 0; i < r.ndim(); ++i) s.push_back(int64_t(r.shape()[i]));
    require_close(irfftn(rfftn(r), s), name + "_irfftn_of_rfftn", n);
    if (odd_irfft) require_close(irfft(c, 2 * int64_t(c.shape()[c.ndim() - 1]) - 1), name + "_irfft_odd", n);
}

} // namespace

TEST_CASE("fft: transforms match numpy.fft on lengths of primes up to 13, 1- to 3-D", "[fft]") {
    Context ctx = test::context();
    for (std::string name : {"p13", "c64", "b5x12", "v5x6x7"})
        // The odd irfft's length is 2n - 1: 127 for c64, 23 for b5x12 (Bluestein).
        require_transforms(ctx, name, true);
}

TEST_CASE("fft: Bluestein lengths (127, 13x17, irfft to 127) match numpy.fft", "[fft]") {
    Context ctx = test::context();
    for (std::string name : {"p127", "m13x17"}) require_transforms(ctx, name, true);
    require_close(irfft(Array::from_host(ctx, fixture("c64_c")), 127), "c64_irfft_odd", 127);
}

TEST_CASE("fft: n and s pad with zeros or crop", "[fft]") {
    Context ctx = test::context();
    const Array x = Array::from_host(ctx, fixture("pad_c"));  // 13 x 17, cropped or padded to radix lengths
    require_close(fft(x, 20), "pad_fft_n20", 20);
    require_close(fft(x, 9), "pad_fft_n9", 9);
    require_close(fft2(x, {16, 11}), "pad_fft2_s", 16 * 11);
    require_close(rfft2(real(x), {10, 21}), "pad_rfft2_s", 10 * 21);
}

TEST_CASE("fft: the same plan twice in one submission, and its inputs refused", "[fft]") {
    Context ctx = test::context();
    const Array c = Array::from_host(ctx, fixture("b5x12_c"));
    const Array a = fft2(c), b = fft2(ifft2(c));  // one plan, recorded three times before any sync
    require_close(a, "b5x12_fftn", count(c.shape()));
    CHECK(max_error(b, fixture("b5x12_c")) < 4e-6 * std::log2(60.0));
    CHECK_THROWS_AS(rfft(c), InvalidArgument);
    CHECK_THROWS_AS(fft(Array::zeros(ctx, Shape{8}, DType::int32)), InvalidArgument);
    CHECK_THROWS_AS(fft2(Array::zeros(ctx, Shape{8})), InvalidArgument);
    CHECK_THROWS_AS(parse_fft_norm("none"), InvalidArgument);
}

TEST_CASE("complex arrays: parts, files, and ops that refuse them", "[fft]") {
    Context ctx = test::context();
    const HostArray h = fixture("m13x17_c");
    const Array c = Array::from_host(ctx, h);
    REQUIRE(c.dtype() == DType::complex64);
    REQUIRE(parse_dtype("complex128") == DType::complex128);
    const auto v = h.as<std::complex<float>>();
    const auto re = real(c).to_vector<float>(), im = imag(c).to_vector<float>(), m = abs(c).to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) {
        REQUIRE(re[i] == v[i].real());
        REQUIRE(im[i] == v[i].imag());
        // sqrt of a sum of squares: within 2 roundings of float32.
        REQUIRE(std::abs(m[i] - std::abs(v[i])) <= 2.4e-7f * std::abs(v[i]));
    }
    const HostArray back = io::parse_npy(io::encode_npy(c.to_host()), "round trip");
    CHECK(back.dtype == DType::complex64);
    CHECK(back.bytes == h.bytes);
    CHECK_THROWS_AS(gaussian_filter(c, {2.0, 2.0, 2.0}), Unsupported);
}

TEST_CASE("fftconvolve: scipy.signal.fftconvolve's full, same and valid, 1- to 3-D", "[fft]") {
    Context ctx = test::context();
    for (std::string name : {"cv1", "cv2", "cv3"}) {
        const Array a = Array::from_host(ctx, fixture(name + "_a"));
        const Array b = Array::from_host(ctx, fixture(name + "_b"));
        for (std::string mode : {"full", "same", "valid"}) {
            INFO(name << " " << mode);
            // Forward, product, inverse: three float32 transforms' roundings
            // relative to the largest output (sums of products of N(0,1)).
            double scale = 0;
            const double err = max_error(fftconvolve(a, b, mode), fixture(name + "_" + mode), &scale);
            INFO("relative max error " << err);
            CHECK(err <= 1e-5);
        }
    }
    CHECK(fft_fast_length(127) == 128);
    CHECK(fft_fast_length(121) == 126);
    CHECK_THROWS_AS(fftconvolve(Array::zeros(ctx, Shape{3}), Array::zeros(ctx, Shape{5}), "valid"), InvalidArgument);
}

TEST_CASE("fourier_gaussian: scipy.ndimage.fourier_gaussian on full and half spectra, 1- to 3-D", "[fft]") {
    Context ctx = test::context();
    struct Case {
        const char* name;
        std::vector<double> sigma;
        int64_t n;
    };
    for (const Case& c : {Case{"fg2", {1.5, 2.5}, -1}, Case{"fg1", {3.0}, -1}, Case{"fg3", {0.7, 1.2, 2.0}, -1},
                          Case{"fgr17", {2.0, 1.0}, 17}, Case{"fgr16", {1.0}, 16}, Case{"fgf", {1.3}, -1}}) {
        INFO(c.name);
        const std::string in = std::string(c.name) == "fgf" ? "_r" : "_c";
        const Array x = Array::from_host(ctx, fixture(c.name + in));
        const Array y = fourier_gaussian(x, c.sigma, c.n);
        REQUIRE(y.dtype() == x.dtype());
        // Three table factors rounded to float32, two products of them, the
        // product with the input, the fixture's rounding: 7 half-ulps
        // (4.2e-7) relative to each element, so to the largest.
        const double err = max_error(y, fixture(std::string(c.name) + "_out"));
        INFO("relative max error " << err);
        CHECK(err <= 4.2e-7);
    }
    const Array x = Array::from_host(ctx, fixture("fg3_c"));
    CHECK_THROWS_AS(fourier_gaussian(x, {1.0, 2.0}), InvalidArgument);
    CHECK_THROWS_AS(fourier_gaussian(Array::zeros(ctx, Shape{4}, DType::int32), {1.0}), InvalidArgument);
}

namespace {
// The kernels (and VkFFT nodes) the profile saw since the last call.
std::set<std::string> kernels_run(Context& ctx) {
    ctx.sync();
    const auto stats = ctx.profile().stats();
    ctx.profile().clear();
    std::set<std::string> names;
    for (const auto& st : stats) names.insert(st.name);
    return names;
}
} // namespace

TEST_CASE("convolve2d: large kernels with zero fill take the FFT path, with convolve2d's results", "[fft]") {
    Context ctx = test::context();
    const HostArray hi = test::random(Shape{41, 53}, DType::float32, 81, -1, 1);
    const HostArray hk = test::random(Shape{29, 31}, DType::float32, 82, -1, 1);  // 899 taps, not rank one
    const Array image = Array::from_host(ctx, hi), kernel = Array::from_host(ctx, hk);
    for (ConvMode mode : {ConvMode::full, ConvMode::same, ConvMode::valid}) {
        INFO("mode " << int(mode));
        const HostArray want = cpu::convolve2d(hi, hk, mode, Boundary::fill, 0);
        double m = 0;
        for (size_t i = 0; i < want.size(); ++i) m = std::max(m, std::abs(want.at(i)));
        ctx.profile().clear();
        // As fftconvolve's test: three float32 transforms' roundings relative
        // to the largest output.
        test::require_close(convolve2d(image, kernel, mode).to_host(), want, 0, 1e-5 * m);
        test::require_close(convolve2d(image, hk, mode).to_host(), want, 0, 1e-5 * m);
        const auto names = kernels_run(ctx);
        CHECK(names.count("vkfft_forward") == 1);
        CHECK(names.count("conv_2d_float32") == 0);
    }
    // Another fill value keeps the direct sum.
    (void)convolve2d(image, kernel, ConvMode::same, Boundary::fill, 1.5);
    const auto names = kernels_run(ctx);
    CHECK(names.count("conv_2d_float32") == 1);
    CHECK(names.count("vkfft_forward") == 0);
    // Just under the crossover (29^2 = 841 taps): the direct sum.
    const HostArray under = test::random(Shape{27, 31}, DType::float32, 83, -1, 1);  // 837 taps
    const HostArray want = cpu::convolve2d(hi, under, ConvMode::same, Boundary::fill, 0);
    test::require_close(convolve2d(image, Array::from_host(ctx, under), ConvMode::same).to_host(), want, 1e-5, 1e-5);
    const auto under_names = kernels_run(ctx);
    CHECK(under_names.count("conv_2d_float32") == 1);
    CHECK(under_names.count("vkfft_forward") == 0);
}
