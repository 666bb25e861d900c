// Shared by the morph_* kernels: the element type widened for comparisons
// and shared memory (W: 8- and 16-bit integers as 32-bit ones, which order
// alike and need no 8/16-bit arithmetic or shared storage), and the min or
// max that a MINIMUM specialization constant picks.
#if defined(T_FLOAT)
#define W T
#elif defined(T_INT)
#define W int
#else
#define W uint
#endif

W pick(W a, W b, bool minimum) { return minimum ? min(a, b) : max(a, b); }

#if defined(KILN_DTYPE_int8) || defined(KILN_DTYPE_uint8)
#define W_BITS 8
#elif defined(KILN_DTYPE_int16) || defined(KILN_DTYPE_uint16)
#define W_BITS 16
#else
#define W_BITS 32
#endif

// SciPy's C cast of a double to the element type: truncation toward zero
// and, for integers, the low W_BITS bits (taken modulo 2^32 first, which is
// exact in double), sign-extended for signed types.
W from_double(double v) {
#if defined(T_FLOAT)
    return T(v);
#else
    double t = trunc(v);
    t -= 4294967296.0 * floor(t / 4294967296.0);
    const uint u = uint(t) << (32 - W_BITS);
#if defined(T_INT)
    return int(u) >> (32 - W_BITS);
#else
    return u >> (32 - W_BITS);
#endif
#endif
}

// Every (z, y, x) of an (nz, ny, nx) array over a 3-D grid, grid-stride
// along each axis: coordinates without divisions, any extent with a capped
// grid.
#define FOR_EACH_ZYX(zi, yi, xi, nz, ny, nx)                                                       \
    for (uint zi = gl_GlobalInvocationID.z; zi < (nz); zi += gl_NumWorkGroups.z * gl_WorkGroupSize.z) \
    for (uint yi = gl_GlobalInvocationID.y; yi < (ny); yi += gl_NumWorkGroups.y * gl_WorkGroupSize.y) \
    for (uint xi = gl_GlobalInvocationID.x; xi < (nx); xi += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
