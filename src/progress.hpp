#pragma once
// A one-line progress bar on stderr for long commands, redrawn in place a
// few times a second, and only when stderr is a terminal.
#include <chrono>
#include <cstddef>
#include <string>

namespace kiln::cli {

class ProgressBar {
public:
    /// Draws nothing unless `enabled` and stderr is a terminal.
    ProgressBar(std::string label, size_t total, bool enabled);
    ~ProgressBar();
    /// `done` of total after `seconds`; redrawn at most 5 times a second,
    /// and always for the last item.
    void update(size_t done, double seconds);
    /// Clears the line (what follows starts at its beginning).
    void clear();

private:
    std::string label_;
    size_t total_;
    bool active_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_{};
};

/// "1:02:03" or "2:03" for a number of seconds.
std::string clock_time(double seconds);

}  // namespace kiln::cli
