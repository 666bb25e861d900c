#include "progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace kiln::cli {

std::string clock_time(double seconds) {
    const long s = std::lround(std::max(0.0, seconds));
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

ProgressBar::ProgressBar(std::string label, size_t total, bool enabled)
    : label_(std::move(label)), total_(total), active_(enabled && ::isatty(STDERR_FILENO)) {}

ProgressBar::~ProgressBar() { clear(); }

void ProgressBar::update(size_t done, double seconds) {
    if (!active_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const size_t width = 30, filled = total_ ? done * width / total_ : width;
    const double rate = seconds > 0 ? double(done) / seconds : 0;
    const std::string left = rate > 0 ? clock_time(double(total_ - done) / rate) + " left" : "";
    std::fprintf(stderr, "\r\033[K%s [%s%s] %zu/%zu frames  %.1f frames/s  %s", label_.c_str(),
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), done, total_, rate,
                 left.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void ProgressBar::clear() {
    if (!drawn_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
}

}  // namespace kiln::cli
