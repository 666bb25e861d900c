#include "kiln/host_array.hpp"

#include <new>
#include <string>

namespace kiln {

std::vector<std::byte> HostArray::host_bytes(const Shape& s, DType t) {
    const uint64_t bytes = byte_size(s, t);
    try {
        return std::vector<std::byte>(bytes);
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    throw OutOfMemory("out of host memory: a " + std::string(dtype_name(t)) + " array of shape " + s.str() +
                " needs " + std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 20) +
                " MiB), which could not be allocated");
}

} // namespace kiln
