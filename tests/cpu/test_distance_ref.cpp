// The CPU distance transform against SciPy's fixtures.
#include "distance_fixture.hpp"
#include "kiln/reference/distance.hpp"

using namespace kiln;

TEST_CASE("cpu::distance_transform_edt equals SciPy on the fixtures", "[cpu][distance]") {
    for (const test::fixture::EdtCase& c : test::fixture::edt_cases) {
        INFO(c.name);
        const HostArray in = test::to_host(c.input);
        const HostArray got = cpu::distance_transform_edt(in, c.sampling, DType::float64);
        // Unit sampling: whole squared distances, the same sqrt. Sampled: the
        // same sum order, up to an equally near zero's rounding (2 ulps).
        test::require_close(got, test::to_host(c.expected), c.sampling.empty() ? 0 : 5e-16, 0);
    }
}
