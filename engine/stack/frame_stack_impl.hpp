#pragma once
// FrameStack's contents (kiln/stack_integration.hpp), shared by its file
// (frame_stack.cpp: opening the inputs) and integrate_stack's
// (stack_integration.cpp: reading their frames).
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "io/file.hpp"
#include "kiln/io.hpp"
#include "kiln/stack_integration.hpp"

namespace kiln {

struct FrameStack::Impl {
    std::vector<Part> parts;
    // Per part: the HDF5 reader with a plain descriptor of its file, or the
    // array file's contents.
    std::vector<std::unique_ptr<io::FrameStackReader>> readers;
    std::vector<std::unique_ptr<io::File>> files;
    std::vector<std::optional<HostArray>> arrays;
    size_t frames = 0, rows = 0, cols = 0;
    DType dtype = DType::float32;
    bool single = false, gpu_decodable = true;

    size_t part_of(size_t frame) const {
        const auto it = std::upper_bound(parts.begin(), parts.end(), frame,
                                         [](size_t f, const Part& p) { return f < p.first; });
        return size_t(it - parts.begin()) - 1;
    }
};

}  // namespace kiln
