#include "interrupt.hpp"

#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>

namespace kiln::cli {

namespace {

std::atomic<bool> stop_flag{false};
std::atomic<int> signals_seen{0};
// The files a second signal removes: written before they are counted, so the
// handler reads only complete names (no allocation, no lock).
constexpr size_t most_doomed = 16;
std::array<std::array<char, 4096>, most_doomed> doomed;
std::atomic<size_t> doomed_count{0};
struct sigaction previous_int, previous_term;

extern "C" void on_signal(int) {
    if (signals_seen.fetch_add(1) == 0) {
        stop_flag.store(true);
        return;
    }
    const size_t n = doomed_count.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) ::unlink(doomed[i].data());  // async-signal-safe
    static const char message[] = "\nkiln: interrupted again: stopped at once, nothing written\n";
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message, sizeof message - 1);
    ::_exit(130);
}

}  // namespace

InterruptGuard::InterruptGuard(const std::vector<std::string>& remove_on_exit) {
    doomed_count.store(0);
    for (const std::string& f : remove_on_exit) remove_on_exit_too(f);
    stop_flag.store(false);
    signals_seen.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &previous_int);
    sigaction(SIGTERM, &sa, &previous_term);
}

InterruptGuard::~InterruptGuard() {
    sigaction(SIGINT, &previous_int, nullptr);
    sigaction(SIGTERM, &previous_term, nullptr);
}

void InterruptGuard::remove_on_exit_too(const std::string& path) {
    const size_t n = doomed_count.load();
    if (n == most_doomed || path.size() >= doomed[n].size()) return;  // not removed: a leftover, nothing worse
    std::memcpy(doomed[n].data(), path.c_str(), path.size() + 1);
    doomed_count.store(n + 1, std::memory_order_release);
}

const std::atomic<bool>& InterruptGuard::stop() const { return stop_flag; }

}  // namespace kiln::cli
