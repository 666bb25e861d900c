// Order-preserving sort keys of the element types (after dtype.glsl), for the
// LSD radix sort (sort_*.comp) and the clipping that reads the sorted keys
// (clip_*.comp). A key is a uint (a uvec2 (low word, high word) for
// float64), compared as an unsigned integer; sorting the keys sorts the
// values. -0.0 and +0.0 share a key; NaN and +-inf all get the all-ones key,
// so they sort after every finite value (finite keys of floats stay below
// it; integers have no non-finite value, and uint32's largest value also has
// the all-ones key). Keys have KEY_DIGITS 8-bit digits.
//
// RAW_T is an element as the input binding is declared: the raw bits of
// 32- and 64-bit types, the type itself for 8- and 16-bit integers.

#if defined(KILN_DTYPE_float64)
#define KEY uvec2
#define RAW_T uvec2
#define KEY_DIGITS 8
#define KEY_ALL_ONES uvec2(0xffffffffu)
#elif defined(KILN_DTYPE_float32) || defined(KILN_DTYPE_int32) || defined(KILN_DTYPE_uint32)
#define KEY uint
#define RAW_T uint
#define KEY_DIGITS 4
#define KEY_ALL_ONES 0xffffffffu
#else
#define KEY uint
#define RAW_T T
#if defined(KILN_DTYPE_int16) || defined(KILN_DTYPE_uint16)
#define KEY_DIGITS 2
#else
#define KEY_DIGITS 1
#endif
#define KEY_ALL_ONES 0xffffffffu
#endif

bool raw_finite(RAW_T r) {
#if defined(KILN_DTYPE_float32)
    return (r & 0x7fffffffu) < 0x7f800000u;
#elif defined(KILN_DTYPE_float64)
    return (r.y & 0x7fffffffu) < 0x7ff00000u;
#else
    return true;
#endif
}

KEY key_of_raw(RAW_T r) {
#if defined(KILN_DTYPE_float32)
    if (!raw_finite(r)) return KEY_ALL_ONES;
    if ((r & 0x7fffffffu) == 0u) r = 0u;
    return (r & 0x80000000u) != 0u ? ~r : r | 0x80000000u;
#elif defined(KILN_DTYPE_float64)
    if (!raw_finite(r)) return KEY_ALL_ONES;
    if ((r.y & 0x7fffffffu) == 0u && r.x == 0u) r = uvec2(0u);
    return (r.y & 0x80000000u) != 0u ? ~r : uvec2(r.x, r.y | 0x80000000u);
#elif defined(KILN_DTYPE_int32)
    return r ^ 0x80000000u;
#elif defined(KILN_DTYPE_uint32)
    return r;
#elif defined(KILN_DTYPE_int8)
    return uint(int(r) + 128);
#elif defined(KILN_DTYPE_int16)
    return uint(int(r) + 32768);
#else
    return uint(r);
#endif
}

// Whether key a orders before key b.
bool key_less(KEY a, KEY b) {
#if defined(KILN_DTYPE_float64)
    return a.y < b.y || (a.y == b.y && a.x < b.x);
#else
    return a < b;
#endif
}

// The smaller and the larger of two raw values in key order: floats
// compared exactly whatever a device does with denormals and NaN in float
// arithmetic (finite values only: non-finite ones share the all-ones key).
RAW_T raw_min(RAW_T a, RAW_T b) { return key_less(key_of_raw(b), key_of_raw(a)) ? b : a; }
RAW_T raw_max(RAW_T a, RAW_T b) { return key_less(key_of_raw(a), key_of_raw(b)) ? b : a; }

// The value whose key is k, as float64 (keys of finite values only).
double value_of_key(KEY k) {
#if defined(KILN_DTYPE_float32)
    uint r = (k & 0x80000000u) != 0u ? k & 0x7fffffffu : ~k;
    return double(uintBitsToFloat(r));
#elif defined(KILN_DTYPE_float64)
    uvec2 r = (k.y & 0x80000000u) != 0u ? uvec2(k.x, k.y & 0x7fffffffu) : ~k;
    return packDouble2x32(r);
#elif defined(KILN_DTYPE_int32)
    return double(int(k ^ 0x80000000u));
#elif defined(KILN_DTYPE_int8)
    return double(int(k) - 128);
#elif defined(KILN_DTYPE_int16)
    return double(int(k) - 32768);
#else
    return double(k);
#endif
}

// Digit d (0: the least significant byte) of a key.
uint key_digit(KEY k, uint d) {
#if defined(KILN_DTYPE_float64)
    return ((d < 4u ? k.x : k.y) >> (8u * (d & 3u))) & 0xffu;
#else
    return (k >> (8u * d)) & 0xffu;
#endif
}
