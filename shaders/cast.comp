#version 450
#extension GL_GOOGLE_include_directive : require
//! variants2: float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64 x float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64
// Conversion between dtypes: to float rounds to nearest; float to integer
// maps NaN to 0, truncates toward zero and saturates; integer to integer
// wraps modulo 2^bits, as NumPy's astype.
#include "dtype.glsl"
#include "grid.glsl"

// Integers convert through 64 bits where either side has them, else 32.
#if defined(T_BITS64) || defined(U_BITS64)
#define W_INT int64_t
#define W_UINT uint64_t
#else
#define W_INT int
#define W_UINT uint
#endif

layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 1) writeonly buffer B { U b[]; };
layout(push_constant) uniform P { uint n; } p;

U convert(T v) {
#if defined(U_FLOAT)
    return U(v);
#elif defined(T_FLOAT)
    // U_HI is 2^(bits-1) (signed) or 2^bits (unsigned): exact in T, so the
    // range checks are exact.
    if (isnan(v)) return U(0);
#if defined(U_INT)
    if (v >= T(U_HI)) return U(U_MAX);
    if (v <= -T(U_HI)) return U(U_MIN);
    return U(W_INT(v));
#else
    if (v <= T(0)) return U(0);
    if (v >= T(U_HI)) return U(U_MAX);
    return U(W_UINT(v));
#endif
#else
    // Integer to integer: widen (sign- or zero-extending as T is signed),
    // then narrow, which keeps the low bits.
#if defined(T_INT)
    W_INT w = W_INT(v);
#else
    W_UINT w = W_UINT(v);
#endif
#if defined(U_INT)
    return U(W_INT(w));
#else
    return U(W_UINT(w));
#endif
#endif
}

void main() {
    FOR_EACH_ELEMENT(i, p.n) b[i] = convert(a[i]);
}
