// Reductions along one axis: one dispatch of reduce_axis, laid out so that
// neighbouring threads read neighbouring elements.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "kiln/reduce.hpp"
#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

enum class AxisOp : uint32_t { sum, mean, var, std, min, max, argmin, argmax, count };

// The array around the reduced axis: outer x n x inner, and the result's shape.
struct AxisLayout {
    uint64_t outer = 1, n = 1, inner = 1;
    Shape reduced;
};

AxisLayout layout_of(const Array& a, Axis axis, const char* fn) {
    if (!a)
        throw InvalidArgument(std::string(fn) +
                              ": the array is null (default-constructed); pass an array made with "
                              "Array::empty, Array::from_host or an operation");
    const int ndim = static_cast<int>(a.ndim());
    if (axis.index < -ndim || axis.index >= ndim)
        throw InvalidArgument(std::string(fn) + ": axis " + std::to_string(axis.index) +
                              " is out of range for an array of shape " + a.shape().str() + "; accepted: " +
                              std::to_string(-ndim) + " .. " + std::to_string(ndim - 1));
    const size_t ax = static_cast<size_t>(axis.index < 0 ? axis.index + ndim : axis.index);
    AxisLayout l;
    size_t dims[3];
    size_t kept = 0;
    for (size_t i = 0; i < a.ndim(); ++i) {
        if (i < ax) l.outer *= a.shape()[i];
        if (i > ax) l.inner *= a.shape()[i];
        if (i == ax) l.n = a.shape()[i];
        else dims[kept++] = a.shape()[i];
    }
    if (kept == 0) dims[kept++] = 1;
    l.reduced = Shape::of(kept, dims);
    return l;
}

Array reduce_axis(const Array& a, Axis axis, AxisOp op, int ddof, Accumulation acc, const char* fn) {
    const AxisLayout l = layout_of(a, axis, fn);
    detail::OpServices& ctx = ops::services(a);
    const bool has64 = ctx.enabled().float64;
    if (a.dtype() == DType::float64 && !has64)
        throw Unsupported(std::string(fn) + ": float64 arrays need a device with shaderFloat64, which '" +
                          ctx.info().name + "' lacks; cast to float32 first");
    const bool sums = op <= AxisOp::std;
    if (!sums && op != AxisOp::min && op != AxisOp::max &&
        l.n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
        throw InvalidArgument(std::string(fn) + ": an axis of length " + std::to_string(l.n) +
                              " does not fit the int32 result; axes up to 2^31 - 1 are accepted");
    if (sums && acc == Accumulation::float64 && !has64)
        throw Unsupported(std::string(fn) + ": float64 accumulation needs a device with shaderFloat64, which '" +
                          ctx.info().name + "' lacks; use Accumulation::automatic or compensated");
    // The compensated variant's min/max/arg/count code has no float64 in it.
    const bool f64 = a.dtype() == DType::float64 || (has64 && acc != Accumulation::compensated && sums);
    DType out_t = DType::int32;
    if (sums) out_t = f64 ? DType::float64 : DType::float32;
    else if (op == AxisOp::min || op == AxisOp::max) out_t = a.dtype();
    Array out = Array::empty(a.context(), l.reduced, out_t);

    // Outputs j with stride sj between them, each reducing n elements with
    // stride si. A reduction along the last axis (inner = 1) makes the rows
    // the outputs: one workgroup per row when rows are long, else 32 rows
    // per workgroup with 8 threads each.
    struct {
        uint32_t outer, n, inner, so, si, sj, op, pad;
        std::array<uint32_t, 2> n_bits, div_bits;
    } push{};
    std::array<uint32_t, 3> local{32, 8, 1};
    if (l.inner == 1) {
        push.outer = 1;
        push.inner = static_cast<uint32_t>(l.outer);
        push.so = 0;
        push.si = 1;
        push.sj = static_cast<uint32_t>(l.n);
        if (l.n >= 256) local = {1, 256, 1};
    } else {
        push.outer = static_cast<uint32_t>(l.outer);
        push.inner = static_cast<uint32_t>(l.inner);
        push.so = static_cast<uint32_t>(l.n * l.inner);
        push.si = static_cast<uint32_t>(l.inner);
        push.sj = 1;
    }
    push.n = static_cast<uint32_t>(l.n);
    push.op = static_cast<uint32_t>(op);
    push.n_bits = ops::accumulator_bits(static_cast<double>(l.n), f64);
    push.div_bits = ops::accumulator_bits(std::max(static_cast<double>(l.n) - static_cast<double>(ddof), 0.0), f64);

    const ops::KernelId kernel =
        ops::variant(ops::Shader::reduce_axis, a.dtype(), f64 ? DType::float64 : DType::float32);
    Dispatcher d(ctx, kernel, local);
    // Both grid dimensions loop in the kernel: the grid only needs to fill the GPU.
    const uint64_t gx = (push.inner + d.local()[0] - 1) / d.local()[0];
    d.read(a).write(out).push(push);
    d.groups(static_cast<uint32_t>(std::min<uint64_t>(gx, 65535)),
             static_cast<uint32_t>(std::min<uint64_t>(push.outer, 65535)));
    d.record();
    return out;
}

} // namespace

Array sum(const Array& a, Axis axis, Accumulation acc) { return reduce_axis(a, axis, AxisOp::sum, 0, acc, "sum"); }
Array mean(const Array& a, Axis axis, Accumulation acc) {
    return reduce_axis(a, axis, AxisOp::mean, 0, acc, "mean");
}
Array var(const Array& a, Axis axis, int ddof, Accumulation acc) {
    return reduce_axis(a, axis, AxisOp::var, ddof, acc, "var");
}
Array std(const Array& a, Axis axis, int ddof, Accumulation acc) {
    return reduce_axis(a, axis, AxisOp::std, ddof, acc, "std");
}
Array min(const Array& a, Axis axis) {
    return reduce_axis(a, axis, AxisOp::min, 0, Accumulation::automatic, "min");
}
Array max(const Array& a, Axis axis) {
    return reduce_axis(a, axis, AxisOp::max, 0, Accumulation::automatic, "max");
}
Array argmin(const Array& a, Axis axis) {
    return reduce_axis(a, axis, AxisOp::argmin, 0, Accumulation::automatic, "argmin");
}
Array argmax(const Array& a, Axis axis) {
    return reduce_axis(a, axis, AxisOp::argmax, 0, Accumulation::automatic, "argmax");
}
Array count_nonzero(const Array& a, Axis axis) {
    return reduce_axis(a, axis, AxisOp::count, 0, Accumulation::automatic, "count_nonzero");
}

} // namespace kiln
