#pragma once
// An array in host memory: shape, dtype and bytes. What file readers return,
// what CPU reference implementations take and give, and what Array pulls into.
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "kiln/dtype.hpp"
#include "kiln/shape.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Host-side array with value semantics (C order, (z, y, x)).
struct HostArray {
    Shape shape;
    DType dtype = DType::float32;
    std::vector<std::byte> bytes;

    HostArray() = default;
    /// Zero-filled array of the given shape and dtype; throws
    /// kiln::OutOfMemory naming the size when the host cannot allocate it.
    HostArray(Shape s, DType t) : shape(s), dtype(t), bytes(host_bytes(s, t)) {}

    /// Copies typed values; throws InvalidArgument if the count does not match the shape.
    template <typename T> static HostArray from(Shape s, std::span<const T> values) {
        if (values.size() != s.size())
            throw InvalidArgument("HostArray::from: " + std::to_string(values.size()) +
                                  " values given for shape " + s.str() + " which holds " +
                                  std::to_string(s.size()));
        HostArray a(s, dtype_of_v<T>);
        std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
        return a;
    }
    template <typename T> static HostArray from(Shape s, const std::vector<T>& values) {
        return from(s, std::span<const T>(values));
    }

    size_t size() const { return shape.size(); }
    size_t nbytes() const { return bytes.size(); }
    void* data() { return bytes.data(); }
    const void* data() const { return bytes.data(); }

    /// Typed view; throws InvalidArgument if T is not the array's dtype.
    template <typename T> std::span<T> as() {
        check<T>();
        return {reinterpret_cast<T*>(bytes.data()), size()};
    }
    template <typename T> std::span<const T> as() const {
        check<T>();
        return {reinterpret_cast<const T*>(bytes.data()), size()};
    }
    /// Element i as double, whatever the dtype (for comparisons and printing).
    double at(size_t i) const {
        return visit_dtype(dtype, [&](auto t) {
            using T = decltype(t);
            T v;
            std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
            return static_cast<double>(v);
        });
    }

private:
    static std::vector<std::byte> host_bytes(const Shape& s, DType t);
    template <typename T> void check() const {
        if (dtype_of_v<T> != dtype)
            throw InvalidArgument("HostArray holds " + std::string(dtype_name(dtype)) +
                                  ", not " + std::string(dtype_name(dtype_of_v<T>)));
    }
};

} // namespace kiln
#pragma GCC visibility pop
