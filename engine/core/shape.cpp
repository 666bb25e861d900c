#include "kiln/shape.hpp"

#include "kiln/error.hpp"

namespace kiln {

Shape Shape::of(size_t ndim, const size_t* dims) {
    if (ndim < 1 || ndim > 3)
        throw InvalidArgument("shape has " + std::to_string(ndim) +
                              " dimensions; kiln arrays have 1, 2 or 3 (z, y, x)");
    Shape s;
    s.ndim_ = ndim;
    size_t elements = 1;
    bool overflow = false;
    for (size_t i = 0; i < ndim; ++i) {
        if (dims[i] == 0)
            throw InvalidArgument("shape has a zero extent in dimension " + std::to_string(i) +
                                  "; empty arrays are not accepted, every extent must be >= 1");
        s.dims_[3 - ndim + i] = dims[i];
        overflow = overflow || __builtin_mul_overflow(elements, dims[i], &elements);
    }
    if (overflow || elements > max_elements)
        throw InvalidArgument("shape " + s.str() + " has " +
                              (overflow ? std::string("more than 2^64") : std::to_string(elements)) +
                              " elements; at most 2^60 (" + std::to_string(max_elements) +
                              ") are accepted, and the device or host memory holds far fewer");
    return s;
}

Shape::Shape(std::initializer_list<size_t> dims) { *this = of(dims.size(), dims.begin()); }

std::string Shape::str() const {
    std::string s = "(";
    for (size_t i = 0; i < ndim_; ++i) {
        if (i) s += ", ";
        s += std::to_string((*this)[i]);
    }
    if (ndim_ == 1) s += ",";
    return s + ")";
}

} // namespace kiln
