// Elements read 16 bytes at a time (hist_count, hist_minmax): A, the type
// they are counted and compared in (floats: their raw bits, compared by
// order key; else int or uint); T_SIZE, the bytes of an element; PER_CHUNK,
// elements per 16-byte chunk; element(c, j), element j of chunk c. Needs
// dtype.glsl and sort_key.glsl (RAW_T) included first.
#if defined(T_FLOAT)
#define A RAW_T
#elif defined(T_INT)
#define A int
#else
#define A uint
#endif
#if defined(KILN_DTYPE_float64)
#define T_SIZE 8
#elif defined(KILN_DTYPE_int16) || defined(KILN_DTYPE_uint16)
#define T_SIZE 2
#elif defined(KILN_DTYPE_int8) || defined(KILN_DTYPE_uint8)
#define T_SIZE 1
#else
#define T_SIZE 4
#endif

const uint PER_CHUNK = 16 / (T_SIZE);

A element(uvec4 c, uint j) {
#if defined(KILN_DTYPE_float64)
    return j == 0 ? c.xy : c.zw;
#elif defined(KILN_DTYPE_float32)
    return c[j];
#elif defined(KILN_DTYPE_int32)
    return int(c[j]);
#elif defined(KILN_DTYPE_uint32)
    return c[j];
#elif defined(KILN_DTYPE_int16)
    return bitfieldExtract(int(c[j >> 1]), int(16 * (j & 1)), 16);
#elif defined(KILN_DTYPE_uint16)
    return bitfieldExtract(c[j >> 1], int(16 * (j & 1)), 16);
#elif defined(KILN_DTYPE_int8)
    return bitfieldExtract(int(c[j >> 2]), int(8 * (j & 3)), 8);
#else
    return bitfieldExtract(c[j >> 2], int(8 * (j & 3)), 8);
#endif
}
