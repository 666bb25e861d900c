// Radix selection's elements and keys (select_hist, select_radix):
// R, an element's raw bits as loaded (uvec2 for float64, else uint: 8- and
// 16-bit integers widened, sign-extended for signed types); the input at
// binding 0 as elements `a` and 16-byte (or 4-element) vectors `av`;
// raw(i), element i; load_v(i), vector i as a uvec4; raw_v(v, c), element c
// of a loaded vector; VW elements per vector (widen.glsl's). Then
// is_nan(r), key_of(r), and matches(k, pre): whether key k (high word, low
// word) has the prefix pre in the bits that earlier passes fixed (WORD and
// FIXED: the includer's). Needs dtype.glsl.
#include "widen.glsl"
#if defined(KILN_DTYPE_float64)
#define R uvec2
layout(std430, binding = 0) readonly buffer A { uvec2 a[]; };
layout(std430, binding = 0) readonly buffer AV { uvec4 av[]; };
R raw(uint i) { return a[i]; }
R raw_v(uvec4 v, int c) { return c == 0 ? v.xy : v.zw; }
uvec4 load_v(uint i) { return av[i]; }
#elif defined(KILN_DTYPE_float32) || defined(KILN_DTYPE_int32) || defined(KILN_DTYPE_uint32)
#define R uint
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 0) readonly buffer AV { uvec4 av[]; };
R raw(uint i) { return a[i]; }
R raw_v(uvec4 v, int c) { return v[c]; }
uvec4 load_v(uint i) { return av[i]; }
#else
#define R uint
layout(std430, binding = 0) readonly buffer A { T a[]; };
layout(std430, binding = 0) readonly buffer AV { VT av[]; };
#if defined(T_INT)
R raw(uint i) { return uint(int(a[i])); }
uvec4 load_v(uint i) { return uvec4(ivec4(av[i])); }
#else
R raw(uint i) { return uint(a[i]); }
uvec4 load_v(uint i) { return uvec4(av[i]); }
#endif
R raw_v(uvec4 v, int c) { return v[c]; }
#endif

bool is_nan(R r) {
#if defined(KILN_DTYPE_float32)
    return (r & 0x7fffffffu) > 0x7f800000u;
#elif defined(KILN_DTYPE_float64)
    uint h = r.y & 0x7fffffffu;
    return h > 0x7ff00000u || (h == 0x7ff00000u && r.x != 0u);
#else
    return false;
#endif
}

bool matches(uvec2 k, uvec2 pre) {
    if (WORD == 0) return ((k.x ^ pre.x) & FIXED) == 0u;
    return k.x == pre.x && ((k.y ^ pre.y) & FIXED) == 0u;
}

// Order-preserving key (high word, low word). -0.0 and +0.0 share a key.
// 8- and 16-bit integers: as 32-bit ones, or, with RADIX_TOP_KEYS, in the
// top 8 or 16 bits of the high word (fewer passes: select_radix).
uvec2 key_of(R r) {
#if defined(KILN_DTYPE_float32)
    if ((r & 0x7fffffffu) == 0u) r = 0u;
    return uvec2((r & 0x80000000u) != 0u ? ~r : r | 0x80000000u, 0u);
#elif defined(KILN_DTYPE_float64)
    if ((r.y & 0x7fffffffu) == 0u && r.x == 0u) r = uvec2(0u);
    return (r.y & 0x80000000u) != 0u ? uvec2(~r.y, ~r.x) : uvec2(r.y | 0x80000000u, r.x);
#elif defined(RADIX_TOP_KEYS) && defined(KILN_DTYPE_int8)
    return uvec2((r + 0x80u) << 24, 0u);
#elif defined(RADIX_TOP_KEYS) && defined(KILN_DTYPE_uint8)
    return uvec2(r << 24, 0u);
#elif defined(RADIX_TOP_KEYS) && defined(KILN_DTYPE_int16)
    return uvec2((r + 0x8000u) << 16, 0u);
#elif defined(RADIX_TOP_KEYS) && defined(KILN_DTYPE_uint16)
    return uvec2(r << 16, 0u);
#elif defined(T_INT)
    return uvec2(r ^ 0x80000000u, 0u);
#else
    return uvec2(r, 0u);
#endif
}
