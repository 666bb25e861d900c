#include "measure_support.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>

#include "kiln/reference/measure.hpp"
#include "ops/measure_detail.hpp"

namespace kiln::test {

namespace {

// |got - want| <= rtol * max(scale, |want|), NaN only for NaN.
bool near(double got, double want, double rtol, double scale) {
    if (std::isnan(want)) return std::isnan(got);
    return std::abs(got - want) <= rtol * std::max(scale, std::abs(want));
}

// One entry against the reference. With `report` every comparison is a
// CHECK that names the field and both values; without, a plain test, so
// tables of millions of labels compare quickly.
bool same_entry(const LabelStats& g, const LabelStats& w, double rtol, bool report) {
    bool ok = true;
    auto expect = [&](bool cond, const char* field, double got, double want) {
        if (report) {
            INFO(field << ": got " << std::setprecision(17) << got << " want " << want);
            CHECK(cond);
        }
        ok = ok && cond;
    };
    auto expect_pos = [&](bool cond, const char* field) {
        if (report) {
            INFO(field);
            CHECK(cond);
        }
        ok = ok && cond;
    };
    expect(g.label == w.label, "label", g.label, w.label);
    expect(g.count == w.count, "count", double(g.count), double(w.count));
    const double range = std::isnan(w.min) ? 0 : std::max(std::abs(w.min), std::abs(w.max));
    expect(near(g.sum, w.sum, rtol, range * double(w.count)), "sum", g.sum, w.sum);
    expect(near(g.mean, w.mean, rtol, range), "mean", g.mean, w.mean);
    expect(near(g.variance, w.variance, rtol, range * range), "variance", g.variance, w.variance);
    expect(near(g.std, w.std, std::sqrt(rtol), range), "std", g.std, w.std);
    if (std::isnan(w.min)) {
        expect(std::isnan(g.min), "min", g.min, w.min);
        expect(std::isnan(g.max), "max", g.max, w.max);
    } else {
        expect(g.min == w.min, "min", g.min, w.min);
        expect(g.max == w.max, "max", g.max, w.max);
    }
    expect_pos(g.min_pos == w.min_pos, "min_pos");
    expect_pos(g.max_pos == w.max_pos, "max_pos");
    for (int d = 0; d < 3; ++d)
        expect(near(g.center_of_mass[d], w.center_of_mass[d], rtol, 1), "center_of_mass", g.center_of_mass[d],
               w.center_of_mass[d]);
    expect_pos(g.bbox_start == w.bbox_start, "bbox_start");
    expect_pos(g.bbox_stop == w.bbox_stop, "bbox_stop");
    return ok;
}

}  // namespace

void require_stats(const std::vector<LabelStats>& got, const std::vector<LabelStats>& want, double rtol) {
    REQUIRE(got.size() == want.size());
    size_t bad = 0;
    for (size_t k = 0; k < got.size(); ++k) {
        if (same_entry(got[k], want[k], rtol, false)) continue;
        if (bad++ < 8) {  // the first few in detail
            INFO("entry " << k << " label " << want[k].label << " count " << want[k].count);
            same_entry(got[k], want[k], rtol, true);
        }
    }
    INFO(bad << " of " << got.size() << " entries differ");
    CHECK(bad == 0);
}

void require_measure_same(const Context& ctx, const HostArray& image, const HostArray& labels,
                          std::span<const int32_t> index) {
    const auto want = cpu::measure(image, labels, index);
    Array img = Array::from_host(ctx, image), lab = Array::from_host(ctx, labels);
    {
        INFO("float64 accumulation");
        require_stats(measure(img, lab, index), want, 1e-12);
    }
    for (uint32_t small : {0u, 64u}) {
        INFO("float64 accumulation, small slots up to " << small);
        require_stats(ops::measure_with(img, lab, index, true, small), want, 1e-12);
    }
    if (image.dtype != DType::float64) {  // float64 images take float64 accumulation only
        INFO("compensated float32 accumulation");
        require_stats(ops::measure_with(img, lab, index, false), want, 2e-6);
    }
}

HostArray random_image(Shape shape, DType t, uint64_t seed) {
    HostArray u = random(shape, DType::float64, seed, 1, 100);
    HostArray a(shape, t);
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        auto out = a.as<T>();
        for (size_t i = 0; i < out.size(); ++i) {
            const double v = u.as<double>()[i];
            out[i] = dtype_is_float(t) ? T(v) : T(std::floor(v / 4));  // integers: 0..24, many ties
        }
    });
    return a;
}

}  // namespace kiln::test
