// int64 and uint64 arrays on the device: push and pull, cast to and from
// every dtype, fill and the arithmetic against the CPU reference, bit for
// bit; the ops without 64-bit integer kernels refuse them naming what they take.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kiln/reference/elementwise.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

constexpr DType wide[] = {DType::int64, DType::uint64};

/// Every bit pattern for integers (the dtype's whole range, ends included);
/// floats from [-2^70, 2^70], beyond both 64-bit ranges, with NaN, infinities,
/// and values at the edges of the int64 and uint64 ranges.
HostArray values(Shape s, DType t, unsigned seed) {
    HostArray a(s, t);
    std::mt19937_64 rng(seed);
    if (!dtype_is_float(t)) {
        for (auto& b : a.bytes) b = std::byte(rng() & 0xff);
        std::memset(a.bytes.data(), 0xff, dtype_size(t));                       // -1 or the max
        std::memset(a.bytes.data() + dtype_size(t), 0, dtype_size(t));          // 0
        return a;
    }
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        auto v = a.as<T>();
        std::uniform_real_distribution<double> d(-70, 70);
        for (size_t i = 0; i < v.size(); ++i) v[i] = T(std::copysign(std::exp2(std::abs(d(rng))), d(rng)));
        const double special[] = {std::nan(""), INFINITY, -INFINITY, 9223372036854775808.0, -9223372036854775808.0,
                                  18446744073709551616.0, 9223372036854774784.0, -0.9, 1.5, 4294967296.5};
        for (size_t i = 0; i < std::size(special) && i < v.size(); ++i) v[i] = T(special[i]);
    });
    return a;
}

void check_bits(const HostArray& got, const HostArray& want) {
    REQUIRE(got.dtype == want.dtype);
    REQUIRE(got.shape == want.shape);
    CHECK(got.bytes == want.bytes);
}

}  // namespace

TEST_CASE("int64/uint64 arrays push, pull, fill and cast to and from every dtype", "[ops][int64]") {
    Context ctx = test::context();
    unsigned seed = 1;
    for (DType w : wide) {
        INFO(dtype_name(w));
        const HostArray h = values(Shape{3, 5, 7}, w, seed++);
        const Array a = Array::from_host(ctx, h);
        check_bits(a.to_host(), h);
        for (double v : {0.0, -3.7, 1e30, -1e30, 12345678901234.0, std::nan("")}) {
            INFO("fill " << v);
            Array f = test::poisoned(ctx, Shape{13}, w);
            fill(f, v);
            check_bits(f.to_host(), cpu::fill(Shape{13}, w, v));
        }
        for (DType other : array_dtypes) {
            INFO(dtype_name(w) << " <-> " << dtype_name(other));
            check_bits(cast(a, other).to_host(), cpu::cast(h, other));
            const HostArray o = values(Shape{127, 129}, other, seed++);
            check_bits(cast(Array::from_host(ctx, o), w).to_host(), cpu::cast(o, w));
        }
    }
}

TEST_CASE("int64/uint64 arithmetic matches the CPU reference bit for bit", "[ops][int64]") {
    Context ctx = test::context();
    unsigned seed = 100;
    for (DType w : wide)
        for (Shape s : {Shape{13}, Shape{127, 129}}) {
            const HostArray ha = values(s, w, seed++), hb = values(s, w, seed++);
            const Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
            for (BinaryOp op : {BinaryOp::add, BinaryOp::subtract, BinaryOp::multiply, BinaryOp::minimum,
                                BinaryOp::maximum, BinaryOp::divide}) {
                INFO(dtype_name(w) << " " << s.str() << " op " << int(op));
                check_bits(binary(op, a, b).to_host(), cpu::binary(op, ha, hb));
                for (double sc : {3.0, -1e19, 7e18})
                    for (bool first : {false, true})
                        check_bits(binary(op, a, sc, first).to_host(), cpu::binary_scalar(op, ha, sc, first));
            }
        }
}

TEST_CASE("ops without 64-bit integer kernels refuse them, naming the dtypes they take", "[ops][int64]") {
    Context ctx = test::context();
    const Array a = Array::from_host(ctx, values(Shape{5, 7}, DType::int64, 7));
    CHECK_THROWS_AS(compare(CompareOp::less, a, a), Unsupported);
    CHECK_THROWS_WITH(compare(CompareOp::less, a, a),
                      Catch::Contains("for int64") && Catch::Contains("float32, float64, int8") &&
                          Catch::Contains("uint32") && Catch::Contains("kiln::cast"));
    CHECK_THROWS_WITH(sum(a), Catch::Contains("int64"));
}
