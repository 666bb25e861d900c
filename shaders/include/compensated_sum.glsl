// Running sums Acc of the second variant type U (azim_integrate, azim_clip):
// double for KILN_DTYPE2_float64, else float pairs (sum, compensation) that
// keep each addition's rounding error by Neumaier's method, added in at the
// end (acc_value). Needs dtype.glsl (U) included first.
#if defined(KILN_DTYPE2_float64)
#define Acc double
Acc acc_zero() { return 0.0lf; }
void acc_add(inout Acc a, U x) { a += x; }
void acc_merge(inout Acc a, Acc b) { a += b; }
U acc_value(Acc a) { return a; }
#else
#define Acc vec2
Acc acc_zero() { return vec2(0.0); }
void acc_add(inout Acc a, float x) {
    precise float t = a.x + x;
    precise float e = abs(a.x) >= abs(x) ? (a.x - t) + x : (x - t) + a.x;
    a.x = t;
    a.y += e;
}
void acc_merge(inout Acc a, Acc b) {
    acc_add(a, b.x);
    a.y += b.y;
}
U acc_value(Acc a) { return a.x + a.y; }
#endif
