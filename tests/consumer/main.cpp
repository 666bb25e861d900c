// An application of an installed kiln (scripts/consumer-test builds it twice:
// with find_package(kiln), cmake/, and with pkg-config, pkgconfig/). It sees
// the installed headers and libkiln.so alone: it opens a Context (the best
// device; lavapipe in CI), adds two arrays, clips one through the manifest
// (kiln::invoke), catches a kiln::InvalidArgument thrown inside the library,
// and checks every value against its own. Exits 1 on any mismatch.
#include <kiln/kiln.hpp>

#include <algorithm>
#include <cstdio>
#include <variant>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what, size_t i, double got, double want) {
    if (!ok && failures++ < 10) std::printf("consumer: %s[%zu] = %g, expected %g\n", what, i, got, want);
}

}  // namespace

int main() {
    try {
        kiln::Context ctx;
        const size_t n = 4097;  // not a multiple of any workgroup size
        std::vector<float> a(n), b(n);
        for (size_t i = 0; i < n; ++i) {
            a[i] = 0.25f * static_cast<float>(i) - 300.0f;
            b[i] = 1000.0f - 0.5f * static_cast<float>(i);
        }
        kiln::Array x = kiln::Array::from(ctx, kiln::Shape{n}, a);
        kiln::Array y = kiln::Array::from(ctx, kiln::Shape{n}, b);

        std::vector<float> sum = kiln::add(x, y).to_vector<float>();
        for (size_t i = 0; i < n; ++i) check(sum[i] == a[i] + b[i], "add", i, sum[i], a[i] + b[i]);

        kiln::OpArgs args(ctx);
        args.set("a", x).set("min", -100.0).set("max", 250.5);
        std::vector<float> clipped = std::get<kiln::Array>(kiln::invoke("clip", args)).to_vector<float>();
        for (size_t i = 0; i < n; ++i) {
            float want = std::clamp(a[i], -100.0f, 250.5f);
            check(clipped[i] == want, "clip", i, clipped[i], want);
        }

        // An exception thrown in libkiln.so, caught here by its type.
        bool caught = false;
        try {
            kiln::invoke("clip", kiln::OpArgs(ctx).set("a", x));  // no min, no max
        } catch (const kiln::InvalidArgument&) {
            caught = true;
        }
        if (!caught) {
            std::printf("consumer: invoke(\"clip\") without bounds threw no kiln::InvalidArgument\n");
            ++failures;
        }

        std::printf("consumer: kiln %s on %s: add and clip of %zu values, %d mismatches\n", KILN_VERSION,
                    ctx.device().name.c_str(), n, failures);
        return failures == 0 ? 0 : 1;
    } catch (const kiln::Error& e) {
        std::printf("consumer: kiln::Error: %s\n", e.what());
        return 1;
    }
}
