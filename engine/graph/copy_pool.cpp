#include "graph/copy_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kiln::detail {
namespace {

constexpr size_t min_part = 256 << 10;

unsigned configured_threads() {
    if (const char* env = std::getenv("KILN_COPY_THREADS")) {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && v >= 1 && v <= 64) return unsigned(v);
    }
    return std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
}

// How long a thread polls for work (a worker for the next task, the caller
// for its parts) before it blocks. Waking a blocked thread takes 10-50 us in
// a virtual machine, as long as copying a 1 MiB part; a transfer's pieces
// come back to back, so the threads stay awake for the whole transfer.
constexpr auto spin = std::chrono::microseconds(200);

// Worker threads taking copy tasks from one queue. Detached at exit: the
// process may end while a context still exists elsewhere, and joining in a
// static destructor could wait on a task that never comes.
class Pool {
public:
    explicit Pool(unsigned workers) {
        for (unsigned i = 0; i < workers; ++i) std::thread([this] { work(); }).detach();
    }
    void post(std::function<void()> task) {
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back(std::move(task));
            queued_.fetch_add(1, std::memory_order_release);
        }
        ready_.notify_one();
    }

private:
    bool take(std::function<void()>& task) {
        std::lock_guard lock(mutex_);
        if (tasks_.empty()) return false;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        queued_.fetch_sub(1, std::memory_order_relaxed);
        return true;
    }
    void work() {
        for (;;) {
            std::function<void()> task;
            const auto until = std::chrono::steady_clock::now() + spin;
            while (!(queued_.load(std::memory_order_acquire) > 0 && take(task)) &&
                   std::chrono::steady_clock::now() < until) {
            }
            if (!task) {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return !tasks_.empty(); });
                task = std::move(tasks_.front());
                tasks_.pop_front();
                queued_.fetch_sub(1, std::memory_order_relaxed);
            }
            task();
        }
    }
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    std::atomic<size_t> queued_{0};
};

// Counts unfinished parts; the caller polls, then blocks, until none is left.
// Every count goes down under the mutex, and the caller takes the mutex once
// more before it returns, so no part still touches the latch (on the
// caller's stack) when it goes.
struct Latch {
    std::atomic<unsigned> left;
    std::mutex mutex;
    std::condition_variable done;
    explicit Latch(unsigned n) : left(n) {}
    void arrive() {
        std::lock_guard lock(mutex);
        if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) done.notify_all();
    }
    void wait() {
        const auto until = std::chrono::steady_clock::now() + spin;
        while (left.load(std::memory_order_acquire) != 0 && std::chrono::steady_clock::now() < until) {
        }
        std::unique_lock lock(mutex);
        done.wait(lock, [&] { return left.load(std::memory_order_acquire) == 0; });
    }
};

}  // namespace

namespace {
std::atomic<unsigned> thread_count{0};
}  // namespace

unsigned copy_threads() {
    unsigned n = thread_count.load(std::memory_order_relaxed);
    if (n == 0) {
        unsigned expected = 0;
        thread_count.compare_exchange_strong(expected, configured_threads());
        n = thread_count.load(std::memory_order_relaxed);
    }
    return n;
}

void set_copy_threads(unsigned n) {
    thread_count.store(std::clamp(n, 1u, 64u), std::memory_order_relaxed);
}

void parallel_copy(std::byte* dst, const std::byte* src, size_t n) {
    const unsigned parts = unsigned(std::min<size_t>(copy_threads(), n / min_part));
    if (parts <= 1) {
        std::memcpy(dst, src, n);
        return;
    }
    // Never deleted: see Pool. Its workers are started once; a later
    // set_copy_threads() with more threads only splits copies finer.
    static Pool* const pool = new Pool(std::max(copy_threads(), 8u) - 1);
    // Parts end on 4 KiB boundaries, so no two threads write one page.
    const size_t part = ((n + parts - 1) / parts + 4095) / 4096 * 4096;
    Latch latch(parts - 1);
    for (unsigned t = 1; t < parts; ++t) {
        const size_t off = size_t(t) * part;
        if (off >= n) {
            latch.arrive();
            continue;
        }
        const size_t len = std::min(part, n - off);
        pool->post([=, &latch] {
            std::memcpy(dst + off, src + off, len);
            latch.arrive();
        });
    }
    std::memcpy(dst, src, std::min(part, n));
    latch.wait();
}

}  // namespace kiln::detail
