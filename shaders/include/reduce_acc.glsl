// The accumulator ACC of the sum reductions (reduce_sum, reduce_final,
// reduce_axis): double where the second variant type is float64
// (KILN_DTYPE2_float64) or the includer defines ACC_F64 before including this
// file, else compensated float32 pairs (hi, lo) (float_pair.glsl).
// Provides ACC, zero_acc, from_bits (a double's bits, or a (hi, lo) pair's),
// merge (a + b), divide, root (sqrt), is_zero, nan_acc and inf_acc; and
// to_acc (an element as ACC) where the includer defines W, the element type
// as read (widened: int or uint for 8- and 16-bit types; needs dtype.glsl).
#if defined(KILN_DTYPE2_float64) || defined(ACC_F64)

#define ACC double
ACC zero_acc() { return 0.0lf; }
ACC from_bits(uvec2 b) { return packDouble2x32(b); }
ACC merge(ACC a, ACC b) { return a + b; }
ACC divide(ACC a, ACC b) { return a / b; }
ACC root(ACC a) { return sqrt(a); }
bool is_zero(ACC a) { return a == 0.0lf; }
ACC nan_acc() { return packDouble2x32(uvec2(0u, 0x7ff80000u)); }
ACC inf_acc() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }
#if defined(W)
ACC to_acc(W v) { return double(v); }
#endif

#else

#define ACC vec2
#include "float_pair.glsl"
ACC zero_acc() { return vec2(0.0); }
ACC from_bits(uvec2 b) { return uintBitsToFloat(b); }
ACC merge(ACC a, ACC b) { return ff_add(a, b); }
ACC divide(ACC a, ACC b) { return ff_div(a, b); }
ACC root(ACC a) { return ff_sqrt(a); }
bool is_zero(ACC a) { return a.x == 0.0; }
ACC nan_acc() { return vec2(uintBitsToFloat(0x7fc00000u), 0.0); }
ACC inf_acc() { return vec2(uintBitsToFloat(0x7f800000u), 0.0); }
#if defined(W)
// A value as hi + lo: 32-bit integers do not fit a float's 24 bits.
ACC to_acc(W v) {
#if defined(KILN_DTYPE_int32)
    return vec2(float(v & ~0xff), float(v & 0xff));
#elif defined(KILN_DTYPE_uint32)
    return vec2(float(v & ~0xffu), float(v & 0xffu));
#else
    return vec2(float(v), 0.0);
#endif
}
#endif

#endif
