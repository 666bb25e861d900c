// GPU distance_transform_edt against SciPy's fixtures and the CPU reference.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "distance_fixture.hpp"
#include "kiln/distance.hpp"
#include "kiln/reference/distance.hpp"
#include "support.hpp"

using namespace kiln;
using test::fixture::EdtCase;

namespace {

// SciPy's float64 distances rounded to float32.
HostArray as_float32(const HostArray& d) {
    HostArray out(d.shape, DType::float32);
    for (size_t i = 0; i < d.size(); ++i) out.as<float>()[i] = static_cast<float>(d.at(i));
    return out;
}

HostArray blob_mask(Shape shape, uint64_t seed) {
    // Sparse zeros (~10%) and runs of them: distances of several pixels.
    HostArray m = test::random(shape, DType::uint8, seed, 0, 255);
    for (auto& v : m.as<uint8_t>()) v = v < 26 ? 0 : 1;
    return m;
}

}  // namespace

TEST_CASE("distance_transform_edt equals scipy.ndimage.distance_transform_edt on the fixtures",
          "[ops][distance]") {
    Context ctx = test::context();
    for (const EdtCase& c : test::fixture::edt_cases) {
        INFO(c.name);
        const HostArray in = test::to_host(c.input);
        const HostArray want = test::to_host(c.expected);
        test::poison_pool(ctx, in.shape, DType::float64);
        const Array input = Array::from_host(ctx, in);
        const HostArray got64 = distance_transform_edt(input, c.sampling, DType::float64).to_host();
        const HostArray got32 = distance_transform_edt(input, c.sampling).to_host();
        if (c.sampling.empty()) {
            // Whole squared distances: the same double sqrt, the same float32 rounding of it.
            test::require_close(got64, want, 0, 0);
            test::require_close(got32, as_float32(want), 0, 0);
        } else {
            // float64: NumPy's sum order, but an equally near zero may round
            // its sum differently (2 ulps). float32: each of the <= 5
            // roundings of d2 is 2^-24 relative, halved by the sqrt.
            test::require_close(got64, want, 5e-16, 0);
            test::require_close(got32, as_float32(want), 3e-7, 0);
        }
    }
}

TEST_CASE("distance_transform_edt matches the CPU reference on larger masks", "[ops][distance]") {
    Context ctx = test::context();
    const Shape shapes[] = {Shape{257}, Shape{61, 300}, Shape{300, 61}, Shape{17, 19, 23}};
    for (const Shape& s : shapes) {
        INFO(s.str());
        const HostArray m = blob_mask(s, 5 + s.size());
        test::poison_pool(ctx, s, DType::float32);
        const HostArray got = distance_transform_edt(Array::from_host(ctx, m)).to_host();
        test::require_close(got, cpu::distance_transform_edt(m), 0, 0);
    }
}

TEST_CASE("distance_transform_edt with zeros far apart: the first pass hops over runs", "[ops][distance]") {
    Context ctx = test::context();
    // A few zeros along first axes of many 32-element runs, at run edges too.
    struct Case {
        Shape shape;
        std::vector<size_t> zeros;
    };
    const Case cases[] = {{Shape{1000}, {31, 32, 700}},
                          {Shape{1000}, {999}},
                          {Shape{200, 45}, {0, 95 * 45 + 3, 96 * 45 + 44, 199 * 45 + 20}},
                          {Shape{200, 45}, {63 * 45 + 10}},
                          {Shape{100, 7, 9}, {5, 64 * 63 + 40}}};
    for (const Case& c : cases) {
        INFO(c.shape.str() << ", " << c.zeros.size() << " zeros");
        HostArray m(c.shape, DType::uint8);
        for (auto& v : m.as<uint8_t>()) v = 1;
        for (size_t z : c.zeros) m.as<uint8_t>()[z] = 0;
        test::poison_pool(ctx, c.shape, DType::float32);
        const HostArray got = distance_transform_edt(Array::from_host(ctx, m), {1.5}, DType::float64).to_host();
        // Same sums in the same order as the reference: exact.
        test::require_close(got, cpu::distance_transform_edt(m, {1.5}, DType::float64), 0, 0);
    }
}

TEST_CASE("distance_transform_edt takes any dtype: nonzero and NaN are foreground", "[ops][distance]") {
    Context ctx = test::context();
    const HostArray base = blob_mask(Shape{23, 29}, 3);
    const HostArray want = cpu::distance_transform_edt(base);
    for (DType t : all_dtypes) {
        INFO(dtype_name(t));
        HostArray m(base.shape, t);
        visit_dtype(t, [&](auto z) {
            using T = decltype(z);
            auto v = m.as<T>();
            // Foreground as values other than 1: 7, and NaN where a float has it.
            for (size_t i = 0; i < v.size(); ++i) v[i] = base.at(i) != 0 ? T(7) : T(0);
            if constexpr (std::is_floating_point_v<T>)
                for (size_t i = 0; i < v.size(); i += 5)
                    if (base.at(i) != 0) v[i] = std::numeric_limits<T>::quiet_NaN();
        });
        test::require_close(distance_transform_edt(Array::from_host(ctx, m)).to_host(), want, 0, 0);
    }
}

TEST_CASE("distance_transform_edt refuses what SciPy cannot mean", "[ops][distance]") {
    Context ctx = test::context();
    const Array a = Array::zeros(ctx, Shape{4, 5}, DType::uint8);
    CHECK_THROWS_AS(distance_transform_edt(a, {1, 2, 3}), InvalidArgument);
    CHECK_THROWS_AS(distance_transform_edt(a, {0.0}), InvalidArgument);
    CHECK_THROWS_AS(distance_transform_edt(a, {1, NAN}), InvalidArgument);
    CHECK_THROWS_AS(distance_transform_edt(a, {}, DType::int32), InvalidArgument);
    CHECK_THROWS_AS(distance_transform_edt(Array::zeros(ctx, Shape{2, 2, 2, 2}, DType::uint8)),
                    InvalidArgument);
    CHECK_THROWS_AS(distance_transform_edt(Array()), InvalidArgument);
}

TEST_CASE("distance_transform_edt with a few zeros far apart: the later passes' envelopes", "[ops][distance]") {
    Context ctx = test::context();
    // Lines shorter and longer than a workgroup (bands of 1..9 sites), lines
    // with no site, whole envelopes of one parabola; {5, 2100}: a line past
    // what shared memory holds (the element-wise search instead).
    struct Case {
        Shape shape;
        std::vector<size_t> zeros;
    };
    const Case cases[] = {{Shape{61, 2047}, {0, 30 * 2047 + 1000, 60 * 2047 + 2046}},
                          {Shape{97, 701}, {48 * 701 + 350}},
                          {Shape{40, 301}, {3 * 301 + 7, 3 * 301 + 290, 39 * 301 + 150, 20 * 301 + 151}},
                          {Shape{5, 2100}, {2 * 2100 + 1, 4 * 2100 + 2090}},
                          {Shape{19, 23, 41}, {0, 9 * 23 * 41 + 11 * 41 + 20}},
                          {Shape{9, 31, 300}, {4 * 31 * 300 + 299, 8 * 31 * 300 + 30 * 300, 17 * 300 + 150}}};
    for (const Case& c : cases) {
        INFO(c.shape.str() << ", " << c.zeros.size() << " zeros");
        HostArray m(c.shape, DType::uint8);
        for (auto& v : m.as<uint8_t>()) v = 1;
        for (size_t z : c.zeros) m.as<uint8_t>()[z] = 0;
        const Array input = Array::from_host(ctx, m);
        test::poison_pool(ctx, c.shape, DType::float64);
        // Unit sampling: whole squared distances, exact in either dtype.
        test::require_close(distance_transform_edt(input).to_host(), cpu::distance_transform_edt(m), 0, 0);
        test::require_close(distance_transform_edt(input, {}, DType::float64).to_host(),
                            cpu::distance_transform_edt(m, {}, DType::float64), 0, 0);
        // Sampled: the reference evaluates every candidate, the GPU the
        // envelope's site and its two neighbours, each summed as the
        // reference sums it: equal unless two sites tie within rounding.
        const std::vector<double> sampling = c.shape.ndim() == 2 ? std::vector<double>{1.5, 0.7}
                                                                 : std::vector<double>{2.0, 1.5, 0.7};
        test::require_close(distance_transform_edt(input, sampling, DType::float64).to_host(),
                            cpu::distance_transform_edt(m, sampling, DType::float64), 0, 0);
    }
}

TEST_CASE("distance_transform_edt with dense lines far from their zeros: the envelope after the search",
          "[ops][distance]") {
    Context ctx = test::context();
    // Zeros on the plane z = 0 alone: after the first pass every element is
    // a site (more than a short line lists), and an element's nearest site
    // lies z away, beyond the outward search's steps for z > 24: blocks of
    // lines settled by the search, by the envelope, and mixed.
    for (const Shape& shape : {Shape{40, 50, 60}, Shape{70, 33, 9}}) {
        INFO(shape.str());
        HostArray m(shape, DType::uint8);
        auto v = m.as<uint8_t>();
        for (size_t i = 0; i < v.size(); ++i) v[i] = i < shape[1] * shape[2] ? 0 : 1;
        // and a few zeros inside, so that some lines mix near and far sites
        v[(30 * shape[1] + 7) * shape[2] + 3] = 0;
        v[(35 * shape[1] + 20) * shape[2] + 5] = 0;
        const Array input = Array::from_host(ctx, m);
        test::require_close(distance_transform_edt(input).to_host(), cpu::distance_transform_edt(m), 0, 0);
        test::require_close(distance_transform_edt(input, {}, DType::float64).to_host(),
                            cpu::distance_transform_edt(m, {}, DType::float64), 0, 0);
        test::require_close(distance_transform_edt(input, {0.6, 1.5, 0.7}, DType::float64).to_host(),
                            cpu::distance_transform_edt(m, {0.6, 1.5, 0.7}, DType::float64), 0, 0);
    }
}
