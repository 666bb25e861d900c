// The CPU watershed against scikit-image's fixtures.
#include "distance_fixture.hpp"
#include "kiln/reference/watershed.hpp"

using namespace kiln;

TEST_CASE("cpu::watershed equals skimage on plateau-free fixtures", "[cpu][watershed]") {
    for (const test::fixture::WatershedCase& c : test::fixture::watershed_cases) {
        INFO(c.name);
        const HostArray mask = c.mask.values.empty() ? HostArray() : test::to_host(c.mask);
        const HostArray got =
            cpu::watershed(test::to_host(c.image), test::to_host(c.markers), mask, c.connectivity);
        test::require_close(got, test::to_host(c.expected), 0, 0);
    }
}
