// FrameStack (kiln/stack_integration.hpp): the frames of one or several
// files, numbered across them; their readers opened here, their frames read
// by integrate_stack.
#include "kiln/stack_integration.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "kiln/error.hpp"
#include "stack/frame_stack_impl.hpp"

namespace kiln {

namespace {

bool is_hdf5(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".h5" || ext == ".hdf5" || ext == ".nxs" || ext == ".hdf";
}

std::string frames_text(const std::string& what, size_t frames, size_t rows, size_t cols, DType t) {
    return what + " holds frames of " + std::to_string(rows) + "x" + std::to_string(cols) + " " +
           std::string(dtype_name(t)) + " (" + std::to_string(frames) + " frame" + (frames == 1 ? "" : "s") + ")";
}

}  // namespace

FrameStack::FrameStack(const std::vector<std::string>& inputs, const std::string& dataset)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    if (inputs.empty()) throw InvalidArgument("FrameStack: no input file; give one or more frame files");
    std::string first_what;
    auto add = [&](Part part, size_t rows, size_t cols, DType t) {
        const std::string what = "'" + part.path + "'" + (part.dataset.empty() ? "" : ":" + part.dataset);
        if (m.parts.empty()) {
            m.rows = rows;
            m.cols = cols;
            m.dtype = t;
            first_what = frames_text(what, part.frames, rows, cols, t);
        } else if (rows != m.rows || cols != m.cols || t != m.dtype) {
            throw InvalidArgument(frames_text(what, part.frames, rows, cols, t) + ", but " + first_what +
                                  "; every input must hold frames of one shape and dtype");
        }
        part.first = m.frames;
        m.frames += part.frames;
        m.parts.push_back(std::move(part));
    };
    for (const std::string& input : inputs) {
        if (is_hdf5(input)) {
            for (const io::StackPart& sp : io::stack_parts(input, dataset)) {
                auto reader = std::make_unique<io::FrameStackReader>(sp.path, sp.dataset);
                m.gpu_decodable = m.gpu_decodable && reader->gpu_decodable();
                add(Part{sp.path, sp.dataset, 0, reader->frames()}, reader->rows(), reader->cols(),
                    reader->dtype());
                m.files.emplace_back(new io::File(io::File::open_read(sp.path)));  // File does not move
                m.readers.push_back(std::move(reader));
                m.arrays.emplace_back();
            }
        } else {
            HostArray a = io::read_array(input);
            if (a.shape.ndim() < 2)
                throw InvalidArgument("'" + input + "' holds a " + a.shape.str() +
                                      " array; give a 2-D frame or a 3-D stack (frames, rows, cols)");
            m.gpu_decodable = false;
            m.single = inputs.size() == 1 && a.shape.ndim() == 2;
            add(Part{input, "", 0, a.shape.z()}, a.shape.y(), a.shape.x(), a.dtype);
            m.readers.emplace_back();
            m.files.emplace_back();
            m.arrays.emplace_back(std::move(a));
        }
    }
    if (m.frames == 0) {
        std::string names;
        for (const std::string& input : inputs) names += (names.empty() ? "'" : ", '") + input + "'";
        throw InvalidArgument(names + (inputs.size() == 1 ? " holds" : " hold") + " no frame to integrate");
    }
}

FrameStack::~FrameStack() = default;
FrameStack::FrameStack(FrameStack&&) noexcept = default;
FrameStack& FrameStack::operator=(FrameStack&&) noexcept = default;
size_t FrameStack::frames() const { return impl_->frames; }
size_t FrameStack::rows() const { return impl_->rows; }
size_t FrameStack::cols() const { return impl_->cols; }
DType FrameStack::dtype() const { return impl_->dtype; }
bool FrameStack::single() const { return impl_->single; }
const std::vector<FrameStack::Part>& FrameStack::parts() const { return impl_->parts; }
bool FrameStack::gpu_decodable() const { return impl_->gpu_decodable; }

std::string FrameStack::where(size_t frame) const {
    const Part& p = impl_->parts[impl_->part_of(frame)];
    return p.path + (p.dataset.empty() ? "" : ":" + p.dataset) + " frame " + std::to_string(frame - p.first);
}

}  // namespace kiln
