#pragma once
// A small result read back with one submission and one wait: the copy into
// the staging ring is recorded after the pending work that produces it.
// (Array::pull of device-local memory submits that work and waits first,
// then copies in a submission of its own: two round trips.)
#include <cstring>
#include <vector>

#include "graph/context_state.hpp"
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
    if (bytes > ctx.staging_capacity() / 4) {  // large: pull's chunked transfer
        std::vector<std::byte> all(a.nbytes());
        a.pull(all.data(), all.size());
        std::memcpy(dst, all.data(), bytes);
        return;
    }
    detail::Slice slice = ctx.staging(bytes, true);
    detail::BufferRef src{a.storage(), VK_NULL_HANDLE, 0, bytes, detail::Access::read};
    detail::BufferRef to{nullptr, slice.buffer, slice.offset, bytes, detail::Access::write};
    ctx.record(detail::Node{detail::Copy{"pull", std::move(src), std::move(to), bytes}});
    ctx.sync();
    std::memcpy(dst, slice.mapped, bytes);
    ctx.release_staging(slice);
}

}  // namespace kiln::ops
