// The CPU reference of the morphology (kiln/reference/morphology.hpp)
// against scipy.ndimage (tests/data/make_morphology.py), and kiln::Footprint.
#include <catch2/catch.hpp>

#include <string>

#include "cpu_support.hpp"
#include "kiln/error.hpp"
#include "kiln/reference/morphology.hpp"
#include "morph_fixture.hpp"

namespace kiln {
namespace {

using test::morph::MorphCase;

// a - b in the dtype, wrapping as NumPy's integer subtraction does.
HostArray difference(const HostArray& a, const HostArray& b) {
    HostArray out(a.shape, a.dtype);
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        auto x = a.as<T>(), y = b.as<T>();
        auto o = out.as<T>();
        for (size_t i = 0; i < o.size(); ++i) {
            if constexpr (std::is_floating_point_v<T>)
                o[i] = x[i] - y[i];
            else
                o[i] = static_cast<T>(static_cast<int64_t>(x[i]) - static_cast<int64_t>(y[i]));
        }
    });
    return out;
}

HostArray run_reference(const MorphCase& c) {
    const HostArray in = test::morph::load(c.input);
    const Footprint f = test::morph::footprint_of(c, in.shape.ndim());
    const std::string op = c.op;
    if (test::morph::is_binary(c)) {
        const HostArray mask = *c.mask ? test::morph::load(c.mask) : HostArray{};
        const HostArray* m = *c.mask ? &mask : nullptr;
        const bool bv = c.border_value != 0;
        if (op == "binary_erosion") return cpu::binary_erosion(in, f, c.iterations, m, bv);
        if (op == "binary_dilation") return cpu::binary_dilation(in, f, c.iterations, m, bv);
        if (op == "binary_opening")
            return cpu::binary_dilation(cpu::binary_erosion(in, f, c.iterations, m, bv), f, c.iterations, m, bv);
        if (op == "binary_closing")
            return cpu::binary_erosion(cpu::binary_dilation(in, f, c.iterations, m, bv), f, c.iterations, m, bv);
        return cpu::binary_fill_holes(in, f);
    }
    const std::vector<double> h = test::morph::heights_of(c);
    const NdMode mode = parse_nd_mode(c.mode);
    auto ero = [&](const HostArray& a) { return cpu::grey_erosion(a, f, h, mode, c.cval); };
    auto dil = [&](const HostArray& a) { return cpu::grey_dilation(a, f, h, mode, c.cval); };
    if (op == "minimum_filter") return cpu::min_or_max_filter(in, f, {}, mode, c.cval, true);
    if (op == "maximum_filter") return cpu::min_or_max_filter(in, f, {}, mode, c.cval, false);
    if (op == "grey_erosion") return ero(in);
    if (op == "grey_dilation") return dil(in);
    if (op == "grey_opening") return dil(ero(in));
    if (op == "grey_closing") return ero(dil(in));
    if (op == "white_tophat") return difference(in, dil(ero(in)));
    if (op == "black_tophat") return difference(ero(dil(in)), in);
    return difference(dil(in), ero(in));
}

TEST_CASE("cpu morphology equals scipy.ndimage", "[morphology][cpu]") {
    for (const MorphCase& c : test::morph::morph_cases) {
        INFO(c.name);
        const HostArray want = test::morph::load(c.expected);
        const HostArray got = run_reference(c);
        REQUIRE(got.dtype == want.dtype);
        REQUIRE(got.shape == want.shape);
        test::require_close(got, want, 0, 0);  // min, max and booleans: exact
    }
}

TEST_CASE("footprint reflection mirrors every offset, even sizes and origins too", "[morphology][cpu]") {
    for (const auto& [sizes, origin] : std::vector<std::pair<std::vector<int64_t>, std::vector<int>>>{
             {{4}, {0}}, {{4}, {1}}, {{4}, {-2}}, {{3, 4}, {1, -1}}, {{2, 2, 5}, {-1, 0, 2}}, {{5}, {-2}}}) {
        Footprint f = Footprint::box(sizes);
        for (size_t i = 0; i < f.mask.size(); ++i) f.mask[i] = (i * 7 + 3) % 5 != 0;
        f.origin = origin;
        const auto a = f.offsets(sizes.size()), b = f.reflected().offsets(sizes.size());
        REQUIRE(a.size() == b.size());
        // reflected() lists the elements in reverse order: offset k mirrors n-1-k
        for (size_t k = 0; k < a.size(); ++k) {
            const auto& m = b[a.size() - 1 - k];
            CHECK(m == std::array<int, 3>{-a[k][0], -a[k][1], -a[k][2]});
        }
    }
}

TEST_CASE("footprint origins, structures and their errors", "[morphology][cpu]") {
    Footprint f = Footprint::box({4});
    f.origin = {1};
    CHECK(f.offsets(1).front() == std::array<int, 3>{0, 0, -3});  // centre 4/2 + 1
    f.origin = {2};
    CHECK_THROWS_AS(f.offsets(1), InvalidArgument);  // 4/2 + 2 lies outside
    f.origin = {-3};
    CHECK_THROWS_AS(f.offsets(1), InvalidArgument);
    f.origin = {0, 0};
    CHECK_THROWS_AS(f.offsets(1), InvalidArgument);
    CHECK(Footprint::binary_structure(2, 1).count() == 5);
    CHECK(Footprint::binary_structure(3, 2).count() == 19);
    CHECK(Footprint::binary_structure(3, 3).is_box());
    CHECK_THROWS_AS(Footprint::box({0}), InvalidArgument);
    CHECK_THROWS_AS(Footprint::box({1, 2, 3, 4}), InvalidArgument);
    CHECK_THROWS_AS(Footprint::box({3, 3}).offsets(1), InvalidArgument);
    CHECK_THROWS_AS(Footprint::from_host(HostArray(Shape{3, 3}, DType::uint8)), InvalidArgument);
}

}  // namespace
}  // namespace kiln
