// The search for the first minimum or maximum of (value, index) pairs
// (reduce_extreme, reduce_extreme_final, reduce_axis): is_nan(v), and
// before(v, i, w, j), whether (v, i) comes before (w, j); the first NaN beats
// every value, as in NumPy, and equal values go by index. The includer
// defines first: W (widen.glsl); NONE, the index of no element;
// EXTREME_MIN, a bool expression, true when the minimum is sought; and,
// for indices other than uint, EXTREME_INDEX (their type) and
// EXTREME_INDEX_LESS(i, j) (their order).
#if !defined(EXTREME_INDEX)
#define EXTREME_INDEX uint
#define EXTREME_INDEX_LESS(i, j) i < j
#endif

bool is_nan(W v) {
#if defined(T_FLOAT)
    return isnan(v);
#else
    return false;
#endif
}

bool before(W v, EXTREME_INDEX i, W w, EXTREME_INDEX j) {
    if (j == NONE) return i != NONE;
    if (i == NONE) return false;
    bool vn = is_nan(v), wn = is_nan(w);
    if (vn || wn) return vn && (!wn || EXTREME_INDEX_LESS(i, j));
    if (v == w) return EXTREME_INDEX_LESS(i, j);
    return EXTREME_MIN ? v < w : v > w;
}
