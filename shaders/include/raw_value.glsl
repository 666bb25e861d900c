// Raw values as the azimuthal integration compares them with its dummy range
// (azim_preprocess, azim_integrate, azim_clip): W, the comparison type of an
// element of T (its own float type, int or uint), and W_OF(bits), a W from
// the 64 raw bits (uvec2) of a push constant converted by the host. Needs
// dtype.glsl included first.
#if defined(KILN_DTYPE_float64)
#define W double
#define W_OF(b) packDouble2x32(b)
#elif defined(T_FLOAT)
#define W float
#define W_OF(b) uintBitsToFloat((b).x)
#elif defined(T_INT)
#define W int
#define W_OF(b) int((b).x)
#else
#define W uint
#define W_OF(b) (b).x
#endif
