// Element-wise GPU ops against the CPU reference (engine/cpu/elementwise),
// every dtype, odd shapes, fixed seeds, outputs poisoned first.
#include "kiln/reference/elementwise.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

const Shape shapes[] = {Shape{13}, Shape{127, 129}, Shape{3, 5, 7}};

// Values that exercise wrapping and saturation for each dtype.
HostArray data(Shape s, DType t, uint64_t seed) {
    if (dtype_is_float(t)) return test::random(s, t, seed, -1000, 1000);
    return test::random(s, t, seed, -1e10, 1e10);
}

} // namespace

TEST_CASE("binary ops match the CPU reference for every dtype", "[ops][elementwise]") {
    Context ctx = test::context();
    for (DType t : all_dtypes)
        for (Shape s : shapes)
            for (BinaryOp op : {BinaryOp::add, BinaryOp::subtract, BinaryOp::multiply, BinaryOp::divide,
                                BinaryOp::minimum, BinaryOp::maximum}) {
                INFO(dtype_name(t) << " " << s.str() << " op " << int(op));
                HostArray ha = data(s, t, 1), hb = data(s, t, 2);
                Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
                double rtol = t == DType::float64 ? 1e-15 : 1e-6;
                test::require_close(binary(op, a, b).to_host(), cpu::binary(op, ha, hb), rtol);
                test::require_close(binary(op, a, 7.75).to_host(), cpu::binary_scalar(op, ha, 7.75), rtol);
                test::require_close(binary(op, a, -3.5, true).to_host(), cpu::binary_scalar(op, ha, -3.5, true),
                                    rtol);
            }
}

TEST_CASE("float32 arrays of a multiple of four take the vec4 kernel and agree", "[ops][elementwise]") {
    Context ctx = test::context();
    HostArray ha = data(Shape{16, 64}, DType::float32, 3), hb = data(Shape{16, 64}, DType::float32, 4);
    ha.as<float>()[5] = std::nanf("");
    Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
    for (BinaryOp op : {BinaryOp::add, BinaryOp::subtract, BinaryOp::multiply, BinaryOp::divide, BinaryOp::minimum,
                        BinaryOp::maximum}) {
        test::require_close(binary(op, a, b).to_host(), cpu::binary(op, ha, hb), 1e-6);
        test::require_close(binary(op, a, 2.5, true).to_host(), cpu::binary_scalar(op, ha, 2.5, true), 1e-6);
    }
}

TEST_CASE("comparisons with arrays and exact scalar comparisons", "[ops][elementwise]") {
    Context ctx = test::context();
    for (DType t : all_dtypes) {
        HostArray ha = data(Shape{127, 129}, t, 5), hb = data(Shape{127, 129}, t, 6);
        // Equal elements too.
        for (size_t i = 0; i < ha.size(); i += 3) std::memcpy(hb.bytes.data() + i * dtype_size(t), ha.bytes.data() + i * dtype_size(t), dtype_size(t));
        Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
        for (CompareOp op : {CompareOp::equal, CompareOp::not_equal, CompareOp::less, CompareOp::less_equal,
                             CompareOp::greater, CompareOp::greater_equal}) {
            INFO(dtype_name(t) << " op " << int(op));
            test::require_close(compare(op, a, b).to_host(), cpu::compare(op, ha, hb));
            // Scalars that are not representable in the dtype, on either side of it, and NaN.
            for (double s : {0.1, -0.5, 12.0, 1e12, -1e12, ha.at(7), std::nan("")})
                test::require_close(compare(op, a, s).to_host(), cpu::compare_scalar(op, ha, s));
        }
    }
}

TEST_CASE("casts between every pair of dtypes", "[ops][elementwise]") {
    Context ctx = test::context();
    for (DType from : all_dtypes) {
        HostArray h = data(Shape{3, 5, 7}, from, 8);
        if (dtype_is_float(from)) {
            auto put = [&](size_t i, double v) {
                visit_dtype(from, [&](auto z) { h.as<decltype(z)>()[i] = static_cast<decltype(z)>(v); });
            };
            put(0, std::nan(""));
            put(1, 1e30);
            put(2, -1e30);
            put(3, -0.7);
            put(4, 255.9);
        }
        Array a = Array::from_host(ctx, h);
        for (DType to : all_dtypes) {
            INFO(dtype_name(from) << " -> " << dtype_name(to));
            test::require_close(cast(a, to).to_host(), cpu::cast(h, to), 0);
        }
    }
}

TEST_CASE("where, threshold and fill", "[ops][elementwise]") {
    Context ctx = test::context();
    HostArray hc = test::random(Shape{127, 129}, DType::float32, 9, -1, 1);
    hc.as<float>()[0] = std::nanf("");
    hc.as<float>()[1] = 0.0f;
    for (DType t : all_dtypes) {
        INFO(dtype_name(t));
        HostArray ha = data(Shape{127, 129}, t, 10), hb = data(Shape{127, 129}, t, 11);
        Array c = Array::from_host(ctx, hc), a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
        test::require_close(where(c, a, b).to_host(), cpu::where(hc, ha, hb), 0);
        test::require_close(where(c, 3.0, -2.0, t).to_host(), cpu::where_scalar(hc, 3.0, -2.0, t), 0);
        Array f = test::poisoned(ctx, Shape{127, 129}, t);
        fill(f, -7.5);
        test::require_close(f.to_host(), cpu::fill(Shape{127, 129}, t, -7.5), 0);
    }
    Array img = Array::from_host(ctx, hc);
    test::require_close(threshold(img, 0.25).to_host(), cpu::threshold(hc, 0.25));
}

TEST_CASE("element-wise bad input is refused clearly", "[ops][elementwise]") {
    Context ctx = test::context();
    Array a = Array::zeros(ctx, Shape{4, 5}), b = Array::zeros(ctx, Shape{5, 4});
    Array i = Array::zeros(ctx, Shape{4, 5}, DType::int32);
    CHECK_THROWS_WITH(add(a, b), Catch::Contains("(4, 5)") && Catch::Contains("(5, 4)"));
    CHECK_THROWS_WITH(add(a, i), Catch::Contains("float32") && Catch::Contains("int32") && Catch::Contains("cast"));
    CHECK_THROWS_WITH(where(a, a, i), Catch::Contains("dtypes"));
    Array null;
    CHECK_THROWS_AS(copy(null), InvalidArgument);
    CHECK(add(a, 1.0).to_vector<float>() == std::vector<float>(20, 1.0f));
}

TEST_CASE("copy preserves bytes of every size", "[ops][elementwise]") {
    Context ctx = test::context();
    for (Shape s : {Shape{1}, Shape{13}, Shape{16}, Shape{3, 5, 7}}) {
        HostArray h = test::random(s, DType::uint8, 12, 0, 255);
        Array a = Array::from_host(ctx, h);
        test::require_close(copy(a).to_host(), h, 0);
    }
}

TEST_CASE("arrays larger than one binding are split, other ops refuse clearly", "[ops][elementwise][large]") {
    ContextOptions o;
    o.max_binding_range = 4096;  // as if maxStorageBufferRange were 4 KiB
    Context ctx = test::context(o);
    HostArray ha = data(Shape{7, 1031}, DType::float32, 13), hb = data(Shape{7, 1031}, DType::float32, 14);
    Array a = Array::from_host(ctx, ha), b = Array::from_host(ctx, hb);
    test::require_close(add(a, b).to_host(), cpu::binary(BinaryOp::add, ha, hb), 1e-6);
    test::require_close(multiply(a, 3.0).to_host(), cpu::binary_scalar(BinaryOp::multiply, ha, 3.0), 1e-6);
    test::require_close(cast(a, DType::int16).to_host(), cpu::cast(ha, DType::int16), 0);
    test::require_close(copy(a).to_host(), ha, 0);
    test::require_close(threshold(a, 1.0).to_host(), cpu::threshold(ha, 1.0), 0);
    HostArray hc = cpu::threshold(ha, 0.0);
    test::require_close(where(Array::from_host(ctx, hc), a, b).to_host(), cpu::where(hc, ha, hb), 0);
    CHECK_THROWS_WITH(where(Array::from_host(ctx, hc), a, 1.0), Catch::Contains("not split"));
}
