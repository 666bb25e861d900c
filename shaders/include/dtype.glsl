// Maps the variant macro KILN_DTYPE_<name> (set by the build for each
// variant of a shader) to the element type T and its properties; likewise
// KILN_DTYPE2_<name> to U for two-type kernels (cast).
#extension GL_EXT_shader_explicit_arithmetic_types : require

#if defined(KILN_DTYPE_int8) || defined(KILN_DTYPE_uint8) || defined(KILN_DTYPE2_int8) || defined(KILN_DTYPE2_uint8)
#extension GL_EXT_shader_8bit_storage : require
#endif
#if defined(KILN_DTYPE_int16) || defined(KILN_DTYPE_uint16) || defined(KILN_DTYPE2_int16) || defined(KILN_DTYPE2_uint16)
#extension GL_EXT_shader_16bit_storage : require
#endif

#if defined(KILN_DTYPE_float32)
#define T float
#define T_FLOAT 1
#elif defined(KILN_DTYPE_float64)
#define T double
#define T_FLOAT 1
#elif defined(KILN_DTYPE_int8)
#define T int8_t
#define T_INT 1
#define T_MIN (-128)
#define T_MAX 127
#elif defined(KILN_DTYPE_uint8)
#define T uint8_t
#define T_UINT 1
#define T_MIN 0
#define T_MAX 255
#elif defined(KILN_DTYPE_int16)
#define T int16_t
#define T_INT 1
#define T_MIN (-32768)
#define T_MAX 32767
#elif defined(KILN_DTYPE_uint16)
#define T uint16_t
#define T_UINT 1
#define T_MIN 0
#define T_MAX 65535
#elif defined(KILN_DTYPE_int32)
#define T int
#define T_INT 1
#elif defined(KILN_DTYPE_uint32)
#define T uint
#define T_UINT 1
#elif defined(KILN_DTYPE_int64)
#define T int64_t
#define T_INT 1
#define T_BITS64 1
#elif defined(KILN_DTYPE_uint64)
#define T uint64_t
#define T_UINT 1
#define T_BITS64 1
#endif

#if defined(KILN_DTYPE2_float32)
#define U float
#define U_FLOAT 1
#elif defined(KILN_DTYPE2_float64)
#define U double
#define U_FLOAT 1
#elif defined(KILN_DTYPE2_int8)
#define U_MIN (-128)
#define U_MAX 127
#define U_HI 128.0
#define U int8_t
#define U_INT 1
#define U_BITS 8
#elif defined(KILN_DTYPE2_uint8)
#define U_MIN 0
#define U_MAX 255u
#define U_HI 256.0
#define U uint8_t
#define U_UINT 1
#define U_BITS 8
#elif defined(KILN_DTYPE2_int16)
#define U_MIN (-32768)
#define U_MAX 32767
#define U_HI 32768.0
#define U int16_t
#define U_INT 1
#define U_BITS 16
#elif defined(KILN_DTYPE2_uint16)
#define U_MIN 0
#define U_MAX 65535u
#define U_HI 65536.0
#define U uint16_t
#define U_UINT 1
#define U_BITS 16
#elif defined(KILN_DTYPE2_int32)
#define U_MIN (-2147483647 - 1)
#define U_MAX 2147483647
#define U_HI 2147483648.0
#define U int
#define U_INT 1
#define U_BITS 32
#elif defined(KILN_DTYPE2_uint32)
#define U_MIN 0
#define U_MAX 4294967295u
#define U_HI 4294967296.0
#define U uint
#define U_UINT 1
#define U_BITS 32
#elif defined(KILN_DTYPE2_int64)
#define U_MIN (-9223372036854775807l - 1l)
#define U_MAX 9223372036854775807l
#define U_HI 9223372036854775808.0
#define U int64_t
#define U_INT 1
#define U_BITS 64
#define U_BITS64 1
#elif defined(KILN_DTYPE2_uint64)
#define U_MIN 0ul
#define U_MAX 18446744073709551615ul
#define U_HI 18446744073709551616.0
#define U uint64_t
#define U_UINT 1
#define U_BITS 64
#define U_BITS64 1
#endif

// A scalar of type T passed in push constants as 64 raw bits (host-converted).
#if defined(KILN_DTYPE_float64)
#define SCALAR_T(bits) packDouble2x32(bits)
#elif defined(T_BITS64)
#define SCALAR_T(bits) T(uint64_t((bits).x) | (uint64_t((bits).y) << 32))
#elif defined(T_FLOAT)
#define SCALAR_T(bits) uintBitsToFloat((bits).x)
#elif defined(T_INT)
#define SCALAR_T(bits) T(int((bits).x))
#else
#define SCALAR_T(bits) T((bits).x)
#endif
