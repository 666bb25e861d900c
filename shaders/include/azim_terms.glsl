// The bindings and per-pixel terms of CSR azimuthal integration
// (azim_integrate, azim_clip; cpu/integrate.hpp has the definitions).
// Bindings 0-14: the CSR matrix (indptr, cols, weights), the frame `raw`,
// the corrections (dark, norm, given_var) and the eight outputs.
// terms(base, px, s, v, n): signal, variance and normalization of pixel px
// of the frame starting at base, in U; false for a pixel that does not count
// (a dummy, a non-finite term, a zero normalization). write_results(o, ...):
// output o from the sums of a bin.
// The includer declares first: dtype.glsl (T, U), raw_value.glsl (W), the
// constants HAS_DUMMY, HAS_DARK, HAS_NORM, ERROR_MODEL (0 none, 1 poisson,
// 2 given variance, 3 azimuthal: variance 0 here, the kernels sum the
// spread), DARK_VARIANCE (poisson adds the dark), a push-constant block p with dummy_lo, dummy_hi (raw
// values in [lo, hi] are dummies, bits of W) and `empty` (the outputs of an
// empty bin). Where it defines AZIM_TERMS_PRE, terms() reads the pixel's
// pre-processed float4 from `pre` when MODE is 1 (azim_preprocess); where it
// defines AZIM_TERMS_INT_SHORTCUT, integers without float corrections skip
// the finiteness tests.

layout(std430, binding = 0) readonly buffer Indptr { uint indptr[]; };
layout(std430, binding = 1) readonly buffer Cols { uint cols[]; };
layout(std430, binding = 2) readonly buffer Weights { float weights[]; };
layout(std430, binding = 3) readonly buffer Raw { T raw[]; };
#if defined(AZIM_TERMS_PRE)
layout(std430, binding = 3) readonly buffer Pre { vec4 pre[]; };
#endif
layout(std430, binding = 4) readonly buffer Dark { float dark[]; };
layout(std430, binding = 5) readonly buffer Norm { float norm[]; };
layout(std430, binding = 6) readonly buffer Var { float given_var[]; };
layout(std430, binding = 7) writeonly buffer O0 { float o_intensity[]; };
layout(std430, binding = 8) writeonly buffer O1 { float o_sem[]; };
layout(std430, binding = 9) writeonly buffer O2 { float o_std[]; };
layout(std430, binding = 10) writeonly buffer O3 { float o_signal[]; };
layout(std430, binding = 11) writeonly buffer O4 { float o_variance[]; };
layout(std430, binding = 12) writeonly buffer O5 { float o_norm[]; };
layout(std430, binding = 13) writeonly buffer O6 { float o_norm_sq[]; };
layout(std430, binding = 14) writeonly buffer O7 { float o_count[]; };

bool finite_u(U x) { return !isnan(x) && !isinf(x); }

bool terms(uint base, uint px, out U s, out U v, out U n) {
#if defined(AZIM_TERMS_PRE)
    if (MODE == 1u) {
        const vec4 q = pre[base + px];
        s = U(q.x);
        v = U(q.y);
        n = U(q.z);
        return q.w != 0.0;
    }
#endif
    const T r = raw[base + px];
    s = U(0);
    v = U(0);
    n = U(0);
    if (HAS_DUMMY != 0u) {
        const W w = W(r);
        if (w >= W_OF(p.dummy_lo) && w <= W_OF(p.dummy_hi)) return false;
    }
    const U rv = U(r);
    const U d = HAS_DARK != 0u ? U(dark[px]) : U(0);
    const U nv = HAS_NORM != 0u ? U(norm[px]) : U(1);
    U var = U(0);
    if (ERROR_MODEL == 1u) var = max(rv, U(1)) + (DARK_VARIANCE != 0u ? d : U(0));
    if (ERROR_MODEL == 2u) var = U(given_var[px]);
    const U sig = rv - d;
#if defined(AZIM_TERMS_INT_SHORTCUT) && !defined(T_FLOAT)
    // Integers without float corrections are always finite: no tests per entry.
    if (HAS_DARK == 0u && HAS_NORM == 0u && ERROR_MODEL != 2u) {
        s = sig;
        v = var;
        n = nv;
        return true;
    }
#endif
    if (!finite_u(sig) || !finite_u(nv) || !finite_u(var) || nv == U(0)) return false;
    s = sig;
    v = var;
    n = nv;
    return true;
}

// Intensity, sem, std and the sums of output o from a bin's totals: signal
// ss, variance sv, normalization sn, its square snn and the count cnt.
void write_results(uint o, U ss, U sv, U sn, U snn, U cnt) {
    o_signal[o] = float(ss);
    o_variance[o] = float(sv);
    o_norm[o] = float(sn);
    o_norm_sq[o] = float(snn);
    o_count[o] = float(cnt);
    if (sn != U(0)) {
        o_intensity[o] = float(ss / sn);
        o_sem[o] = float(sqrt(sv) / sn);
        o_std[o] = float(sqrt(sv / snn));
    } else {
        o_intensity[o] = p.empty;
        o_sem[o] = p.empty;
        o_std[o] = p.empty;
    }
}
