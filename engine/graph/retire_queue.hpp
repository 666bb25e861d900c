#pragma once
// Deferred destruction: a GPU object released while submitted work may still
// use it (an array's memory when its last handle goes, ...) waits here until
// the submission after which it is free has finished, and is destroyed then.
// One queue for every kind of object, in release order, as Granite's
// per-frame destruction lists; the scheduler reports finished submissions.
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>

namespace kiln::detail {

class RetireQueue {
public:
    /// `mutex`: the context's lock, taken by every member.
    explicit RetireQueue(std::recursive_mutex& mutex) : mutex_(mutex) {}
    RetireQueue(const RetireQueue&) = delete;
    RetireQueue& operator=(const RetireQueue&) = delete;
    /// Destroys what is left: its owner makes sure the device is idle first.
    ~RetireQueue() = default;

    /// Takes `object` (any movable owner of GPU objects: vk::UniqueAllocation,
    /// vk::Fence, ...) and destroys it once submission `after` has finished:
    /// at once if it has. An object waits behind those released before it.
    template <typename T> void release(uint64_t after, T object) {
        std::lock_guard guard(mutex_);
        if (after <= completed_) return;  // destroyed with the argument
        queue_.push_back({after, std::make_unique<Held<T>>(std::move(object))});
    }

    /// Notes that submissions up to `completed` have finished and destroys
    /// the objects at the front of the queue that waited for them.
    void collect(uint64_t completed);

private:
    struct Object {
        virtual ~Object() = default;
    };
    template <typename T> struct Held final : Object {
        explicit Held(T o) : object(std::move(o)) {}
        T object;
    };

    std::recursive_mutex& mutex_;
    uint64_t completed_ = 0;  // the last submission known to have finished
    std::deque<std::pair<uint64_t, std::unique_ptr<Object>>> queue_;
};

}  // namespace kiln::detail
