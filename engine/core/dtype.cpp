#include "kiln/dtype.hpp"

#include "kiln/shape.hpp"

namespace kiln {

uint64_t byte_size(const Shape& shape, DType t) { return uint64_t(shape.size()) * dtype_size(t); }

DType parse_dtype(std::string_view name) {
    for (DType t : array_dtypes)
        if (dtype_name(t) == name) return t;
    for (DType t : complex_dtypes)
        if (dtype_name(t) == name) return t;
    std::string accepted;
    for (DType t : array_dtypes) accepted += (accepted.empty() ? "" : ", ") + std::string(dtype_name(t));
    for (DType t : complex_dtypes) accepted += ", " + std::string(dtype_name(t));
    throw InvalidArgument("unknown dtype '" + std::string(name) + "'; accepted: " + accepted);
}

} // namespace kiln
