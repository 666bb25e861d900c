#pragma once
// Element types of kiln arrays.
#include <cstddef>
#include <complex>
#include <cstdint>
#include <string>
#include <string_view>

#include "kiln/error.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Element type of an Array. float32 is the default everywhere. The complex
/// dtypes (interleaved real, imaginary) are storage types: the FFTs and
/// real/imag/abs take them; other ops refuse them (visit_dtype throws).
enum class DType : uint8_t {
    float32, float64, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, complex128
};

/// The dtypes every op takes, in enum order: all but int64 and uint64, which
/// arrays, files, cast and the arithmetic ops take (kiln/elementwise.hpp),
/// and the complex ones.
inline constexpr DType all_dtypes[] = {DType::float32, DType::float64, DType::int8,  DType::uint8,
                                       DType::int16,   DType::uint16,  DType::int32, DType::uint32};
/// The real dtypes, in enum order: what arrays hold besides the complex ones.
inline constexpr DType array_dtypes[] = {DType::float32, DType::float64, DType::int8,  DType::uint8,
                                         DType::int16,   DType::uint16,  DType::int32, DType::uint32,
                                         DType::int64,   DType::uint64};
/// The complex storage dtypes.
inline constexpr DType complex_dtypes[] = {DType::complex64, DType::complex128};

/// Size of one element in bytes.
constexpr size_t dtype_size(DType t) {
    switch (t) {
    case DType::int8:
    case DType::uint8: return 1;
    case DType::int16:
    case DType::uint16: return 2;
    case DType::float32:
    case DType::int32:
    case DType::uint32: return 4;
    case DType::float64:
    case DType::int64:
    case DType::uint64:
    case DType::complex64: return 8;
    case DType::complex128: return 16;
    }
    return 0;
}

class Shape;

/// Bytes of an array of this shape and dtype: the one place element counts
/// become byte sizes (Shape already refuses counts whose bytes could
/// overflow).
uint64_t byte_size(const Shape& shape, DType t);

/// NumPy's name for the dtype ("float32", "uint16", ...).
constexpr std::string_view dtype_name(DType t) {
    switch (t) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::int8: return "int8";
    case DType::uint8: return "uint8";
    case DType::int16: return "int16";
    case DType::uint16: return "uint16";
    case DType::int32: return "int32";
    case DType::uint32: return "uint32";
    case DType::int64: return "int64";
    case DType::uint64: return "uint64";
    case DType::complex64: return "complex64";
    case DType::complex128: return "complex128";
    }
    return "?";
}

constexpr bool dtype_is_float(DType t) { return t == DType::float32 || t == DType::float64; }
constexpr bool dtype_is_complex(DType t) { return t == DType::complex64 || t == DType::complex128; }
/// The real dtype of a complex one's parts (float32 for complex64); t itself otherwise.
constexpr DType dtype_real_part(DType t) {
    return t == DType::complex64 ? DType::float32 : t == DType::complex128 ? DType::float64 : t;
}
constexpr bool dtype_is_signed(DType t) {
    return t == DType::int8 || t == DType::int16 || t == DType::int32 || t == DType::int64 ||
           dtype_is_float(t);
}

/// Parses a NumPy dtype name; throws InvalidArgument listing the accepted names.
DType parse_dtype(std::string_view name);

/// The DType of a C++ element type, for typed push/pull.
template <typename T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::float64; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::int8; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::uint8; };
template <> struct dtype_of<int16_t> { static constexpr DType value = DType::int16; };
template <> struct dtype_of<uint16_t> { static constexpr DType value = DType::uint16; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_of<uint32_t> { static constexpr DType value = DType::uint32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_of<uint64_t> { static constexpr DType value = DType::uint64; };
template <> struct dtype_of<std::complex<float>> { static constexpr DType value = DType::complex64; };
template <> struct dtype_of<std::complex<double>> { static constexpr DType value = DType::complex128; };
template <typename T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

/// Calls f(T{}) with T the C++ type of the dtype (for CPU code over any
/// dtype but the complex ones, which throw Unsupported).
template <typename F> decltype(auto) visit_dtype(DType t, F&& f) {
    switch (t) {
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
    case DType::int8: return f(int8_t{});
    case DType::uint8: return f(uint8_t{});
    case DType::int16: return f(int16_t{});
    case DType::uint16: return f(uint16_t{});
    case DType::int32: return f(int32_t{});
    case DType::uint32: return f(uint32_t{});
    case DType::int64: return f(int64_t{});
    case DType::uint64: return f(uint64_t{});
    case DType::complex64:
    case DType::complex128:
        throw Unsupported("this operation does not take " + std::string(dtype_name(t)) +
                          " arrays; complex arrays are taken by the FFTs and real, imag and abs (which make "
                          "float arrays of them)");
    }
    throw InvalidArgument("unknown dtype");
}

} // namespace kiln
#pragma GCC visibility pop
