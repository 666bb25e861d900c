#pragma once
// Array shapes: up to three dimensions in (z, y, x) order, x varying fastest.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Shape of an array with 1 to 3 dimensions, C order, as NumPy's shape tuple.
class Shape {
public:
    Shape() = default;
    /// Shape{x}, Shape{y, x} or Shape{z, y, x}; throws InvalidArgument for
    /// other ranks, a zero extent, or more than max_elements elements.
    Shape(std::initializer_list<size_t> dims);
    /// The most elements a shape may hold: 2^60, so that the byte size of
    /// any dtype (at most 8 bytes) fits in 63 bits. Every shape is checked
    /// against it once, here; byte_size() multiplies by the element size.
    static constexpr size_t max_elements = size_t(1) << 60;
    static Shape of(size_t ndim, const size_t* dims);

    size_t ndim() const { return ndim_; }
    /// Extent of dimension i in NumPy order (0 is the slowest).
    size_t operator[](size_t i) const { return dims_[3 - ndim_ + i]; }
    /// Extents padded to three dimensions with leading ones.
    size_t z() const { return dims_[0]; }
    size_t y() const { return dims_[1]; }
    size_t x() const { return dims_[2]; }
    size_t size() const { return dims_[0] * dims_[1] * dims_[2]; }
    bool empty() const { return ndim_ == 0; }

    bool operator==(const Shape& o) const { return ndim_ == o.ndim_ && dims_ == o.dims_; }
    bool operator!=(const Shape& o) const { return !(*this == o); }

    /// "(2048, 2048)", as NumPy prints shapes.
    std::string str() const;

private:
    std::array<size_t, 3> dims_{1, 1, 1};
    size_t ndim_ = 0;
};

} // namespace kiln
#pragma GCC visibility pop
