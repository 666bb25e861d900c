#pragma once
// The first bytes of an op's result read back: the copy is recorded behind
// the pending work that produces it (detail::download), so reading a fresh
// result is one submission and one wait.
#include <string>

#include "graph/context_state.hpp"
#include "graph/transfer.hpp"
#include "kiln/array.hpp"

namespace kiln::ops {

/// Waits for the work producing `a` and copies its first `bytes` into dst.
inline void read_back(const Array& a, void* dst, size_t bytes) {
    detail::ContextState& ctx = a.state();
    if (ctx.capturing())
        throw InvalidArgument("reading results inside a Graph capture: read them after Graph::run()");
    if (bytes > a.nbytes())
        throw InvalidArgument("read_back: " + std::to_string(bytes) + " bytes asked of an array of " +
                              std::to_string(a.nbytes()));
    if (bytes == 0) return;
    detail::download(ctx, a.storage(), dst, bytes);
}

}  // namespace kiln::ops
