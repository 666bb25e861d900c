#pragma once
// Ctrl-C (SIGINT) and SIGTERM for commands that can stop early and keep what
// they finished: the first signal sets a flag the command polls; a second one
// removes the files listed at install and exits at once with status 130.
#include <atomic>
#include <string>
#include <vector>

namespace kiln::cli {

class InterruptGuard {
public:
    /// Installs the handlers; `remove_on_exit`: files a second signal
    /// deletes before exiting (the outputs' temporaries).
    explicit InterruptGuard(const std::vector<std::string>& remove_on_exit);
    /// Puts the previous handlers back.
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    /// One more file for a second signal to remove (from the thread that
    /// made the guard; up to 16 files in all).
    void remove_on_exit_too(const std::string& path);
    /// Set by the first signal.
    const std::atomic<bool>& stop() const;
};

}  // namespace kiln::cli
