// Elements as the reductions compute with them (reduce_sum, reduce_axis,
// reduce_extreme, reduce_extreme_final): W, the element type T widened (int
// or uint for 8- and 16-bit types: storage of them is all the device must
// support); and for reading VW elements at a time (16 bytes for 32- and
// 64-bit types) VT, a vector of VW elements as stored, and WV, VT widened.
// Needs dtype.glsl included first.
#if defined(KILN_DTYPE_float32)
#define VT vec4
#define VW 4
#elif defined(KILN_DTYPE_float64)
#define VT dvec2
#define VW 2
#elif defined(KILN_DTYPE_int32)
#define VT ivec4
#define VW 4
#elif defined(KILN_DTYPE_uint32)
#define VT uvec4
#define VW 4
#elif defined(KILN_DTYPE_int16)
#define VT i16vec4
#define VW 4
#elif defined(KILN_DTYPE_uint16)
#define VT u16vec4
#define VW 4
#elif defined(KILN_DTYPE_int8)
#define VT i8vec4
#define VW 4
#else
#define VT u8vec4
#define VW 4
#endif
#if defined(KILN_DTYPE_int8) || defined(KILN_DTYPE_int16)
#define W int
#define WV ivec4
#elif defined(KILN_DTYPE_uint8) || defined(KILN_DTYPE_uint16)
#define W uint
#define WV uvec4
#else
#define W T
#define WV VT
#endif
