// Shared by the exact Euclidean distance transform's passes (edt_first,
// edt_pass): D is the squared-distance type (float or double). The array is
// seen as (z, y, x) with leading extents of 1; a pass works along `axis`.
// Requires D defined, dtype.glsl included.
#extension GL_EXT_control_flow_attributes : require

layout(push_constant) uniform Push {
    uint n, axis;
    uint first;   // the array's own first axis (3 - ndim)
    uint final_;  // 1: the last pass, which writes sqrt(d2)
    uint dims[3];
    uint chunks;  // edt_chunks' runs along the first axis
    uvec2 sampling[3];  // per axis, D's bits (float: .x)
    uint group_lines;   // edt_line: lines per workgroup, a power of 2
} p;

const D D_INF = D(1.0 / 0.0);
#if defined(EDT_DOUBLE)
D spacing(uint a) { return packDouble2x32(p.sampling[a]); }
#else
D spacing(uint a) { return uintBitsToFloat(p.sampling[a].x); }
#endif

uint stride_of(uint a) {
    uint s = 1;
    for (uint b = a + 1; b < 3; ++b) s *= p.dims[b];
    return s;
}

// (s k)^2 in the order NumPy squares a sampled offset. precise: a GPU
// compiler would otherwise fuse the square into the sum that uses it (an
// FMA rounds once where the CPU reference rounds twice).
D offset_sq(uint a, uint k) {
    precise D t = spacing(a) * D(k);
    precise D t2 = t * t;
    return t2;
}

// The last pass's output. An element with no zero anywhere along any of its
// passes exists only when the array has no zero at all; SciPy then measures
// from index -1 of the first axis (its feature transform points there).
D finish(uint i, D d2) {
    if (isinf(d2)) {
        d2 = D(0);
        uint rest = i;
        uint c[3];
        c[2] = rest % p.dims[2], rest /= p.dims[2];
        c[1] = rest % p.dims[1], c[0] = rest / p.dims[1];
        for (uint a = p.first; a < 3; ++a) {
            precise D sum = d2 + offset_sq(a, c[a] + (a == p.first ? 1u : 0u));
            d2 = sum;
        }
    }
#if defined(EDT_DOUBLE)
    return sqrt(d2);
#else
    // Through float64: correctly rounded for the integer d2 of unit sampling,
    // which a float32 sqrt need not be on every driver.
    return float(sqrt(double(d2)));
#endif
}
