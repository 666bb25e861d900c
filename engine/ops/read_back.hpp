#pragma once
// The first bytes of an op's result read back: the copy is recorded behind
// the pending work that produces it (OpServices::read), so reading a fresh
// result is one submission, read once it is done.
#include <string>

#include "graph/op_services.hpp"
#include "kiln/array.hpp"

namespace kiln::ops {

/// Copies the first `bytes` of `a` into dst once the work producing it has run.
inline void read_back(const Array& a, void* dst, size_t bytes) {
    detail::OpServices& ctx = services(a);
    if (ctx.capturing())
        throw InvalidArgument("reading results inside a Graph capture: read them after Graph::run()");
    if (bytes > a.nbytes())
        throw InvalidArgument("read_back: " + std::to_string(bytes) + " bytes asked of an array of " +
                              std::to_string(a.nbytes()));
    if (bytes == 0) return;
    ctx.read(a, dst, bytes);
}

}  // namespace kiln::ops
