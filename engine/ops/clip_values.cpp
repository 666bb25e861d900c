// clip: numpy.clip(a, a_min, a_max) on the GPU, and its manifest entry.
// The whole op is three files: shaders/clip_values.comp, this one and
// tests/ops/test_clip_values.cpp; the `kiln clip` command comes from the
// entry. C++ reaches it through kiln::invoke("clip", ...).
#include <cmath>

#include "kiln/manifest.hpp"
#include "ops/kernel.hpp"

namespace kiln {
namespace {

struct ClipPush {
    uint32_t n, pad;
    std::array<uint32_t, 2> lo, hi;
};

Array clip_values(const Array& a, double lo, double hi) {
    if (!a) throw InvalidArgument("clip: a null Array was given");
    if (std::isnan(lo) || std::isnan(hi)) throw InvalidArgument("clip: the bounds must be numbers, not NaN");
    if (a.size() > ops::max_elements_per_binding(ops::services(a), dtype_size(a.dtype())))
        throw Unsupported("clip: " + std::to_string(a.size()) + " elements exceed one binding of this device");
    Array out = Array::empty(a.context(), a.shape(), a.dtype());
    const ClipPush p{static_cast<uint32_t>(a.size()), 0, ops::scalar_bits(lo, a.dtype()),
                     ops::scalar_bits(hi, a.dtype())};
    ops::Dispatcher(ops::services(a), ops::variant(ops::Shader::clip_values, a.dtype()), {256, 1, 1})
        .read(a)
        .write(out)
        .push(p)
        .stride_grid(a.size())
        .record();
    return out;
}

const OpFamily clip_family("elementwise", {
    {"clip",
     "Limit values to [--min, --max] as numpy.clip (NaN stays NaN; bounds converted to the dtype as cast converts)",
     {{"a", ArgKind::array, "Input array file"},
      {"min", ArgKind::number, "Lower bound"},
      {"max", ArgKind::number, "Upper bound (a lower bound above it gives the upper bound everywhere)"}},
     ResultKind::array, {}, {},
     [](const OpArgs& x) { return clip_values(x.array("a"), x.number("min"), x.number("max")); }},
});

}  // namespace
}  // namespace kiln
