#pragma once
// A one-line progress bar on stderr, redrawn in place.
#include <cstddef>
#include <cstdio>
#include <string>

namespace sample {

class Progress {
public:
    Progress(std::string label, size_t total) : label_(std::move(label)), total_(total) {
        std::fflush(stdout);  // what was printed before comes first
        draw(0);
    }
    void update(size_t done) { draw(done); }
    void finish() { std::fputc('\n', stderr); }

private:
    void draw(size_t done) {
        const size_t width = 40, filled = total_ ? done * width / total_ : width;
        std::fprintf(stderr, "\r%-28s [%s%s] %zu/%zu", label_.c_str(), std::string(filled, '#').c_str(),
                     std::string(width - filled, '.').c_str(), done, total_);
        std::fflush(stderr);
    }
    std::string label_;
    size_t total_;
};

}  // namespace sample
