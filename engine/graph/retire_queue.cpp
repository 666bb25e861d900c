#include "graph/retire_queue.hpp"

namespace kiln::detail {

void RetireQueue::collect(uint64_t completed) {
    std::lock_guard guard(mutex_);
    completed_ = completed;
    while (!queue_.empty() && queue_.front().first <= completed_) {
        // Out of the queue before it goes: its destructor may release more.
        std::unique_ptr<Object> object = std::move(queue_.front().second);
        queue_.pop_front();
    }
}

}  // namespace kiln::detail
