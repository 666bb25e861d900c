#include "graph/storage.hpp"

#include "graph/context_state.hpp"

namespace kiln::detail {

Storage::~Storage() {
    // Deferred: the memory goes back once the last submission using it is done.
    if (alloc) ctx->retire(alloc, last_serial);
}

} // namespace kiln::detail
