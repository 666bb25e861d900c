// CPU reference of the rank and box filters (kiln/reference/rank_filters.hpp).
#include "kiln/reference/rank_filters.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cpu/nd_index.hpp"
#include "host/rank_rules.hpp"
#include "kiln/error.hpp"
#include "kiln/rank_filters.hpp"

namespace kiln::cpu {
namespace {

void require_input(const HostArray& a, const char* op) {
    if (a.shape.empty())
        throw InvalidArgument(std::string(op) + ": the input is empty; arrays with at least one element are accepted");
}

// Element i of a converted to T as a C cast converts (SciPy's output conversion).
template <typename T> T from_double(double v) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(std::trunc(v));
    return static_cast<T>(v);
}

}  // namespace

HostArray rank_filter(const HostArray& input, int64_t rank, const Footprint& footprint, NdMode mode,
                      double cval) {
    require_input(input, "rank_filter");
    const auto offsets = footprint.offsets(input.shape.ndim());
    const size_t k = resolve_rank(rank, offsets.size(), "rank_filter");
    const Index nz = Index(input.shape.z()), ny = Index(input.shape.y()), nx = Index(input.shape.x());
    HostArray out(input.shape, input.dtype);
    visit_dtype(input.dtype, [&](auto t) {
        using T = decltype(t);
        const auto src = input.as<T>();
        auto dst = out.as<T>();
        // As SciPy's NI_RankFilter: the window in double, cval included as given.
        std::vector<double> window(offsets.size());
        for (Index z = 0; z < nz; ++z)
            for (Index y = 0; y < ny; ++y)
                for (Index x = 0; x < nx; ++x) {
                    for (size_t j = 0; j < offsets.size(); ++j) {
                        const Index iz = nd_index(z + offsets[j][0], nz, mode),
                                    iy = nd_index(y + offsets[j][1], ny, mode),
                                    ix = nd_index(x + offsets[j][2], nx, mode);
                        window[j] = iz < 0 || iy < 0 || ix < 0
                                        ? cval
                                        : double(src[size_t((iz * ny + iy) * nx + ix)]);
                    }
                    std::nth_element(window.begin(), window.begin() + Index(k), window.end());
                    dst[size_t((z * ny + y) * nx + x)] = from_double<T>(window[k]);
                }
    });
    return out;
}

HostArray uniform_filter(const HostArray& input, const std::vector<int64_t>& sizes, NdMode mode,
                         double cval, const std::vector<int64_t>& origins) {
    require_input(input, "uniform_filter");
    HostArray current = input;
    const size_t nd = input.shape.ndim();
    for (const UniformPass& pass : uniform_passes(input.shape, sizes, origins, "uniform_filter")) {
        // The array as (outer, n, inner) around the pass's axis.
        size_t outer = 1, inner = 1;
        for (size_t a = 0; a < pass.axis; ++a) outer *= input.shape[a];
        for (size_t a = pass.axis + 1; a < nd; ++a) inner *= input.shape[a];
        const Index n = Index(input.shape[pass.axis]);
        const Index lo = -pass.size / 2 - pass.origin;
        HostArray next(input.shape, input.dtype);
        visit_dtype(input.dtype, [&](auto t) {
            using T = decltype(t);
            const auto src = current.as<T>();
            auto dst = next.as<T>();
            for (size_t o = 0; o < outer; ++o)
                for (size_t s = 0; s < inner; ++s)
                    for (Index i = 0; i < n; ++i) {
                        double sum = 0;
                        for (Index j = 0; j < pass.size; ++j) {
                            const Index at = nd_index(i + lo + j, n, mode);
                            sum += at < 0 ? cval : double(src[(o * size_t(n) + size_t(at)) * inner + s]);
                        }
                        dst[(o * size_t(n) + size_t(i)) * inner + s] = from_double<T>(sum / double(pass.size));
                    }
        });
        current = std::move(next);
    }
    return current;
}

}  // namespace kiln::cpu
