#include "graph/copy_pool.hpp"

#include <algorithm>
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
        }
        ready_.notify_one();
    }

private:
    void work() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return !tasks_.empty(); });
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
};

// Counts finished parts; the caller waits for all of them.
struct Latch {
    std::mutex mutex;
    std::condition_variable done;
    unsigned left;
    void arrive() {
        std::lock_guard lock(mutex);
        if (--left == 0) done.notify_all();
    }
    void wait() {
        std::unique_lock lock(mutex);
        done.wait(lock, [&] { return left == 0; });
    }
};

}  // namespace

unsigned copy_threads() {
    static const unsigned n = configured_threads();
    return n;
}

void parallel_copy(std::byte* dst, const std::byte* src, size_t n) {
    const unsigned parts = unsigned(std::min<size_t>(copy_threads(), n / min_part));
    if (parts <= 1) {
        std::memcpy(dst, src, n);
        return;
    }
    // Never deleted: see Pool.
    static Pool* const pool = new Pool(copy_threads() - 1);
    // Parts end on 4 KiB boundaries, so no two threads write one page.
    const size_t part = ((n + parts - 1) / parts + 4095) / 4096 * 4096;
    Latch latch;
    latch.left = parts - 1;
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
