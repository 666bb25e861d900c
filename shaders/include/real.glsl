// R: the real type a kernel over T computes in, double for float64 and
// float for every other T (the transforms' and the spline filter's, as
// scipy.ndimage computes in double and returns float32 for float32).
#if defined(KILN_DTYPE_float64)
#define R double
#else
#define R float
#endif
