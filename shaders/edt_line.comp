#version 450
#extension GL_GOOGLE_include_directive : require
//! variants: float32 float64
// Exact EDT, a later pass in O(len) per line: each workgroup takes
// p.group_lines lines at a time (G, a power of 2 with G len <= MAX_LEN; the
// workgroup loops over blocks of lines), nt / G invocations per line:
// d2'(x) = min over sites j of (s (x - j))^2 + d2(j), where the sites are the
// line's elements with finite d2. In shared memory, line g at s_*[g len ..]:
//  1. each invocation builds the lower envelope of its band's sites with
//     Meijster's stack (a doubly linked list through s_link, indices within
//     the line);
//  2. adjacent bands' envelopes merge in log2(nt / G) rounds: the
//     envelope of two ordered site sets is a prefix of the left one and a
//     suffix of the right one, found by popping at the junction until both
//     of its triples are convex (each site is popped at most once per line);
//  3. each surviving site claims the elements between its intersections with
//     its neighbours, and each element takes the least of its site's
//     parabola and the two neighbouring ones, summed as edt_pass sums them.
// Intersections compare in float64: exact for unit sampling (integer d2 below
// 2^24 and offsets below 2^11), so the result equals edt_pass's exhaustive
// minimum bit for bit; with other sampling a site chosen in float64 and its
// neighbours are evaluated in D, as edt_pass evaluates every candidate.
// Blocks of short lines (len <= SEARCH_MAX_LEN) settle what they can
// without the envelope (search_block): a line of at most SITE_LIST sites
// by trying each, a denser one by an outward search; the envelope runs only
// where an element of a dense line is farther than SEARCH_STEPS from its
// nearest site.
// Several lines per workgroup keep short lines (a volume's 256) from paying
// a workgroup's merge rounds and barriers each, and make the loads and stores
// of lines strided in memory coalesce: the G lines of a block are
// neighbours, and consecutive invocations take consecutive lines at one
// position.
#include "dtype.glsl"
#include "grid.glsl"
#define D T
#if defined(KILN_DTYPE_float64)
#define EDT_DOUBLE 1
const uint MAX_LEN = 1024;  // EDT_LINE_MAX in distance.cpp: 32 KB of shared memory at most
#else
const uint MAX_LEN = 2048;
#endif
#include "edt_common.glsl"

const uint NIL = 0xFFFFu, DEAD = 0xFFFEu;  // s_link's prev: no site, not on the envelope

layout(std430, binding = 0) readonly buffer In { D src[]; };
layout(std430, binding = 1) writeonly buffer Out { D dst[]; };

shared D s_f[MAX_LEN];
shared uint s_link[MAX_LEN];   // prev | next << 16
shared uint s_owner[MAX_LEN];  // the envelope site nearest each element
shared uint s_ends[gl_WorkGroupSize.x];  // per group of bands: head | tail << 16
shared uint s_todo[MAX_LEN / 32];  // block elements the search left to the envelope (bits)
shared uint s_count[gl_WorkGroupSize.x];  // sites per line of the block (search)
shared bool s_hard;                // the block has some

double s2;  // the axis' spacing squared
uint at0;   // this invocation's line in shared memory: its element j at at0 + j
// Unit spacing along this axis and the earlier ones, float32: every finite
// d2 is a whole number below 2^30, so intersections are exact in integer
// arithmetic, without float64's conversions and division (the same owners
// as float64's exact arithmetic finds).
bool integral;

uint prev_of(uint j) { return s_link[at0 + j] & 0xFFFFu; }
uint next_of(uint j) { return s_link[at0 + j] >> 16; }
void set_prev(uint j, uint v) { s_link[at0 + j] = (s_link[at0 + j] & 0xFFFF0000u) | v; }
void set_next(uint j, uint v) { s_link[at0 + j] = (s_link[at0 + j] & 0xFFFFu) | (v << 16); }
double f_of(uint j) { return double(s_f[at0 + j]); }
#if !defined(EDT_DOUBLE)
int fi(uint j) { return int(s_f[at0 + j]); }
// cross_num's integer: below 2^31 (d2 < 2^30, k^2 < 2^22).
int cross_int(uint j, uint k) { return fi(k) - fi(j) + int(k * k) - int(j * j); }
// x y >= z w for products up to 2^53, through imulExtended's 64 bits.
bool product_ge(int x, int y, int z, int w) {
    int xh, xl, zh, zl;
    imulExtended(x, y, xh, xl);
    imulExtended(z, w, zh, zl);
    return xh > zh || (xh == zh && uint(xl) >= uint(zl));
}
#endif

// Sites j < k: their parabolas meet at cross_num(j, k) / (2 s2 (k - j)).
// precise throughout: which site owns an element must not depend on whether
// a compiler fuses these products and sums (NVIDIA's does; lavapipe's did not).
double cross_num(uint j, uint k) {
    precise double r = f_of(k) - f_of(j) + s2 * (double(k) * double(k) - double(j) * double(j));
    return r;
}
// a < b < c: b is nowhere below both a and c.
bool dominated(uint a, uint b, uint c) {
#if !defined(EDT_DOUBLE)
    if (integral) return product_ge(cross_int(a, b), int(c - b), cross_int(b, c), int(b - a));
#endif
    precise double l = cross_num(a, b) * double(c - b);
    precise double r = cross_num(b, c) * double(b - a);
    return l >= r;
}
// The last element at least as near j's parabola as k's (j < k), in [-1, len - 1].
int bound(uint j, uint k, uint len) {
#if !defined(EDT_DOUBLE)
    if (integral) {
        const int num = cross_int(j, k), den = 2 * int(k - j);
        const int q = num >= 0 ? num / den : -((den - 1 - num) / den);  // floor
        return clamp(q, -1, int(len) - 1);
    }
#endif
    precise double x = floor(cross_num(j, k) / (2.0 * s2 * double(k - j)));
    return int(clamp(x, -1.0, double(len) - 1.0));
}
D candidate(uint j, uint x) {
    precise D c = offset_sq(p.axis, x > j ? x - j : j - x) + s_f[at0 + j];
    return c;
}
// Whether this pass's sites are integral (above).
bool integral_sites() {
#if defined(EDT_DOUBLE)
    return false;
#else
    double most = 0.0;
    for (uint a = p.first; a <= p.axis; ++a) {
        if (p.sampling[a].x != floatBitsToUint(1.0)) return false;
        most += double(p.dims[a]) * double(p.dims[a]);
    }
    return most < 1073741824.0;
#endif
}

// Lines this short (G >= 8 per block) try to settle every element before
// the envelope. A line of at most SITE_LIST sites lists them (in s_link,
// which the envelope rewrites whole) and each element takes the least of
// their parabolas: a sparse mask's lines cost a few sites per element. A
// denser line searches outward from each element: sites at distance 1, 2,
// ... on both sides, stopping once the offset alone reaches the best, so an
// element costs its own distance, in shared memory with no merge rounds
// (H100, 256^3 blobs: 0.26 ms a pass, against 0.6 ms through the envelope).
// An element still searching after SEARCH_STEPS is left to the envelope,
// which its block then runs.
const uint SEARCH_MAX_LEN = 256, SEARCH_STEPS = 24, SITE_LIST = 32;

// Where line `line` starts in the array (its element l at base + l stride).
uint line_base(uint line, uint stride, uint len) { return (line / stride) * len * stride + line % stride; }
// Block element e of G lines: line e / len at e % len where lines are
// contiguous (stride 1), else line e % G at e / G, so that consecutive
// invocations touch consecutive addresses either way.
uvec2 block_place(uint e, uint stride, uint len, uint G) {
    return stride == 1 ? uvec2(e / len, e % len) : uvec2(e % G, e / G);
}

// The search over a block of G lines in s_f (their site lists made): every
// element it settles is written (the minimum of edt_pass's sums, so the same
// value); the others are marked in s_todo, and s_hard set.
void search_block(uint first, uint lines, uint stride, uint len, uint G) {
    for (uint e = gl_LocalInvocationID.x; e < G * len; e += gl_WorkGroupSize.x) {
        const uvec2 gl = block_place(e, stride, len, G);
        const uint line = first + gl.x, x = gl.y, b = gl.x * len, sites = s_count[gl.x];
        if (line >= lines) continue;
        D best = s_f[b + x];
        bool settled = sites <= SITE_LIST;
        if (settled)  // every site of the line (none: +inf stays)
            for (uint q = 0; q < sites; ++q) {
                const uint j = s_link[b + q];
                precise D c = offset_sq(p.axis, x > j ? x - j : j - x) + s_f[b + j];
                best = min(best, c);
            }
        for (uint k = 1; k <= SEARCH_STEPS && !settled; ++k) {
            const D o = offset_sq(p.axis, k);
            if (o >= best || k >= len) {  // every later site is at least this far
                settled = true;
                break;
            }
            if (x >= k) {
                precise D c = o + s_f[b + x - k];
                best = min(best, c);
            }
            if (x + k < len) {
                precise D c = o + s_f[b + x + k];
                best = min(best, c);
            }
        }
        if (settled) {
            const uint i = line_base(line, stride, len) + x * stride;
            dst[i] = p.final_ != 0 ? finish(i, best) : best;
        } else {
            atomicOr(s_todo[e / 32], 1u << (e % 32));
            s_hard = true;
        }
    }
}

void main() {
    const uint stride = stride_of(p.axis), len = p.dims[p.axis], lines = p.n / len;
    const uint nt = gl_WorkGroupSize.x, t = gl_LocalInvocationID.x;
    const uint G = p.group_lines, per_line = nt / G;
    const uint g = t / per_line, tl = t % per_line;  // this invocation's line of the block, its band
    const uint w = (len + per_line - 1) / per_line, b0 = min(tl * w, len), b1 = min(b0 + w, len);
    at0 = g * len;
    integral = integral_sites();
    s2 = double(spacing(p.axis));
    s2 *= s2;
    const bool search = len <= SEARCH_MAX_LEN;
    for (uint first = gl_WorkGroupID.x * G; first < lines; first += gl_NumWorkGroups.x * G) {
        if (t == 0) s_hard = false;
        for (uint k = t; k < MAX_LEN / 32; k += nt) s_todo[k] = 0;
        for (uint k = t; k < G; k += nt) s_count[k] = 0;
        for (uint e = t; e < G * len; e += nt) {
            const uvec2 gl = block_place(e, stride, len, G);
            s_f[gl.x * len + gl.y] = first + gl.x < lines ? src[line_base(first + gl.x, stride, len) + gl.y * stride] : D_INF;
        }
        barrier();
        if (search) {
            // The lines' site lists (positions in any order; a line of more
            // than SITE_LIST sites keeps only its count).
            for (uint e = t; e < G * len; e += nt) {
                const uvec2 gl = block_place(e, stride, len, G);
                if (isinf(s_f[gl.x * len + gl.y])) continue;
                const uint q = atomicAdd(s_count[gl.x], 1u);
                if (q < SITE_LIST) s_link[gl.x * len + q] = gl.y;
            }
            barrier();
            search_block(first, lines, stride, len, G);
            barrier();
            const bool hard = s_hard;
            barrier();  // everyone has read s_hard before the next block clears it
            if (!hard) continue;  // uniform
        }

        uint head = NIL, tail = NIL;
        for (uint l = b0; l < b1; ++l) {
            if (isinf(s_f[at0 + l])) {
                s_link[at0 + l] = DEAD | NIL << 16;
                continue;
            }
            while (tail != head && dominated(prev_of(tail), tail, l)) {
                const uint q = prev_of(tail);
                set_prev(tail, DEAD);
                tail = q;
            }
            s_link[at0 + l] = tail | NIL << 16;
            if (tail != NIL) set_next(tail, l);
            else head = l;
            tail = l;
        }
        s_ends[t] = head | tail << 16;
        barrier();

        for (uint h = 1; h < per_line; h *= 2) {
            if (tl % (2 * h) == 0) {  // tl + h < per_line: both powers of 2
                const uint a = s_ends[t], b = s_ends[t + h];
                if ((a & 0xFFFFu) == NIL) s_ends[t] = b;
                else if ((b & 0xFFFFu) != NIL) {
                    uint a1 = a >> 16, c0 = b & 0xFFFFu;
                    for (;;) {
                        const uint a0 = prev_of(a1);
                        if (a0 != NIL && dominated(a0, a1, c0)) {
                            set_prev(a1, DEAD);
                            a1 = a0;
                            continue;
                        }
                        const uint c1 = next_of(c0);
                        if (c1 != NIL && dominated(a1, c0, c1)) {
                            set_prev(c0, DEAD);
                            c0 = c1;
                            continue;
                        }
                        break;
                    }
                    set_next(a1, c0);
                    set_prev(c0, a1);
                    s_ends[t] = (a & 0xFFFFu) | (b & 0xFFFF0000u);
                }
            }
            barrier();
        }

        // Intervals telescope, so every element gets an owner even where
        // rounding (sampled) makes neighbouring bounds cross.
        for (uint l = b0; l < b1; ++l) {
            const uint pj = prev_of(l), qj = next_of(l);
            if (pj == DEAD) continue;
            const int lo = pj == NIL ? 0 : bound(pj, l, len) + 1;
            const int hi = qj == NIL ? int(len) - 1 : bound(l, qj, len);
            for (int x = lo; x <= hi; ++x) s_owner[at0 + x] = l;
        }
        barrier();

        for (uint e = t; e < G * len; e += nt) {
            const uvec2 gl = block_place(e, stride, len, G);
            const uint line = first + gl.x, x = gl.y;
            if (line >= lines || (search && (s_todo[e / 32] >> (e % 32) & 1u) == 0)) continue;
            at0 = gl.x * len;  // the element's line, not necessarily this invocation's
            D best = D_INF;
            if ((s_ends[gl.x * per_line] & 0xFFFFu) != NIL) {  // the line has a site
                const uint o = s_owner[at0 + x], pj = prev_of(o), qj = next_of(o);
                best = candidate(o, x);
                if (pj != NIL) best = min(best, candidate(pj, x));
                if (qj != NIL) best = min(best, candidate(qj, x));
            }
            const uint i = line_base(line, stride, len) + x * stride;
            dst[i] = p.final_ != 0 ? finish(i, best) : best;
        }
        at0 = g * len;
        barrier();  // the next block overwrites s_f, s_link and s_owner
    }
}
