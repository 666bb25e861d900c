#include "kiln/dtype.hpp"

namespace kiln {

DType parse_dtype(std::string_view name) {
    for (DType t : all_dtypes)
        if (dtype_name(t) == name) return t;
    std::string accepted;
    for (DType t : all_dtypes) accepted += (accepted.empty() ? "" : ", ") + std::string(dtype_name(t));
    throw InvalidArgument("unknown dtype '" + std::string(name) + "'; accepted: " + accepted);
}

} // namespace kiln
