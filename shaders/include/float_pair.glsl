// Float32 pairs (hi, lo) as a vec2: a value held as the unevaluated sum
// hi + lo, for compensated accumulation on devices without float64
// (reduce_acc.glsl). Error-free transformations; `precise` keeps the compiler
// from reassociating or fusing the operations that recover the rounding
// error. No preconditions.

// a + b exactly as (sum, error).
vec2 two_sum(float a, float b) {
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}
// a + b exactly as (sum, error) where |a| >= |b|.
vec2 fast_two_sum(float a, float b) {
    precise float s = a + b;
    precise float e = b - (s - a);
    return vec2(s, e);
}
// hi + lo, normalised; an infinite or NaN hi stands alone (its lo is NaN).
vec2 norm(float hi, float lo) {
    if (isinf(hi) || isnan(hi)) return vec2(hi, 0.0);
    return fast_two_sum(hi, lo);
}
// a + b of two pairs, normalised.
vec2 ff_add(vec2 a, vec2 b) {
    vec2 s = two_sum(a.x, b.x);
    precise float lo = s.y + (a.y + b.y);
    return norm(s.x, lo);
}
// a * b exactly as hi + lo by Dekker's splitting (the device's fma() need
// not be fused, so it cannot recover the product's rounding error).
vec2 two_prod(float a, float b) {
    precise float ca = 4097.0 * a;
    precise float a_hi = ca - (ca - a);
    precise float a_lo = a - a_hi;
    precise float cb = 4097.0 * b;
    precise float b_hi = cb - (cb - b);
    precise float b_lo = b - b_hi;
    precise float p = a * b;
    precise float e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
    return vec2(p, e);
}
// q * b, normalised.
vec2 ff_mul(float q, vec2 b) {
    vec2 t = two_prod(q, b.x);
    precise float lo = t.y + q * b.y;
    return norm(t.x, lo);
}
// a / b: a first quotient, then one correction from the exact remainder.
vec2 ff_div(vec2 a, vec2 b) {
    float q1 = a.x / b.x;
    if (isinf(q1) || isnan(q1)) return vec2(q1, 0.0);
    vec2 r = ff_add(a, -ff_mul(q1, b));
    return norm(q1, r.x / b.x);
}
// sqrt(a): one Newton step on the float root, with the remainder as a pair.
vec2 ff_sqrt(vec2 a) {
    float y = sqrt(a.x);
    if (y == 0.0 || isinf(y) || isnan(y)) return vec2(y, 0.0);
    vec2 r = ff_add(a, -ff_mul(y, vec2(y, 0.0)));
    return norm(y, r.x / (2.0 * y));
}
