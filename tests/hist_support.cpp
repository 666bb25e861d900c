#include "hist_support.hpp"

#include <string>

#include "hist_fixture.hpp"
#include "kiln/histogram.hpp"
#include "kiln/reference/histogram.hpp"

namespace kiln::test {

void check_histogram(const Context& ctx, const HostArray& h, int bins,
                     std::optional<std::pair<double, double>> range) {
    INFO(dtype_name(h.dtype) << " " << h.shape.str() << " bins " << bins
                             << (range ? " range " + std::to_string(range->first) + ".." +
                                             std::to_string(range->second)
                                       : std::string(" auto")));
    const cpu::Histogram want = cpu::histogram(h, bins, range);
    const Histogram got = histogram(Array::from_host(ctx, h), bins, range);
    CHECK(got.counts.dtype() == DType::uint32);
    CHECK(fixture::bits_of(got.edges) == fixture::bits_of(want.edges));
    CHECK(got.host_counts() == want.counts);
}

}  // namespace kiln::test
