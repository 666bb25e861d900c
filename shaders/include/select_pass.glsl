// The passes of radix selection by select_hist and select_pick, one digit of
// the order-preserving keys a pass: 32-bit keys in three digits of 11, 11
// and 10 bits, float64 keys (two words) in six. Provides the spec constants
// PASS (3) and TARGETS (4), BINS (2048 bins, enough for any digit), WORD (the
// key's word that holds the digit: 0 high, 1 low), Q (the digit within the
// word) and SHIFT (its lowest bit); CLIP where the second variant type is
// float64 (kappa-sigma clipping; uint32: plain selection).
#if defined(KILN_DTYPE2_float64)
#define CLIP 1
#endif

layout(constant_id = 3) const uint PASS = 0;
layout(constant_id = 4) const uint TARGETS = 1;

const uint BINS = 2048;
const uint WORD = PASS / 3;
const uint Q = PASS % 3;
const uint SHIFT = Q == 0 ? 21 : (Q == 1 ? 10 : 0);
