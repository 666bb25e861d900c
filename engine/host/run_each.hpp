#pragma once
// Host work split over threads of its own: a batch's block tables
// (Bslz4Decoder), the devices' set-up of a stack run (integrate_stack).
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace kiln {

/// Runs task(0) ... task(n - 1) at once, task(0) on the calling thread and
/// each other on a thread of its own, and returns when every one is done;
/// then rethrows the exception of the lowest-numbered task that threw.
template <class Task>
void run_each(size_t n, const Task& task) {
    if (n == 0) return;
    std::vector<std::exception_ptr> failed(n);
    const auto run = [&](size_t k) {
        try {
            task(k);
        } catch (...) {
            failed[k] = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(n - 1);
    for (size_t k = 1; k < n; ++k) threads.emplace_back(run, k);
    run(0);
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : failed)
        if (e) std::rethrow_exception(e);
}

}  // namespace kiln
