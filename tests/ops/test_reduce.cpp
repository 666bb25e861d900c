// GPU reductions against the CPU reference (engine/cpu/reduce): every dtype,
// odd shapes, fixed seeds; whole-array host values, the device-resident
// forms and the axis forms; NaN rules; float64 and compensated accumulation;
// arrays split across bindings; bad input.
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "cpu/reduce.hpp"
#include "kiln/reduce.hpp"
#include "support.hpp"

using namespace kiln;

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

const Shape shapes[] = {Shape{13}, Shape{127, 129}, Shape{3, 5, 7}};

// Integers over a narrow range repeat, so ties (first index wins) happen.
HostArray data(Shape s, DType t, uint64_t seed) {
    if (dtype_is_float(t)) return test::random(s, t, seed, -1000, 1000);
    return test::random(s, t, seed, -20, 20);
}

double abs_sum(const HostArray& h) {
    double s = 0;
    for (size_t i = 0; i < h.size(); ++i) s += std::abs(h.at(i));
    return s;
}

// |got - want| within rtol of the sum of magnitudes that produced want.
void check_sum(double got, double want, double scale, double rtol) {
    INFO("got " << got << " want " << want);
    if (std::isnan(want)) REQUIRE(std::isnan(got));
    else if (std::isinf(want)) REQUIRE(got == want);
    else REQUIRE(std::abs(got - want) <= rtol * scale + 1e-300);
}

} // namespace

TEST_CASE("whole-array reductions match the CPU reference for every dtype", "[ops][reduce]") {
    Context ctx = test::context();
    for (DType t : all_dtypes) {
        // Host values for one shape; the device forms (recorded together,
        // pulled once) for the others.
        INFO(dtype_name(t));
        HostArray h = data(Shape{127, 129}, t, 1);
        Array a = Array::from_host(ctx, h);
        const double scale = abs_sum(h);
        check_sum(sum(a), cpu::sum(h), scale, 1e-14);
        check_sum(mean(a), cpu::mean(h), scale / h.size(), 1e-14);
        const double v = cpu::var(h);
        check_sum(var(a), v, v, 1e-12);
        check_sum(var(a, 1), cpu::var(h, 1), v, 1e-12);
        check_sum(kiln::std(a), cpu::std(h), std::sqrt(v), 1e-12);
        check_sum(kiln::std(a, 2), cpu::std(h, 2), std::sqrt(v), 1e-12);
        CHECK(min(a) == cpu::min(h));
        CHECK(max(a) == cpu::max(h));
        CHECK(argmin(a) == cpu::argmin(h));
        CHECK(argmax(a) == cpu::argmax(h));
        CHECK(count_nonzero(a) == cpu::count_nonzero(h));

        for (Shape s : {Shape{13}, Shape{3, 5, 7}, Shape{1}}) {
            INFO(s.str());
            HostArray g = data(s, t, 2);
            Array b = Array::from_host(ctx, g);
            Array r[] = {sum_array(b), var_array(b, 1), min_array(b), max_array(b), argmin_array(b),
                         argmax_array(b), count_nonzero_array(b)};
            check_sum(r[0].to_host().at(0), cpu::sum(g), abs_sum(g), 1e-14);
            check_sum(r[1].to_host().at(0), cpu::var(g, 1), cpu::var(g), 1e-12);
            CHECK(r[2].to_host().at(0) == cpu::min(g));
            CHECK(r[3].to_host().at(0) == cpu::max(g));
            CHECK(r[4].to_host().at(0) == cpu::argmin(g));
            CHECK(r[5].to_host().at(0) == cpu::argmax(g));
            CHECK(r[6].to_host().at(0) == cpu::count_nonzero(g));
        }
    }
}

TEST_CASE("device-resident reductions give 1-element arrays of the documented dtypes", "[ops][reduce]") {
    Context ctx = test::context();
    for (DType t : {DType::float32, DType::int16, DType::uint8, DType::float64}) {
        INFO(dtype_name(t));
        HostArray h = data(Shape{127, 129}, t, 2);
        Array a = Array::from_host(ctx, h);
        Array s = sum_array(a), m = mean_array(a), v = var_array(a, 1), d = std_array(a);
        for (const Array* r : {&s, &m, &v, &d}) {
            CHECK(r->shape() == Shape{1});
            CHECK(r->dtype() == DType::float64);
        }
        check_sum(s.to_host().at(0), cpu::sum(h), abs_sum(h), 1e-14);
        check_sum(m.to_host().at(0), cpu::mean(h), abs_sum(h) / h.size(), 1e-14);
        check_sum(v.to_host().at(0), cpu::var(h, 1), cpu::var(h, 1), 1e-12);
        check_sum(d.to_host().at(0), cpu::std(h), cpu::std(h), 1e-12);
        Array lo = min_array(a), hi = max_array(a);
        CHECK(lo.dtype() == t);
        CHECK(hi.dtype() == t);
        CHECK(lo.to_host().at(0) == cpu::min(h));
        CHECK(hi.to_host().at(0) == cpu::max(h));
        for (auto [r, want] : {std::pair{argmin_array(a), cpu::argmin(h)}, std::pair{argmax_array(a), cpu::argmax(h)},
                               std::pair{count_nonzero_array(a), cpu::count_nonzero(h)}}) {
            CHECK(r.dtype() == DType::int32);
            CHECK(r.shape() == Shape{1});
            CHECK(r.to_vector<int32_t>()[0] == want);
        }
    }
}

TEST_CASE("device-resident reductions record into a Graph and rerun on new data", "[ops][reduce]") {
    Context ctx = test::context();
    Array in = Array::empty(ctx, Shape{37, 41});
    Array s, v, m;
    Graph g(ctx);
    {
        auto capture = g.capture();
        Array twice = multiply(in, 2.0);
        s = sum_array(twice);
        v = std_array(twice, 1);
        m = argmax_array(in);
    }
    for (uint64_t seed : {12, 13}) {
        HostArray h = test::random(Shape{37, 41}, DType::float32, seed, -5, 5);
        in.push(h.bytes.data(), h.nbytes());
        g.run();
        HostArray h2 = h;
        for (float& x : h2.as<float>()) x *= 2;
        check_sum(s.to_vector<double>()[0], cpu::sum(h2), abs_sum(h2), 1e-14);
        check_sum(v.to_vector<double>()[0], cpu::std(h2, 1), cpu::std(h2, 1), 1e-12);
        CHECK(m.to_vector<int32_t>()[0] == cpu::argmax(h));
    }
}

TEST_CASE("reductions follow NumPy's NaN and infinity rules", "[ops][reduce]") {
    Context ctx = test::context();
    for (DType t : {DType::float32, DType::float64}) {
        INFO(dtype_name(t));
        HostArray h = data(Shape{3, 5, 7}, t, 4);
        auto put = [&](size_t i, double v) {
            visit_dtype(t, [&](auto z) { h.as<decltype(z)>()[i] = static_cast<decltype(z)>(v); });
        };
        put(40, nan_v);
        put(70, nan_v);
        put(3, -inf_v);
        Array a = Array::from_host(ctx, h);
        CHECK(std::isnan(sum(a)));
        CHECK(std::isnan(mean(a)));
        CHECK(std::isnan(var(a)));
        CHECK(std::isnan(kiln::std(a, 1)));
        CHECK(std::isnan(min(a)));
        CHECK(std::isnan(max(a)));
        CHECK(argmin(a) == 40);
        CHECK(argmax(a) == 40);
        CHECK(count_nonzero(a) == cpu::count_nonzero(h));
        for (Accumulation acc : {Accumulation::automatic, Accumulation::compensated})
            CHECK(std::isnan(sum(a, acc)));

        HostArray g = data(Shape{127}, t, 5);
        auto put_g = [&](size_t i, double v) {
            visit_dtype(t, [&](auto z) { g.as<decltype(z)>()[i] = static_cast<decltype(z)>(v); });
        };
        put_g(9, inf_v);
        put_g(11, -0.0);
        put_g(12, 0.0);
        Array b = Array::from_host(ctx, g);
        for (Accumulation acc : {Accumulation::automatic, Accumulation::compensated}) {
            CHECK(sum(b, acc) == inf_v);
            CHECK(mean(b, acc) == inf_v);
            CHECK(std::isnan(var(b, 0, acc)));  // inf - inf, as NumPy
        }
        CHECK(max(b) == inf_v);
        CHECK(argmax(b) == 9);
        CHECK(count_nonzero(b) == 125);
        put_g(20, -inf_v);
        CHECK(std::isnan(sum(Array::from_host(ctx, g))));
        CHECK(argmin(Array::from_host(ctx, g)) == 20);
    }
    // -0.0 and 0.0 tie: the first wins, as in NumPy.
    Array z = Array::from(ctx, Shape{4}, std::vector<float>{1.0f, 0.0f, -0.0f, 2.0f});
    CHECK(argmin(z) == 1);
    CHECK(count_nonzero(z) == 2);
}

TEST_CASE("var and std follow NumPy's ddof rule, including n - ddof <= 0", "[ops][reduce]") {
    Context ctx = test::context();
    HostArray h = data(Shape{13}, DType::float32, 6);
    Array a = Array::from_host(ctx, h);
    for (int ddof : {-2, 0, 1, 12})
        check_sum(var(a, ddof), cpu::var(h, ddof), cpu::var(h, ddof), 1e-12);
    CHECK(var(a, 13) == inf_v);
    CHECK(kiln::std(a, 20) == inf_v);
    Array c = Array::full(ctx, Shape{5}, 3.0);
    CHECK(std::isnan(var(c, 5)));
    CHECK(var(c) == 0.0);
    for (Accumulation acc : {Accumulation::automatic, Accumulation::compensated}) {
        CHECK(var(a, 13, acc) == inf_v);
        CHECK(std::isnan(var(c, 5, acc)));
    }
}

TEST_CASE("a 4M-element float32 sum matches the float64 reference to 1e-6", "[ops][reduce][large]") {
    Context ctx = test::context();
    // Positive values with a large mean: a float32 running sum would be off by percents.
    HostArray h = test::random(Shape{4u << 20}, DType::float32, 7, 0.5, 1.5);
    Array a = Array::from_host(ctx, h);
    const double want = cpu::sum(h);
    for (Accumulation acc : {Accumulation::automatic, Accumulation::compensated}) {
        INFO("compensated " << (acc == Accumulation::compensated));
        const double got = sum(a, acc);
        CHECK(std::abs(got - want) <= 1e-6 * want);
        // Both do far better than the goal.
        CHECK(std::abs(got - want) <= 1e-10 * want);
    }
}

TEST_CASE("compensated accumulation matches the reference for every dtype", "[ops][reduce]") {
    Context ctx = test::context();
    for (DType t : all_dtypes)
        for (Shape s : {Shape{13}, Shape{127, 129}}) {
            INFO(dtype_name(t) << " " << s.str());
            // Integers beyond float32's 24 bits check the split of int32/uint32 values.
            HostArray h = t == DType::int32 || t == DType::uint32 ? test::random(s, t, 8, -2e9, 4e9)
                                                                   : data(s, t, 8);
            Array a = Array::from_host(ctx, h);
            const auto acc = Accumulation::compensated;
            const double v = cpu::var(h);
            check_sum(sum(a, acc), cpu::sum(h), abs_sum(h), 1e-12);
            check_sum(mean(a, acc), cpu::mean(h), abs_sum(h) / h.size(), 1e-12);
            check_sum(var(a, 1, acc), cpu::var(h, 1), v, 1e-10);
            check_sum(kiln::std(a, 0, acc), cpu::std(h), std::sqrt(v), 1e-10);
            check_sum(sum(a, Accumulation::float64), cpu::sum(h), abs_sum(h), 1e-14);
            Array s1 = sum_array(a, acc);
            CHECK(s1.dtype() == (t == DType::float64 ? DType::float64 : DType::float32));
            check_sum(s1.to_host().at(0), cpu::sum(h), abs_sum(h), 1e-7);
        }
}

namespace {

struct AxisCase {
    Shape shape;
    int axis;
};

// Every axis op on every case for the given dtypes, recorded first and
// compared after (one submission instead of one per result).
void check_axis_ops(std::initializer_list<DType> dtypes) {
    Context ctx = test::context();
    const AxisCase cases[] = {{Shape{13}, 0},      {Shape{127, 129}, 0}, {Shape{127, 129}, -1},
                              {Shape{3, 5, 7}, 0}, {Shape{3, 5, 7}, 1},  {Shape{3, 5, 7}, 2},
                              {Shape{2, 1031}, 1}, {Shape{1031, 3}, 0},  {Shape{5, 300, 3}, -2}};
    struct Check {
        std::string what;
        Array got;
        HostArray want;
        double rtol, atol;
    };
    std::vector<Check> checks;
    for (DType t : dtypes)
        for (const AxisCase& c : cases) {
            const std::string what = std::string(dtype_name(t)) + " " + c.shape.str() + " axis " +
                                     std::to_string(c.axis) + ": ";
            HostArray h = data(c.shape, t, 9);
            Array a = Array::from_host(ctx, h);
            const Axis ax{c.axis};
            const cpu::Axis cx{c.axis};
            checks.push_back({what + "sum", sum(a, ax), cpu::sum(h, cx), 1e-12, 1e-10});
            checks.push_back({what + "mean", mean(a, ax), cpu::mean(h, cx), 1e-12, 1e-12});
            checks.push_back({what + "var", var(a, ax), cpu::var(h, cx), 1e-11, 1e-9});
            checks.push_back({what + "std", kiln::std(a, ax, 1), cpu::std(h, cx, 1), 1e-11, 1e-9});
            checks.push_back({what + "min", min(a, ax), cpu::min(h, cx), 0, 0});
            checks.push_back({what + "max", max(a, ax), cpu::max(h, cx), 0, 0});
            checks.push_back({what + "argmin", argmin(a, ax), cpu::argmin(h, cx), 0, 0});
            checks.push_back({what + "argmax", argmax(a, ax), cpu::argmax(h, cx), 0, 0});
            checks.push_back({what + "count_nonzero", count_nonzero(a, ax), cpu::count_nonzero(h, cx), 0, 0});
        }
    for (auto& c : checks) {
        INFO(c.what);
        test::require_close(c.got.to_host(), c.want, c.rtol, c.atol);
    }
}

} // namespace

TEST_CASE("axis reductions match the CPU reference (float, 8-bit)", "[ops][reduce][axis]") {
    check_axis_ops({DType::float32, DType::float64, DType::int8, DType::uint8});
}

TEST_CASE("axis reductions match the CPU reference (16- and 32-bit integers)", "[ops][reduce][axis]") {
    check_axis_ops({DType::int16, DType::uint16, DType::int32, DType::uint32});
}

TEST_CASE("axis reductions with NaN and with compensated accumulation", "[ops][reduce][axis]") {
    Context ctx = test::context();
    HostArray h = data(Shape{7, 13, 5}, DType::float32, 10);
    for (size_t i : {3u, 100u, 101u, 300u}) h.as<float>()[i] = std::nanf("");
    Array a = Array::from_host(ctx, h);
    for (int axis : {0, 1, 2}) {
        INFO("axis " << axis);
        const cpu::Axis cx{axis};
        test::require_close(sum(a, Axis{axis}).to_host(), cpu::sum(h, cx), 1e-12, 1e-10);
        test::require_close(min(a, Axis{axis}).to_host(), cpu::min(h, cx), 0);
        test::require_close(argmax(a, Axis{axis}).to_host(), cpu::argmax(h, cx), 0);
        test::require_close(count_nonzero(a, Axis{axis}).to_host(), cpu::count_nonzero(h, cx), 0);
        Array s = sum(a, Axis{axis}, Accumulation::compensated);
        CHECK(s.dtype() == DType::float32);
        test::require_close(cast(s, DType::float64).to_host(), cpu::sum(h, cx), 1e-7, 1e-5);
        test::require_close(cast(kiln::std(a, Axis{axis}, 0, Accumulation::compensated), DType::float64).to_host(),
                            cpu::std(h, cx), 1e-6, 1e-6);
    }
}

TEST_CASE("whole-array reductions split arrays larger than one binding", "[ops][reduce][large]") {
    ContextOptions o;
    o.max_binding_range = 4096;  // as if maxStorageBufferRange were 4 KiB
    Context ctx = test::context(o);
    for (DType t : {DType::float32, DType::float64, DType::int8, DType::uint16}) {
        INFO(dtype_name(t));
        HostArray h = test::random(Shape{7, 1031}, t, 11, 10, 50);
        // The extremes lie in later pieces, and equal values follow them.
        visit_dtype(t, [&](auto z) {
            using T = decltype(z);
            auto v = h.as<T>();
            v[500] = v[6000] = static_cast<T>(2);
            v[4000] = v[7000] = static_cast<T>(90);
        });
        Array a = Array::from_host(ctx, h);
        check_sum(sum(a), cpu::sum(h), abs_sum(h), 1e-14);
        check_sum(kiln::std(a), cpu::std(h), cpu::std(h), 1e-12);
        CHECK(argmin(a) == 500);
        CHECK(argmax(a) == 4000);
        CHECK(min(a) == 2);
        CHECK(max(a) == 90);
        CHECK(count_nonzero(a) == cpu::count_nonzero(h));
        CHECK_THROWS_AS(sum(a, Axis{0}), Unsupported);
    }
}

TEST_CASE("reductions refuse bad input clearly and the context stays usable", "[ops][reduce]") {
    Context ctx = test::context();
    Array null;
    CHECK_THROWS_AS(sum(null), InvalidArgument);
    CHECK_THROWS_WITH(mean_array(null), Catch::Contains("null"));
    CHECK_THROWS_WITH(argmax(null), Catch::Contains("argmax") && Catch::Contains("null"));
    CHECK_THROWS_AS(min(null, Axis{0}), InvalidArgument);
    Array a = Array::zeros(ctx, Shape{4, 5});
    CHECK_THROWS_WITH(sum(a, Axis{2}), Catch::Contains("axis 2") && Catch::Contains("(4, 5)") &&
                                           Catch::Contains("-2 .. 1"));
    CHECK_THROWS_AS(argmin(a, Axis{-3}), InvalidArgument);
    CHECK(sum(Array::full(ctx, Shape{4, 5}, 2.0)) == 40.0);
    test::require_close(count_nonzero(a, Axis{-1}).to_host(), HostArray::from(Shape{4}, std::vector<int32_t>(4, 0)));
}
