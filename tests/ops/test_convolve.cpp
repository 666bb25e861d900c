// GPU convolutions against SciPy's and NumPy's results (fixtures of
// tests/data/make_conv.py) and the CPU reference (engine/cpu/convolve), odd
// shapes, fixed seeds, every kernel path (separable, tiled, direct, split).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "conv_fixture.hpp"
#include "kiln/convolve.hpp"
#include "kiln/reference/convolve.hpp"
#include "support.hpp"

using namespace kiln;

namespace fx = kiln::test::fixture;

namespace {


HostArray expected(const fx::Array& a) {
    return to_host(a, parse_dtype(a.dtype));
}

HostArray host_as(const HostArray& h, DType t) {
    fx::Array a{"", {}, {}};
    for (size_t i = 0; i < h.shape.ndim(); ++i) a.shape.push_back(h.shape[i]);
    for (size_t i = 0; i < h.size(); ++i) a.values.push_back(h.at(i));
    return to_host(a, t);
}


double sum_abs(const HostArray& a) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += std::abs(a.at(i));
    return s;
}

// GPU sums run in the result dtype, the reference's in double: allow a few
// roundings of the largest possible sum, sum |k| * max |x|.
void require_conv_close(const HostArray& got, const HostArray& want, double scale) {
    const bool f64 = want.dtype == DType::float64;
    const double eps = f64 ? 2.2e-16 : 1.2e-7;
    test::require_close(got, want, f64 ? 1e-12 : 1e-5, 16 * eps * scale);
}

// Frees a few poisoned arrays of `bytes` so the next result likely lands in
// memory full of 0xCD, where elements a kernel fails to write would show.
void poison_memory(Context& ctx, size_t bytes) {
    for (int i = 0; i < 3; ++i) test::poisoned(ctx, Shape{(bytes + 3) / 4}, DType::float32);
    ctx.sync();
}

// The lesson's 15 x 15 Gaussian: exp(-(x^2 + y^2) / 2) over linspace(-2, 2, 15).
HostArray lesson_gaussian(DType t) {
    std::vector<double> x(15), k(225);
    for (int i = 0; i < 15; ++i) x[i] = i == 14 ? 2.0 : -2.0 + i * (4.0 / 14.0);
    for (int j = 0; j < 15; ++j)
        for (int i = 0; i < 15; ++i) {
            double d = std::sqrt(x[i] * x[i] + x[j] * x[j]);
            k[j * 15 + i] = std::exp(-(d * d / 2.0));
        }
    return host_as(HostArray::from(Shape{15, 15}, k), t);
}

HostArray rank_one(size_t kh, size_t kw, DType t, uint64_t seed) {
    HostArray u = test::random(Shape{kh}, DType::float64, seed, -1, 1);
    HostArray v = test::random(Shape{kw}, DType::float64, seed + 1, -1, 1);
    std::vector<double> k(kh * kw);
    for (size_t j = 0; j < kh; ++j)
        for (size_t c = 0; c < kw; ++c) k[j * kw + c] = u.at(j) * v.at(c);
    return host_as(HostArray::from(Shape{kh, kw}, k), t);
}

std::vector<std::string> kernels_run(Context& ctx) {
    ctx.sync();
    std::vector<std::string> names;
    for (auto& s : ctx.profile().stats()) names.push_back(s.name);
    ctx.profile().clear();
    return names;
}

bool ran(const std::vector<std::string>& names, const std::string& kernel) {
    return std::find(names.begin(), names.end(), kernel) != names.end();
}

}  // namespace

TEST_CASE("GPU convolve2d matches scipy.signal.convolve2d", "[ops][convolve]") {
    Context ctx = test::context();
    for (const fx::Conv2dCase& c : fx::conv2d_cases) {
        INFO(c.name);
        const DType t = parse_dtype(c.dtype);
        const HostArray hi = to_host(fx::conv_inputs[c.image], t),
                        hk = to_host(fx::conv_inputs[c.kernel], t);
        const Array image = Array::from_host(ctx, hi), kernel = Array::from_host(ctx, hk);
        const HostArray want = expected(c.expected);
        const double scale = sum_abs(hk) * test::max_abs(hi) + std::abs(c.fillvalue) * sum_abs(hk);
        poison_memory(ctx, want.nbytes());
        require_conv_close(
            convolve2d(image, kernel, parse_conv_mode(c.mode), parse_boundary(c.boundary), c.fillvalue)
                .to_host(),
            want, scale);
        require_conv_close(
            convolve2d(image, hk, parse_conv_mode(c.mode), parse_boundary(c.boundary), c.fillvalue)
                .to_host(),
            want, scale);
    }
}

namespace {

struct KernelCase {
    const char* what;
    HostArray k;
    std::string kernel;  // the shader that should run
    bool large_image;    // also on 127 x 129 (the direct kernel is slow on lavapipe)
};

// Every mode and boundary (fill value 1.5) on 13 x 17, 12 x 30 and 127 x 129 images.
void check_kernels(DType t, const std::vector<KernelCase>& kernels) {
    Context ctx = test::context();
    for (const Shape& shape : {Shape{13, 17}, Shape{12, 30}, Shape{127, 129}}) {
        const HostArray hi = test::random(shape, t, 7);
        const Array image = Array::from_host(ctx, hi);
        for (const KernelCase& kc : kernels) {
            if (shape[0] > 13 && !kc.large_image) continue;
            const Array kernel = Array::from_host(ctx, kc.k);
            const double scale = sum_abs(kc.k) * test::max_abs(hi);
            for (ConvMode mode : {ConvMode::full, ConvMode::same, ConvMode::valid}) {
                if (mode == ConvMode::valid &&
                    (kc.k.shape[0] > shape[0] || kc.k.shape[1] > shape[1]))
                    continue;
                for (Boundary b : {Boundary::fill, Boundary::wrap, Boundary::symm}) {
                    INFO(dtype_name(t) << " " << shape.str() << " " << kc.what << " mode "
                                       << int(mode) << " boundary " << int(b));
                    const HostArray want = cpu::convolve2d(hi, kc.k, mode, b, 1.5);
                    poison_memory(ctx, want.nbytes());
                    ctx.profile().clear();
                    require_conv_close(convolve2d(image, kernel, mode, b, 1.5).to_host(), want,
                                       scale * 1.5);
                    CHECK(ran(kernels_run(ctx), kc.kernel + "_" + std::string(dtype_name(t))));
                }
            }
        }
    }
}

}  // namespace

TEST_CASE("GPU convolve2d general and direct paths match the CPU reference", "[ops][convolve]") {
    const DType f32 = DType::float32;
    check_kernels(
        f32,
        {{"3x3 random", test::random(Shape{3, 3}, f32, 1, -1, 1), "conv_2d", true},
         {"4x6 random (even)", test::random(Shape{4, 6}, f32, 2, -1, 1), "conv_2d", true},
         {"35x3 random (direct)", test::random(Shape{35, 3}, f32, 5, -1, 1), "conv_2d", false}});
    check_kernels(
        DType::float64,
        {{"3x3 random", test::random(Shape{3, 3}, DType::float64, 1, -1, 1), "conv_2d", false}});
}

TEST_CASE("GPU convolve2d separable paths match the CPU reference", "[ops][convolve]") {
    const DType f32 = DType::float32;
    check_kernels(f32, {{"lesson 15x15 Gaussian", lesson_gaussian(f32), "conv_sep", true},
                        {"rank one 5x4", rank_one(5, 4, f32, 3), "conv_sep", true},
                        {"1x7 row", test::random(Shape{1, 7}, f32, 4, -1, 1), "conv_sep", false},
                        {"rank one 3x70 (two passes)", rank_one(3, 70, f32, 6), "conv_2d", false}});
    check_kernels(DType::float64,
                  {{"lesson 15x15 Gaussian", lesson_gaussian(DType::float64), "conv_sep", false}});
}

TEST_CASE("GPU convolve2d promotes integers and swaps roles in valid mode", "[ops][convolve]") {
    Context ctx = test::context();
    const HostArray hi = test::random(Shape{31, 37}, DType::int16, 8, -300, 300);
    const HostArray hk = test::random(Shape{3, 5}, DType::uint8, 9, 0, 9);
    const Array image = Array::from_host(ctx, hi), kernel = Array::from_host(ctx, hk);
    const Array r = convolve2d(image, kernel, ConvMode::same, Boundary::symm);
    CHECK(r.dtype() == DType::float32);
    test::require_close(r.to_host(), cpu::convolve2d(hi, hk, ConvMode::same, Boundary::symm), 0);

    const HostArray h64 = test::random(Shape{3, 5}, DType::float64, 10, -1, 1);
    CHECK(convolve2d(image, Array::from_host(ctx, h64)).dtype() == DType::float64);

    // A kernel larger than the image in valid mode plays the image.
    const HostArray small = test::random(Shape{4, 3}, DType::float32, 11);
    const HostArray big = test::random(Shape{9, 7}, DType::float32, 12);
    const HostArray want = cpu::convolve2d(small, big, ConvMode::valid);
    REQUIRE(want.shape == Shape({6, 5}));
    const double scale = sum_abs(small) * test::max_abs(big);
    require_conv_close(
        convolve2d(Array::from_host(ctx, small), Array::from_host(ctx, big), ConvMode::valid)
            .to_host(),
        want, scale);
    require_conv_close(convolve2d(Array::from_host(ctx, small), big, ConvMode::valid).to_host(),
                       want, scale);
}

TEST_CASE("GPU convolve2d propagates NaN and Inf as SciPy does", "[ops][convolve]") {
    Context ctx = test::context();
    HostArray hi = test::random(Shape{13, 17}, DType::float32, 13);
    hi.as<float>()[20] = std::numeric_limits<float>::quiet_NaN();
    hi.as<float>()[100] = std::numeric_limits<float>::infinity();
    const Array image = Array::from_host(ctx, hi);
    // A rank-one kernel with a row of zeros (0 * inf is NaN there) and a general one with a zero.
    HostArray sep = rank_one(3, 3, DType::float32, 14),
              general = test::random(Shape{3, 3}, DType::float32, 15, -1, 1);
    for (int i = 0; i < 3; ++i) sep.as<float>()[i] = 0.0f;
    general.as<float>()[4] = 0.0f;
    for (const HostArray* k : {&sep, &general}) {
        const HostArray want = cpu::convolve2d(hi, *k, ConvMode::same, Boundary::symm);
        require_conv_close(convolve2d(image, *k, ConvMode::same, Boundary::symm).to_host(), want,
                           sum_abs(*k) * 100);
    }
    CHECK(ran(kernels_run(ctx), "conv_sep_float32"));
}

TEST_CASE("GPU rank-one kernels take the separable path after a check on the host",
          "[ops][convolve]") {
    Context ctx = test::context();
    const HostArray hi = test::random(Shape{40, 50}, DType::float32, 16);
    const Array image = Array::from_host(ctx, hi);
    HostArray near = lesson_gaussian(DType::float32);
    near.as<float>()[7 * 15 + 3] *= 1.001f;  // rank two, by a little
    const Array r1 = convolve2d(image, lesson_gaussian(DType::float32));
    const auto names1 = kernels_run(ctx);
    CHECK(ran(names1, "conv_sep_float32"));
    CHECK_FALSE(ran(names1, "conv_2d_float32"));
    const Array r2 = convolve2d(image, near);
    const auto names2 = kernels_run(ctx);
    CHECK(ran(names2, "conv_2d_float32"));
    CHECK_FALSE(ran(names2, "conv_sep_float32"));
    require_conv_close(r2.to_host(), cpu::convolve2d(hi, near), sum_abs(near) * 100);
    // A zero kernel has no pivot: the general path, all zeros.
    const Array z = convolve2d(image, HostArray(Shape{3, 3}, DType::float32));
    CHECK(ran(kernels_run(ctx), "conv_2d_float32"));
    for (float v : z.to_vector<float>()) REQUIRE(v == 0.0f);
}

TEST_CASE("GPU a kernel read back for the rank test is read again once it changes",
          "[ops][convolve]") {
    // Without direct host access every write goes through a command, which the
    // memo of kernels already read relies on.
    ContextOptions o;
    o.direct_host_access = false;
    Context ctx = test::context(o);
    const HostArray hi = test::random(Shape{21, 23}, DType::float32, 17);
    const Array image = Array::from_host(ctx, hi);
    const HostArray k1 = rank_one(5, 5, DType::float32, 18),
                    k2 = rank_one(5, 5, DType::float32, 19);
    const HostArray k3 = test::random(Shape{5, 5}, DType::float32, 20, -1, 1);
    Array kernel = Array::from_host(ctx, k1);
    const double scale = 25 * 100;
    for (int i = 0; i < 2; ++i)
        require_conv_close(convolve2d(image, kernel).to_host(), cpu::convolve2d(hi, k1), scale);
    kernel.push(k2.as<float>());
    require_conv_close(convolve2d(image, kernel).to_host(), cpu::convolve2d(hi, k2), scale);
    kernel.push(k3.as<float>());
    require_conv_close(convolve2d(image, kernel).to_host(), cpu::convolve2d(hi, k3), scale);
    require_conv_close(convolve2d(image, kernel).to_host(), cpu::convolve2d(hi, k3), scale);
    fill(kernel, 0.5);
    const HostArray half = HostArray::from(Shape{5, 5}, std::vector<float>(25, 0.5f));
    require_conv_close(convolve2d(image, kernel).to_host(), cpu::convolve2d(hi, half), scale);
    // A view of the same memory with another shape is its own kernel.
    require_conv_close(
        convolve2d(image, kernel.reshape(Shape{1, 25})).to_host(),
        cpu::convolve2d(hi, HostArray::from(Shape{1, 25}, std::vector<float>(25, 0.5f))), scale);
}

TEST_CASE("GPU convolutions record into a graph and run again with new data",
          "[ops][convolve][graph]") {
    Context ctx = test::context();
    const HostArray h1 = test::random(Shape{33, 41}, DType::float32, 21),
                    h2 = test::random(Shape{33, 41}, DType::float32, 22);
    const HostArray gauss = lesson_gaussian(DType::float32),
                    k3 = test::random(Shape{3, 3}, DType::float32, 23, -1, 1);
    Array image = Array::from_host(ctx, h1), kernel = Array::from_host(ctx, k3);
    const std::vector<double> w5{0.1, 0.2, 0.4, 0.2, 0.1};
    Array a, b, c, d;
    Graph g(ctx);
    {
        auto capture = g.capture();
        a = convolve2d(image, kernel);  // read back refused: general path
        b = convolve2d(image, gauss, ConvMode::same,
                       Boundary::wrap);  // weights written by a kernel
        c = convolve2d(image, k3, ConvMode::valid);
        d = convolve1d(image, std::vector<double>(70, 0.01), 0);  // long weights, direct kernel
    }
    for (const HostArray* h : {&h1, &h2}) {
        image.push(h->as<float>());
        g.run();
        require_conv_close(a.to_host(), cpu::convolve2d(*h, k3), 900);
        require_conv_close(b.to_host(), cpu::convolve2d(*h, gauss, ConvMode::same, Boundary::wrap),
                           sum_abs(gauss) * 100);
        require_conv_close(c.to_host(), cpu::convolve2d(*h, k3, ConvMode::valid), 900);
        require_conv_close(d.to_host(), cpu::convolve1d(*h, std::vector<double>(70, 0.01), 0), 70);
    }
}

TEST_CASE("GPU convolve matches numpy.convolve", "[ops][convolve]") {
    Context ctx = test::context();
    for (const fx::NpConvCase& c : fx::np_convolve_cases) {
        INFO("lengths " << fx::conv_inputs[c.a].values.size() << " and "
                        << fx::conv_inputs[c.v].values.size() << ", mode " << c.mode);
        const HostArray ha = to_host(fx::conv_inputs[c.a], DType::float64),
                        hv = to_host(fx::conv_inputs[c.v], DType::float64);
        const Array r =
            convolve(Array::from_host(ctx, ha), Array::from_host(ctx, hv), parse_conv_mode(c.mode));
        require_conv_close(r.to_host(), expected(c.expected),
                           sum_abs(hv) * test::max_abs(ha) + sum_abs(ha) * test::max_abs(hv));
    }
}

TEST_CASE("GPU convolve matches the CPU reference, either operand longer", "[ops][convolve]") {
    Context ctx = test::context();
    for (size_t m : {1, 13, 1031})
        for (size_t n : {3, 15, 100}) {
            const HostArray ha = test::random(Shape{m}, DType::float32, 24),
                            hv = test::random(Shape{n}, DType::float32, 25, -1, 1);
            const Array a = Array::from_host(ctx, ha), v = Array::from_host(ctx, hv);
            const double scale = sum_abs(hv) * test::max_abs(ha) + sum_abs(ha) * test::max_abs(hv);
            for (ConvMode mode : {ConvMode::full, ConvMode::same, ConvMode::valid}) {
                INFO("lengths " << m << " and " << n << " mode " << int(mode));
                const HostArray want = cpu::convolve(ha, hv, mode);
                poison_memory(ctx, want.nbytes());
                require_conv_close(convolve(a, v, mode).to_host(), want, scale);
                require_conv_close(convolve(v, a, mode).to_host(), cpu::convolve(hv, ha, mode),
                                   scale);
            }
        }
    const HostArray hu = test::random(Shape{57}, DType::uint8, 26, 0, 255);
    const HostArray hs = test::random(Shape{3}, DType::int16, 27, -9, 9);
    const Array r = convolve(Array::from_host(ctx, hu), Array::from_host(ctx, hs), ConvMode::same);
    CHECK(r.dtype() == DType::float32);
    test::require_close(r.to_host(), cpu::convolve(hu, hs, ConvMode::same), 0);
    const HostArray hd = test::random(Shape{15}, DType::float64, 28, -1, 1);
    const Array r64 = convolve(Array::from_host(ctx, hu), Array::from_host(ctx, hd));
    CHECK(r64.dtype() == DType::float64);
    require_conv_close(r64.to_host(), cpu::convolve(hu, hd), 255 * sum_abs(hd));
}

TEST_CASE("GPU convolve and convolve1d along rows of whole vectors match the CPU reference",
          "[ops][convolve]") {
    // Rows of a multiple of 4 values spanning several tiles: the inner tiles
    // read their rows as 16-byte vectors, from every offset to a vector
    // boundary (tap counts, modes, origins), the end tiles value by value.
    Context ctx = test::context();
    for (DType t : {DType::float32, DType::float64}) {
        const HostArray ha = test::random(Shape{3000}, t, 31, -1, 1);
        const Array a = Array::from_host(ctx, ha);
        for (size_t n : {4, 5, 15, 17}) {
            const HostArray hv = test::random(Shape{n}, t, 32, -1, 1);
            const Array v = Array::from_host(ctx, hv);
            for (ConvMode mode : {ConvMode::full, ConvMode::same, ConvMode::valid}) {
                INFO(dtype_name(t) << " " << n << " taps, mode " << int(mode));
                const HostArray want = cpu::convolve(ha, hv, mode);
                poison_memory(ctx, want.nbytes());
                ctx.profile().clear();
                require_conv_close(convolve(a, v, mode).to_host(), want, sum_abs(hv));
                CHECK(ran(kernels_run(ctx), "conv_sep_" + std::string(dtype_name(t))));
            }
        }
        const HostArray hi = test::random(Shape{3, 1028}, t, 33, -100, 100);
        const Array image = Array::from_host(ctx, hi);
        const std::vector<double> w{0.1, -0.3, 0.5, 0.25, 0.05};
        for (int origin : {-2, 0, 1})
            for (NdMode mode : {NdMode::reflect, NdMode::constant, NdMode::wrap}) {
                INFO(dtype_name(t) << " rows, origin " << origin << " mode " << int(mode));
                const HostArray want = cpu::convolve1d(hi, w, -1, mode, -7.25, origin);
                poison_memory(ctx, want.nbytes());
                require_conv_close(convolve1d(image, w, -1, mode, -7.25, origin).to_host(), want,
                                   1.2 * 100);
            }
    }
}

namespace {

void check_nd_fixtures(bool along_x) {
    Context ctx = test::context();
    for (const fx::NdConvCase& c : fx::nd_convolve1d_cases) {
        const fx::Array& in = fx::conv_inputs[c.input];
        if ((c.axis == -1 || c.axis + 1 == int(in.shape.size())) != along_x) continue;
        const std::vector<double>& w = fx::conv_inputs[c.weights].values;
        INFO("input " << c.input << " (" << c.dtype << "), " << w.size() << " weights, axis "
                      << c.axis << ", mode " << c.mode << ", origin " << c.origin);
        const HostArray hi = to_host(in, parse_dtype(c.dtype));
        double wsum = 0;
        for (double x : w) wsum += std::abs(x);
        const Array r =
            convolve1d(Array::from_host(ctx, hi), w, c.axis, parse_nd_mode(c.mode), c.cval, c.origin);
        require_conv_close(r.to_host(), expected(c.expected),
                           wsum * std::max(test::max_abs(hi), std::abs(c.cval)));
    }
}

// Every mode, an origin at either end, cval -7.25; weights of one tap, four
// (even), five (symmetric), 23 (too many for push constants) and 70 (the
// direct kernel).
void check_convolve1d(const std::vector<DType>& dtypes, const std::vector<Shape>& shapes,
                      bool along_x, const std::vector<std::vector<double>>& weight_sets) {
    Context ctx = test::context();
    for (DType t : dtypes)
        for (const Shape& shape : shapes) {
            const HostArray hi = test::random(shape, t, 28, -100, 100);
            const Array in = Array::from_host(ctx, hi);
            for (int axis = 0; axis < int(shape.ndim()); ++axis) {
                if ((axis + 1 == int(shape.ndim())) != along_x) continue;
                for (const auto& w : weight_sets)
                    for (NdMode mode : {NdMode::reflect, NdMode::constant, NdMode::nearest,
                                        NdMode::mirror, NdMode::wrap}) {
                        const int size = int(w.size()),
                                  origin = axis % 2 ? -(size / 2) : (size - 1) / 2;
                        INFO(dtype_name(t)
                             << " " << shape.str() << " axis " << axis << ", " << w.size()
                             << " weights, mode " << int(mode) << ", origin " << origin);
                        const HostArray want = cpu::convolve1d(hi, w, axis, mode, -7.25, origin);
                        double wsum = 0;
                        for (double x : w) wsum += std::abs(x);
                        poison_memory(ctx, want.nbytes());
                        require_conv_close(convolve1d(in, w, axis, mode, -7.25, origin).to_host(),
                                           want, wsum * 100);
                    }
            }
        }
}

std::vector<std::vector<double>> weight_sets() {
    const HostArray w4 = test::random(Shape{4}, DType::float64, 29, -1, 1),
                    w23 = test::random(Shape{23}, DType::float64, 30, -1, 1);
    return {{2.5},
            {w4.at(0), w4.at(1), w4.at(2), w4.at(3)},
            {0.1, 0.2, 0.4, 0.2, 0.1},
            std::vector<double>(w23.as<double>().begin(), w23.as<double>().end()),
            std::vector<double>(70, 0.02)};
}

}  // namespace

TEST_CASE("GPU convolve1d matches scipy.ndimage.convolve1d along x", "[ops][convolve]") {
    check_nd_fixtures(true);
}

TEST_CASE("GPU convolve1d matches scipy.ndimage.convolve1d along strided axes", "[ops][convolve]") {
    check_nd_fixtures(false);
}

TEST_CASE("GPU convolve1d matches the CPU reference along x", "[ops][convolve]") {
    check_convolve1d({DType::float32}, {Shape{1031}, Shape{127, 129}, Shape{3, 5, 7}}, true,
                     weight_sets());
    check_convolve1d({DType::float64, DType::int16}, {Shape{127, 129}}, true, {weight_sets()[2]});
}

TEST_CASE("GPU convolve1d matches the CPU reference along strided axes", "[ops][convolve]") {
    check_convolve1d({DType::float32}, {Shape{127, 129}, Shape{7, 9, 11}}, false, weight_sets());
    check_convolve1d({DType::float64, DType::int16}, {Shape{7, 9, 11}}, false, {weight_sets()[2]});
}

TEST_CASE("GPU convolutions refuse bad input clearly and the context stays usable",
          "[ops][convolve]") {
    Context ctx = test::context(), other = test::context();
    const Array img = Array::zeros(ctx, Shape{13, 17}), k = Array::zeros(ctx, Shape{15, 15});
    const Array line = Array::zeros(ctx, Shape{13}), vol = Array::zeros(ctx, Shape{3, 4, 5}), null;
    CHECK_THROWS_WITH(convolve2d(img, k, ConvMode::valid), Catch::Contains("(13, 17)") &&
                                                               Catch::Contains("(15, 15)") &&
                                                               Catch::Contains("valid"));
    CHECK_THROWS_AS(convolve2d(img, k, ConvMode::valid), InvalidArgument);
    CHECK_THROWS_WITH(convolve2d(line, k), Catch::Contains("(13,)") && Catch::Contains("2-D"));
    CHECK_THROWS_WITH(convolve2d(img, vol), Catch::Contains("(3, 4, 5)") && Catch::Contains("2-D"));
    CHECK_THROWS_WITH(convolve2d(img, HostArray(Shape{3}, DType::float32)), Catch::Contains("2-D"));
    CHECK_THROWS_AS(convolve2d(img, HostArray{}), InvalidArgument);
    CHECK_THROWS_AS(convolve2d(null, k), InvalidArgument);
    CHECK_THROWS_AS(convolve2d(img, null), InvalidArgument);
    CHECK_THROWS_WITH(convolve2d(img, Array::zeros(other, Shape{3, 3})),
                      Catch::Contains("contexts"));
    CHECK_THROWS_WITH(convolve(img, line), Catch::Contains("1-D") && Catch::Contains("(13, 17)"));
    CHECK_THROWS_AS(convolve(line, null), InvalidArgument);
    const std::vector<double> w3{1, 2, 1};
    CHECK_THROWS_WITH(convolve1d(img, std::vector<double>{}), Catch::Contains("weights"));
    CHECK_THROWS_WITH(convolve1d(img, w3, 2),
                      Catch::Contains("axis 2") && Catch::Contains("-2 .. 1"));
    CHECK_THROWS_WITH(convolve1d(img, w3, -1, NdMode::reflect, 0, 2),
                      Catch::Contains("origin") && Catch::Contains("-1 .. 1"));
    CHECK_THROWS_AS(convolve1d(null, w3), InvalidArgument);
    // Still usable: a small convolution gives the right numbers.
    const Array one = Array::from(ctx, Shape{1, 3}, std::vector<float>{1, 2, 3});
    CHECK(convolve2d(one, HostArray::from(Shape{1, 2}, std::vector<float>{1, 1}))
              .to_vector<float>() == std::vector<float>{1, 3, 5, 3});
}

TEST_CASE("GPU arrays beyond one binding's range are refused with Unsupported",
          "[ops][convolve][large]") {
    ContextOptions o;
    o.max_binding_range = 4096;
    Context ctx = test::context(o);
    const Array img = Array::zeros(ctx, Shape{64, 64});
    CHECK_THROWS_AS(convolve2d(img, HostArray(Shape{3, 3}, DType::float32)), Unsupported);
    CHECK_THROWS_WITH(convolve1d(img, std::vector<double>{1, 2, 1}),
                      Catch::Contains("maxStorageBufferRange"));
    const Array small = Array::from(ctx, Shape{1, 3}, std::vector<float>{1, 2, 3});
    // Two weights centre on the second: out[i] = x[i + 1] + x[i].
    CHECK(convolve1d(small, std::vector<double>{1, 1}, -1, NdMode::constant).to_vector<float>() ==
          std::vector<float>{3, 5, 3});
}
