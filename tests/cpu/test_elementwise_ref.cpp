// CPU reference of the element-wise operations: each rule of elementwise.hpp
// (wrapping, saturation, NaN handling, divide dtype, scalar conversion)
// against values worked out by hand or computed by an independent formula.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kiln/reference/elementwise.hpp"

using namespace kiln;
using cpu::BinaryOp;
using cpu::CompareOp;

namespace {

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();
const Shape odd_shapes[] = {Shape{13}, Shape{127, 129}, Shape{3, 5, 7}};

/// Integers over the whole range of the dtype; floats in [-1000, 1000] with
/// NaN, +-inf, +-0 and small integers sprinkled in, so ties and specials occur.
HostArray random_array(Shape shape, DType dtype, unsigned seed) {
    HostArray a(shape, dtype);
    std::mt19937 rng(seed);
    visit_dtype(dtype, [&](auto z) {
        using T = decltype(z);
        for (T& v : a.as<T>()) {
            if constexpr (std::is_floating_point_v<T>) {
                const T specials[] = {T(qnan), T(inf), T(-inf), T(0), T(-0.0), T(1), T(2)};
                unsigned pick = rng() % 40;
                v = pick < 7 ? specials[pick]
                             : T(std::uniform_real_distribution<double>(-1000, 1000)(rng));
            } else {
                v = T(std::uniform_int_distribution<int64_t>(std::numeric_limits<T>::min(),
                                                             std::numeric_limits<T>::max())(rng));
            }
        }
    });
    return a;
}

/// Low `bits` bits of x read as the dtype's integer: wrapping modulo 2^bits,
/// written out with masks instead of the narrowing casts the library uses.
double wrap(uint64_t x, DType t) {
    unsigned bits = unsigned(dtype_size(t) * 8);
    uint64_t m = x & ((uint64_t(1) << bits) - 1);
    if (dtype_is_signed(t) && m >= (uint64_t(1) << (bits - 1)))
        return double(int64_t(m) - (int64_t(1) << bits));
    return double(m);
}

/// Equal, counting NaN equal to NaN and telling -0.0 from +0.0.
bool same(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

/// Expected a op b (not divide) for one element, computed in wider types.
double expect_binary(BinaryOp op, double a, double b, DType t) {
    if (!dtype_is_float(t)) {
        auto ua = uint64_t(int64_t(a)), ub = uint64_t(int64_t(b));
        switch (op) {
        case BinaryOp::add: return wrap(ua + ub, t);
        case BinaryOp::subtract: return wrap(ua - ub, t);
        case BinaryOp::multiply: return wrap(ua * ub, t);
        case BinaryOp::minimum: return std::min(a, b);
        case BinaryOp::maximum: return std::max(a, b);
        default: break;
        }
    }
    double r = 0;
    switch (op) {
    case BinaryOp::add: r = a + b; break;
    case BinaryOp::subtract: r = a - b; break;
    case BinaryOp::multiply: r = a * b; break;
    case BinaryOp::minimum:
    case BinaryOp::maximum:
        if (std::isnan(a) || std::isnan(b)) return qnan;
        if (a == b) return b; // 0.0 and -0.0: NumPy returns the second
        return op == BinaryOp::minimum ? std::min(a, b) : std::max(a, b);
    default: break;
    }
    // A float32 sum, difference or product computed in double and rounded
    // once equals the float32 operation (double has more than 2*24+2 bits).
    return t == DType::float32 ? double(float(r)) : r;
}

HostArray of_doubles(Shape s, DType t, const std::vector<double>& v) {
    HostArray a(s, t);
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        auto o = a.as<T>();
        for (size_t i = 0; i < v.size(); ++i) o[i] = T(v[i]);
    });
    return a;
}

std::vector<double> doubles(const HostArray& a) {
    std::vector<double> v(a.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = a.at(i);
    return v;
}

void check_same(const std::vector<double>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
        CHECK(same(got[i], want[i]));
    }
}

} // namespace

TEST_CASE("scalar conversion truncates, saturates and maps NaN to 0", "[cpu][elementwise]") {
    using cpu::scalar_to_dtype;
    CHECK(scalar_to_dtype(3.7, DType::int8) == 3);
    CHECK(scalar_to_dtype(-3.7, DType::int8) == -3);
    CHECK(scalar_to_dtype(-128.9, DType::int8) == -128);
    CHECK(scalar_to_dtype(-129.0, DType::int8) == -128);
    CHECK(scalar_to_dtype(300, DType::uint8) == 255);
    CHECK(scalar_to_dtype(-5, DType::uint8) == 0);
    CHECK(scalar_to_dtype(-0.9, DType::uint8) == 0);
    CHECK(scalar_to_dtype(qnan, DType::int32) == 0);
    CHECK(scalar_to_dtype(1e10, DType::int32) == 2147483647.0);
    CHECK(scalar_to_dtype(-1e10, DType::int32) == -2147483648.0);
    CHECK(scalar_to_dtype(inf, DType::uint16) == 65535);
    CHECK(scalar_to_dtype(-inf, DType::int16) == -32768);
    CHECK(scalar_to_dtype(4294967296.5, DType::uint32) == 4294967295.0);
    CHECK(scalar_to_dtype(0.1, DType::float32) == double(0.1f));
    CHECK(scalar_to_dtype(0.1, DType::float64) == 0.1);
    CHECK(scalar_to_dtype(1e300, DType::float32) == inf);
    CHECK(std::isnan(scalar_to_dtype(qnan, DType::float32)));
}

TEST_CASE("binary add/subtract/multiply/minimum/maximum on random odd shapes",
          "[cpu][elementwise]") {
    unsigned seed = 10;
    for (Shape shape : odd_shapes) {
        for (DType t : all_dtypes) {
            HostArray a = random_array(shape, t, seed++), b = random_array(shape, t, seed++);
            for (BinaryOp op : {BinaryOp::add, BinaryOp::subtract, BinaryOp::multiply,
                                BinaryOp::minimum, BinaryOp::maximum}) {
                INFO(shape.str() << " " << dtype_name(t) << " op " << int(op));
                HostArray c = cpu::binary(op, a, b);
                REQUIRE(c.dtype == t);
                REQUIRE(c.shape == shape);
                size_t bad = 0;
                for (size_t i = 0; i < c.size(); ++i)
                    bad += !same(c.at(i), expect_binary(op, a.at(i), b.at(i), t));
                CHECK(bad == 0);
            }
        }
    }
}

TEST_CASE("integer arithmetic wraps like NumPy", "[cpu][elementwise]") {
    auto run = [](BinaryOp op, DType t, std::vector<double> a, std::vector<double> b) {
        Shape s = Shape::of(1, std::vector<size_t>{a.size()}.data());
        return doubles(cpu::binary(op, of_doubles(s, t, a), of_doubles(s, t, b)));
    };
    check_same(run(BinaryOp::add, DType::uint8, {200, 255, 1}, {100, 1, 2}), {44, 0, 3});
    check_same(run(BinaryOp::add, DType::int8, {127, -128}, {1, -1}), {-128, 127});
    check_same(run(BinaryOp::subtract, DType::int16, {-32768, 0}, {1, -32768}), {32767, -32768});
    check_same(run(BinaryOp::multiply, DType::uint16, {300, 256}, {300, 256}), {24464, 0});
    check_same(run(BinaryOp::multiply, DType::int32, {2147483647, -2147483648.0}, {2, -1}),
               {-2, -2147483648.0});
    check_same(run(BinaryOp::subtract, DType::uint32, {0, 5}, {1, 3}), {4294967295.0, 2});
    check_same(run(BinaryOp::minimum, DType::uint32, {4294967295.0, 7}, {1, 8}), {1, 7});
    check_same(run(BinaryOp::maximum, DType::int8, {-128, 5}, {-1, -7}), {-1, 5});
}

TEST_CASE("minimum and maximum propagate NaN", "[cpu][elementwise]") {
    for (DType t : {DType::float32, DType::float64}) {
        HostArray a = of_doubles({5}, t, {qnan, 1, qnan, -2, 3});
        HostArray b = of_doubles({5}, t, {1, qnan, qnan, 4, -inf});
        check_same(doubles(cpu::binary(BinaryOp::minimum, a, b)), {qnan, qnan, qnan, -2, -inf});
        check_same(doubles(cpu::binary(BinaryOp::maximum, a, b)), {qnan, qnan, qnan, 4, 3});
        check_same(doubles(cpu::binary_scalar(BinaryOp::minimum, a, qnan)),
                   {qnan, qnan, qnan, qnan, qnan});
        check_same(doubles(cpu::binary_scalar(BinaryOp::maximum, a, 0.5)), {qnan, 1, qnan, 0.5, 3});
        HostArray z = of_doubles({2}, t, {0.0, -0.0}), nz = of_doubles({2}, t, {-0.0, 0.0});
        check_same(doubles(cpu::binary(BinaryOp::minimum, z, nz)), {-0.0, 0.0});
        check_same(doubles(cpu::binary(BinaryOp::maximum, z, nz)), {-0.0, 0.0});
    }
}

TEST_CASE("divide is true division into float32, or float64 for float64", "[cpu][elementwise]") {
    for (DType t : all_dtypes) {
        INFO(dtype_name(t));
        DType want = t == DType::float64 ? DType::float64 : DType::float32;
        CHECK(cpu::binary_result_dtype(BinaryOp::divide, t) == want);
        CHECK(cpu::binary_result_dtype(BinaryOp::add, t) == t);
        HostArray a = of_doubles({5}, t, {7, 1, 0, 3, 1});
        HostArray b = of_doubles({5}, t, {2, 0, 0, 4, 3});
        HostArray q = cpu::binary(BinaryOp::divide, a, b);
        CHECK(q.dtype == want);
        double third = want == DType::float64 ? 1.0 / 3.0 : double(1.0f / 3.0f);
        check_same(doubles(q), {3.5, inf, qnan, 0.75, third});
    }
    HostArray s = of_doubles({2}, DType::int16, {-1, 0});
    check_same(doubles(cpu::binary(BinaryOp::divide, s, of_doubles({2}, DType::int16, {0, 0}))),
               {-inf, qnan});
    // Operands become float32 before dividing: float32(91037773) is
    // 91037776, and 91037776 / 818 rounds to 111293.125 where the exact
    // 91037773 / 818 would round to 111293.1171875 (checked with NumPy).
    HostArray n = of_doubles({1}, DType::int32, {91037773});
    HostArray d = of_doubles({1}, DType::int32, {818});
    CHECK(cpu::binary(BinaryOp::divide, n, d).as<float>()[0] == 111293.125f);
    CHECK(cpu::binary_scalar(BinaryOp::divide, n, 818).as<float>()[0] == 111293.125f);
    CHECK(cpu::binary_scalar(BinaryOp::divide, d, 91037773, true).as<float>()[0] == 111293.125f);
    CHECK(cpu::binary(BinaryOp::divide, cpu::cast(n, DType::float64), cpu::cast(d, DType::float64))
              .as<double>()[0] == 91037773.0 / 818);
    // 2^32 - 1 and 2^24 + 1 are not float32 values.
    HostArray u = of_doubles({1}, DType::uint32, {4294967295.0});
    CHECK(cpu::binary_scalar(BinaryOp::divide, u, 1).as<float>()[0] == 4294967296.0f);
    HostArray big = of_doubles({1}, DType::int32, {16777217});
    CHECK(cpu::binary_scalar(BinaryOp::divide, big, 1).as<float>()[0] == 16777216.0f);
}

TEST_CASE("divide of random float32 matches rounding the exact quotient", "[cpu][elementwise]") {
    HostArray a = random_array({127, 129}, DType::float32, 3);
    HostArray b = random_array({127, 129}, DType::float32, 4);
    HostArray q = cpu::binary(BinaryOp::divide, a, b);
    size_t bad = 0;
    for (size_t i = 0; i < q.size(); ++i)
        bad += !same(q.at(i), double(a.as<float>()[i] / b.as<float>()[i]));
    CHECK(bad == 0);
}

TEST_CASE("binary_scalar converts the scalar and honours scalar_first", "[cpu][elementwise]") {
    HostArray u8 = of_doubles({4}, DType::uint8, {0, 1, 10, 255});
    // 300 saturates to 255 before the wrapping add.
    check_same(doubles(cpu::binary_scalar(BinaryOp::add, u8, 300)), {255, 0, 9, 254});
    check_same(doubles(cpu::binary_scalar(BinaryOp::subtract, u8, 10, true)), {10, 9, 0, 11});
    check_same(doubles(cpu::binary_scalar(BinaryOp::subtract, u8, 10)), {246, 247, 0, 245});
    // -3.9 truncates to -3.
    HostArray i8 = of_doubles({3}, DType::int8, {-128, 0, 100});
    check_same(doubles(cpu::binary_scalar(BinaryOp::subtract, i8, -3.9)), {-125, 3, 103});
    check_same(doubles(cpu::binary_scalar(BinaryOp::multiply, i8, 2)), {0, 0, -56});
    // Divide keeps the scalar's fraction (converted to the float result dtype).
    HostArray i32 = of_doubles({3}, DType::int32, {1, 2, -4});
    check_same(doubles(cpu::binary_scalar(BinaryOp::divide, i32, 0.5)), {2, 4, -8});
    check_same(doubles(cpu::binary_scalar(BinaryOp::divide, i32, 1, true)), {1, 0.5, -0.25});
    // ... but as float32 first: 1 / float32(0.001) is not 1000 in float32.
    CHECK(cpu::binary_scalar(BinaryOp::divide, i32, 0.001).as<float>()[0] == 999.99993896484375f);
    CHECK(cpu::binary_scalar(BinaryOp::divide, i32, 0.001, true).as<float>()[1] ==
          float(double(0.001f) / 2));
    HostArray f64 = of_doubles({2}, DType::float64, {3, 0});
    check_same(doubles(cpu::binary_scalar(BinaryOp::divide, f64, 1, true)), {1.0 / 3.0, inf});
    check_same(doubles(cpu::binary_scalar(BinaryOp::subtract, f64, 0.1, true)), {0.1 - 3, 0.1});
    // float32 arrays take the scalar as float32, as NumPy does for a Python float.
    HostArray f32 = of_doubles({1}, DType::float32, {1});
    CHECK(cpu::binary_scalar(BinaryOp::add, f32, 0.1).as<float>()[0] == 1.0f + 0.1f);
    CHECK(cpu::binary_scalar(BinaryOp::subtract, f32, 1e300, true).as<float>()[0] == INFINITY);
}

TEST_CASE("compare gives uint8 and NaN compares false except not_equal", "[cpu][elementwise]") {
    HostArray a = of_doubles({5}, DType::float32, {1, 2, qnan, qnan, -0.0});
    HostArray b = of_doubles({5}, DType::float32, {2, 2, 1, qnan, 0.0});
    auto run = [&](CompareOp op) {
        HostArray c = cpu::compare(op, a, b);
        REQUIRE(c.dtype == DType::uint8);
        return doubles(c);
    };
    check_same(run(CompareOp::equal), {0, 1, 0, 0, 1});
    check_same(run(CompareOp::not_equal), {1, 0, 1, 1, 0});
    check_same(run(CompareOp::less), {1, 0, 0, 0, 0});
    check_same(run(CompareOp::less_equal), {1, 1, 0, 0, 1});
    check_same(run(CompareOp::greater), {0, 0, 0, 0, 0});
    check_same(run(CompareOp::greater_equal), {0, 1, 0, 0, 1});

    // The scalar is not converted to the dtype first.
    HostArray u8 = of_doubles({3}, DType::uint8, {0, 200, 255});
    check_same(doubles(cpu::compare_scalar(CompareOp::less, u8, 300.5)), {1, 1, 1});
    check_same(doubles(cpu::compare_scalar(CompareOp::greater, u8, -1)), {1, 1, 1});
    check_same(doubles(cpu::compare_scalar(CompareOp::equal, u8, 200.5)), {0, 0, 0});
    check_same(doubles(cpu::compare_scalar(CompareOp::not_equal, a, qnan)), {1, 1, 1, 1, 1});
    check_same(doubles(cpu::compare_scalar(CompareOp::equal, a, qnan)), {0, 0, 0, 0, 0});
    // uint32 and int32 values beyond float32 precision compare exactly.
    HostArray u32 = of_doubles({2}, DType::uint32, {4294967295.0, 4294967294.0});
    HostArray u32b = of_doubles({2}, DType::uint32, {4294967294.0, 4294967294.0});
    check_same(doubles(cpu::compare(CompareOp::greater, u32, u32b)), {1, 0});
}

TEST_CASE("compare on random odd shapes agrees with double comparison", "[cpu][elementwise]") {
    unsigned seed = 200;
    for (Shape shape : odd_shapes) {
        for (DType t : all_dtypes) {
            HostArray a = random_array(shape, t, seed++);
            // About half the elements of b equal a's, so equality is exercised.
            HostArray half = cpu::threshold(random_array(shape, DType::float64, seed++), 0);
            HostArray b = cpu::where(half, a, random_array(shape, t, seed++));
            HostArray lt = cpu::compare(CompareOp::less, a, b);
            HostArray ne = cpu::compare(CompareOp::not_equal, a, b);
            size_t bad = 0;
            for (size_t i = 0; i < a.size(); ++i)
                bad += lt.at(i) != double(a.at(i) < b.at(i)) ||
                       ne.at(i) != double(a.at(i) != b.at(i));
            INFO(shape.str() << " " << dtype_name(t));
            CHECK(bad == 0);
        }
    }
}

TEST_CASE("where selects by nonzero, NaN counting as true", "[cpu][elementwise]") {
    HostArray cond = of_doubles({6}, DType::float64, {1, 0, qnan, -0.0, -2, inf});
    HostArray a = of_doubles({6}, DType::int32, {1, 2, 3, 4, 5, 6});
    HostArray b = of_doubles({6}, DType::int32, {-1, -2, -3, -4, -5, -6});
    HostArray w = cpu::where(cond, a, b);
    CHECK(w.dtype == DType::int32);
    check_same(doubles(w), {1, -2, 3, -4, 5, 6});
    HostArray ws = cpu::where_scalar(cond, 300, -7.5, DType::uint8);
    CHECK(ws.dtype == DType::uint8);
    check_same(doubles(ws), {255, 0, 255, 0, 255, 255});
    check_same(doubles(cpu::where_scalar(of_doubles({2}, DType::uint16, {0, 9}), 0.1, qnan,
                                         DType::float32)),
               {qnan, double(0.1f)});
}

TEST_CASE("threshold is value > t as uint8, NaN giving 0", "[cpu][elementwise]") {
    HostArray img = of_doubles({2, 3}, DType::float32, {0.5, 0.25, 0.75, qnan, inf, -inf});
    HostArray m = cpu::threshold(img, 0.5);
    CHECK(m.dtype == DType::uint8);
    CHECK(m.shape == Shape{2, 3});
    check_same(doubles(m), {0, 0, 1, 0, 1, 0});
    HostArray i16 = of_doubles({4}, DType::int16, {-3, 2, 3, 4});
    check_same(doubles(cpu::threshold(i16, 2.5)), {0, 0, 1, 1});
}

TEST_CASE("cast rules: nearest to float, truncate and saturate to int, wrap int to int",
          "[cpu][elementwise]") {
    auto run = [](DType from, DType to, std::vector<double> v) {
        Shape s = Shape::of(1, std::vector<size_t>{v.size()}.data());
        HostArray c = cpu::cast(of_doubles(s, from, v), to);
        REQUIRE(c.dtype == to);
        return doubles(c);
    };
    check_same(run(DType::float32, DType::int32, {qnan, 2.9, -2.9, 3e9, -3e9, inf, -inf}),
               {0, 2, -2, 2147483647.0, -2147483648.0, 2147483647.0, -2147483648.0});
    check_same(run(DType::float64, DType::uint8, {-1, 300, 255.99, 0.5, qnan}),
               {0, 255, 255, 0, 0});
    check_same(run(DType::float64, DType::uint32, {4294967295.9, -0.5}), {4294967295.0, 0});
    check_same(run(DType::int32, DType::uint8, {-1, 256, 70000}), {255, 0, 112});
    check_same(run(DType::uint16, DType::int16, {65535, 32768}), {-1, -32768});
    check_same(run(DType::int32, DType::int16, {70000, -70000}), {4464, -4464});
    check_same(run(DType::uint32, DType::int32, {4294967295.0}), {-1});
    check_same(run(DType::int8, DType::uint32, {-1}), {4294967295.0});
    check_same(run(DType::int32, DType::float32, {16777217, 16777219}), {16777216, 16777220});
    check_same(run(DType::uint32, DType::float32, {4294967295.0}), {4294967296.0});
    check_same(run(DType::float64, DType::float32, {0.1, 1e300, -1e-50}),
               {double(0.1f), inf, -0.0});
    check_same(run(DType::uint8, DType::float64, {255}), {255});

    // Every dtype to itself, and through float64 and back, is the identity.
    unsigned seed = 300;
    for (DType t : all_dtypes) {
        HostArray a = random_array({3, 5, 7}, t, seed++);
        CHECK(cpu::cast(a, t).bytes == a.bytes);
        CHECK(cpu::cast(cpu::cast(a, DType::float64), t).bytes == a.bytes);
    }
}

TEST_CASE("fill converts its value like a scalar", "[cpu][elementwise]") {
    HostArray f = cpu::fill({3, 5, 7}, DType::int16, -40000.7);
    CHECK(f.shape == Shape{3, 5, 7});
    for (int16_t v : f.as<int16_t>()) CHECK(v == -32768);
    HostArray g = cpu::fill({13}, DType::float32, 0.1);
    for (float v : g.as<float>()) CHECK(v == 0.1f);
    CHECK_THROWS_AS(cpu::fill(Shape{}, DType::uint8, 1), InvalidArgument);
}

TEST_CASE("element-wise operations refuse mismatched operands", "[cpu][elementwise]") {
    HostArray a({3, 4}, DType::float32), b({4, 3}, DType::float32), c({3, 4}, DType::int32);
    auto message = [](auto&& f) -> std::string {
        try {
            f();
        } catch (const InvalidArgument& e) {
            return e.what();
        }
        return "no InvalidArgument";
    };
    std::string m = message([&] { cpu::binary(BinaryOp::add, a, b); });
    CHECK_THAT(m, Catch::Contains("(3, 4) float32") && Catch::Contains("(4, 3) float32"));
    m = message([&] { cpu::compare(CompareOp::less, a, c); });
    CHECK_THAT(m, Catch::Contains("(3, 4) float32") && Catch::Contains("(3, 4) int32"));
    m = message([&] { cpu::where(HostArray({4, 3}, DType::uint8), a, a); });
    CHECK_THAT(m, Catch::Contains("cond is (4, 3) uint8"));
    CHECK_THROWS_AS(cpu::where(a, a, c), InvalidArgument);
    HostArray broken = a;
    broken.bytes.resize(5);
    CHECK_THROWS_AS(cpu::cast(broken, DType::uint8), InvalidArgument);
    CHECK_THROWS_AS(cpu::threshold(HostArray{}, 0), InvalidArgument);
}
