// Stress cases for median and percentiles (select_radix: per digit, every
// workgroup counts into one histogram and the last to finish picks the
// digit and clears what it used): arrays of 2^20 elements and more, where
// the first pass also fills the fine histogram, with many ties, split
// prefixes and NaN; every dtype with few distinct values and batches of
// many percentiles. Every value exactly kiln::cpu::median / percentile's.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cpu/select.hpp"
#include "kiln/statistics.hpp"
#include "stress/stress_support.hpp"

using namespace kiln;
using namespace kiln::test::stress;
using test::check_same;

namespace {

// Median, each of `singles` alone (one or two ranks: the fine-histogram
// path) and all of `batch` at once (batches of targets) on the GPU, exactly
// as the reference.
void check_select(const Context& ctx, const HostArray& h, const std::vector<double>& singles,
                  const std::vector<double>& batch) {
    const Array a = Array::from_host(ctx, h);
    {
        INFO("median");
        check_same(median(a), cpu::median(h));
    }
    for (double q : singles) {
        INFO("percentile " << q);
        check_same(percentile(a, q), cpu::percentile(h, q));
    }
    const auto got = percentiles(a, batch);
    const auto want = cpu::percentiles(h, batch);
    for (size_t i = 0; i < batch.size(); ++i) {
        INFO("percentiles, q " << batch[i]);
        check_same(got[i], want[i]);
    }
}

}  // namespace

TEST_CASE("stress median: 2^20 elements and more, fine histogram, ties, split prefixes, NaN",
          "[stress][select]") {
    Context ctx = test::context();
    // 2^20 elements is where the fine histogram starts (select.cpp); the
    // scale only adds to it.
    const size_t n = scaled(size_t(1) << 20);
    const std::vector<double> single{37.5}, qs{37.5, 50};
    repeat([&](uint64_t rep) {
        const HostArray u = test::random(Shape{n + 1}, DType::float32, 100 + rep, 0, 1);
        const auto v = u.as<float>();
        auto make = [&](const char* what, size_t size, auto f) {
            std::vector<float> out(size);
            for (size_t i = 0; i < size; ++i) out[i] = f(i, v[i]);
            INFO(what << ", " << size << " elements");
            check_select(ctx, HostArray::from(Shape{size}, out), single, qs);
        };
        for (size_t size : {n, n + 1}) {  // an even count reads two middle values, an odd one one
            make("uniform", size, [](size_t, float x) { return x; });
            make("10% ties at the median", size,
                 [](size_t i, float x) { return i % 20 < 2 ? 0.5f : (i % 2 ? x / 2 : 0.5f + x / 2); });
            make("the two middle values under different prefixes", size,
                 [](size_t i, float x) { return i % 2 ? 0.5f + x / 2 : 2.0f + 2 * x; });
        }
        // Too many elements under the targets' prefix for the fine histogram.
        make("two thirds equal", n, [](size_t i, float x) { return i % 3 ? 0.25f : x; });
        make("all equal", n + 1, [](size_t, float) { return -1.5f; });
        make("sixteen distinct values", n, [](size_t, float x) { return std::floor(x * 16); });
        {
            INFO("a NaN");
            HostArray with_nan = u;
            with_nan.as<float>()[(rep * 7919) % with_nan.size()] = std::numeric_limits<float>::quiet_NaN();
            const Array a = Array::from_host(ctx, with_nan);
            check_same(median(a), cpu::median(with_nan));
            check_same(percentile(a, 37.5), cpu::percentile(with_nan, 37.5));
        }
        for (DType t : {DType::int32, DType::uint32}) {
            INFO(dtype_name(t));
            check_select(ctx, test::random(Shape{n}, t, 200 + rep, -1e10, 1e10), single, qs);
            check_select(ctx, test::random(Shape{n + 1}, t, 300 + rep, 0, 3), single, qs);
        }
    });
}

TEST_CASE("stress percentiles: equal values and many duplicates in every dtype, batches of targets",
          "[stress][select]") {
    Context ctx = test::context();
    std::vector<double> qs;
    for (int i = 0; i <= 20; ++i) qs.push_back(i * 4.95);
    qs.insert(qs.end(), {0.1, 99.9, 100, 50, 50});
    const std::vector<double> singles{0.1, 62.5, 100};
    repeat([&](uint64_t rep) {
        const Shape s{scaled(127), scaled(1031)};
        for (DType t : all_dtypes) {
            INFO(dtype_name(t));
            {
                INFO("values 0..3");
                check_select(ctx, test::random(s, t, 400 + rep, 0, 3), singles, qs);
            }
            {
                INFO("all equal");
                check_select(ctx, test::random(s, t, 500 + rep, 7, 7), singles, qs);
            }
            if (dtype_is_float(t)) {
                INFO("a NaN");
                HostArray h = test::random(s, t, 600 + rep, -1, 1);
                visit_dtype(t, [&](auto z) {
                    h.as<decltype(z)>()[(rep * 104729) % h.size()] =
                        std::numeric_limits<decltype(z)>::quiet_NaN();
                });
                check_select(ctx, h, singles, qs);  // NaN for every q, as NumPy
                CHECK(std::isnan(cpu::median(h)));
            }
        }
    });
}
