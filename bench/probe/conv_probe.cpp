// Diagnostic: W3 and W4 kernels written as user kernels in other shapes, timed
// beside the built-in ops and a plain copy of the same bytes, each checked
// against the built-in result. An experiment bench, not a test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/kiln.hpp"
using namespace kiln;
using clk = std::chrono::steady_clock;

namespace {

std::string fmt(const char* f, auto... a) {
    char b[512];
    std::snprintf(b, sizeof b, f, a...);
    return b;
}

std::vector<std::unique_ptr<Graph>> hold_graphs;
Array hold_big;
std::vector<Array> hold_out(3);

void hold(Context& ctx) {
    if (std::getenv("PROBE_NOHOLD")) return;
    if (hold_graphs.empty()) {
        hold_big = Array::full(ctx, Shape{1ull << 26}, 1.0);
        for (int i = 0; i < 3; ++i) {
            hold_graphs.push_back(std::make_unique<Graph>(ctx));
            auto cap = hold_graphs.back()->capture();
            hold_out[i] = copy(hold_big);
        }
    }
    auto t = clk::now();
    size_t k = 0;
    while (std::chrono::duration<double, std::milli>(clk::now() - t).count() < 300)
        hold_graphs[k++ % 3]->launch();
    ctx.sync();
}

int repeats = 30;

double time_it(Context& ctx, const std::string& what, const std::function<void()>& fn) {
    hold(ctx);
    auto r = benchmark(ctx, fn, repeats, 5);
    double m = r.gpu_median();
    std::printf("%-48s %8.4f ms  (min %.4f)\n", what.c_str(), m, r.gpu_min());
    std::fflush(stdout);
    return m;
}

template <typename T>
double max_diff(const Array& a, const Array& b) {
    auto x = a.to_vector<T>(), y = b.to_vector<T>();
    if (x.size() != y.size()) return 1e30;
    double d = 0;
    for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(double(x[i]) - double(y[i])));
    return d;
}

std::string weights_glsl(const std::vector<double>& w) {
    std::string s = fmt("const float WT[%zu] = float[%zu](", w.size(), w.size());
    for (size_t i = 0; i < w.size(); ++i) s += fmt("%s%.9g", i ? ", " : "", w[i]);
    return s + ");\n";
}

const char* refl = R"(
int refl(int i, int n) { return i < 0 ? -i - 1 : i >= n ? 2 * n - 1 - i : i; }
)";

// Row pass: 4 outputs per invocation from 5 vec4 loads.
std::string row_pass(const std::string& wt) {
    return "#version 450\nlayout(local_size_x = 64, local_size_y = 4) in;\n" + wt + refl + R"(
layout(binding = 0) readonly buffer I { vec4 src4[]; };
layout(binding = 1) readonly buffer I1 { float src[]; };
layout(binding = 2) writeonly buffer O { vec4 dst4[]; };
layout(push_constant) uniform P { uint W, H; } p;
void main() {
    uint y = gl_GlobalInvocationID.y, x4 = gl_GlobalInvocationID.x;
    if (y >= p.H || x4 * 4 >= p.W) return;
    int x0 = int(x4 * 4);
    float f[20];
    if (x0 >= 8 && x0 + 12 <= int(p.W)) {
        uint at = (y * p.W + uint(x0) - 8) / 4;
        for (int v = 0; v < 5; ++v) { vec4 q = src4[at + v]; f[4*v] = q.x; f[4*v+1] = q.y; f[4*v+2] = q.z; f[4*v+3] = q.w; }
    } else {
        for (int k = 0; k < 20; ++k) f[k] = src[y * p.W + uint(refl(x0 - 8 + k, int(p.W)))];
    }
    vec4 o = vec4(0);
    for (int k = 0; k < 17; ++k) o += WT[k] * vec4(f[k], f[k+1], f[k+2], f[k+3]);
    dst4[(y * p.W) / 4 + x4] = o;
}
)";
}

// Column pass: a vec4 column of PY outputs from PY + 16 vec4 loads.
std::string col_pass(const std::string& wt, int py, int lx, int ly) {
    return fmt("#version 450\nlayout(local_size_x = %d, local_size_y = %d) in;\nconst int PY = %d;\n",
               lx, ly, py) +
           wt + refl + R"(
layout(binding = 0) readonly buffer I { vec4 src4[]; };
layout(binding = 1) writeonly buffer O { vec4 dst4[]; };
layout(push_constant) uniform P { uint W, H; } p;
void main() {
    uint x4 = gl_GlobalInvocationID.x, y0 = gl_GlobalInvocationID.y * PY;
    uint W4 = p.W / 4;
    if (x4 >= W4 || y0 >= p.H) return;
    vec4 v[PY + 16];
    for (int t = 0; t < PY + 16; ++t) v[t] = src4[uint(refl(int(y0) - 8 + t, int(p.H))) * W4 + x4];
    for (int i = 0; i < PY; ++i) {
        if (y0 + i >= p.H) break;
        vec4 o = vec4(0);
        for (int k = 0; k < 17; ++k) o += WT[k] * v[i + k];
        dst4[(y0 + i) * W4 + x4] = o;
    }
}
)";
}

// The row pass of the fused kernels: shared intermediate row r to memory.
const std::string row_stage = R"(
    for (int i = 0; i < PY; ++i) {
        int r = ty * PY + i;
        if (m0 + r >= H || n0 + tx * 4 >= W) break;
        float f[20];
        for (int v = 0; v < 5; ++v) { vec4 q = tmid[r * CW + tx + v]; f[4*v] = q.x; f[4*v+1] = q.y; f[4*v+2] = q.z; f[4*v+3] = q.w; }
        vec4 o = vec4(0);
        for (int k = 0; k < 17; ++k) o += WT[k] * vec4(f[k], f[k+1], f[k+2], f[k+3]);
        dst4[(m0 + r) * W4 + n0 / 4 + tx] = o;
    }
}
)";

// Fused: the input tile (TH + 16) x (TW + 16) into shared memory by vec4,
// the column pass from shared into a shared intermediate, the row pass from
// that to memory. LX vec4 columns by LY rows of invocations; TH = LY * PY.
std::string fused(const std::string& wt, int lx, int ly, int py, int pyv) {
    return fmt("#version 450\nlayout(local_size_x = %d, local_size_y = %d) in;\n"
               "const int LX = %d, LY = %d, PY = %d, PYV = %d, TH = LY * PY, CW = LX + 4;\n",
               lx, ly, lx, ly, py, pyv) +
           wt + refl + R"(
layout(binding = 0) readonly buffer I { vec4 src4[]; };
layout(binding = 1) readonly buffer I1 { float src[]; };
layout(binding = 2) writeonly buffer O { vec4 dst4[]; };
layout(push_constant) uniform P { uint W, H; } p;
shared vec4 tin[(TH + 16) * CW];
shared vec4 tmid[TH * CW];
void main() {
    const int W = int(p.W), H = int(p.H), W4 = W / 4;
    const int n0 = int(gl_WorkGroupID.x) * LX * 4, m0 = int(gl_WorkGroupID.y) * TH;
    const int lid = int(gl_LocalInvocationIndex);
    const int c40 = n0 / 4 - 2;
    for (int idx = lid; idx < (TH + 16) * CW; idx += LX * LY) {
        int r = idx / CW, c = idx % CW;
        int row = refl(m0 - 8 + r, H);
        int c4 = c40 + c;
        vec4 q;
        if (c4 >= 0 && c4 < W4) q = src4[row * W4 + c4];
        else for (int k = 0; k < 4; ++k) q[k] = src[row * W + refl(c4 * 4 + k, W)];
        tin[idx] = q;
    }
    barrier();
    for (int idx = lid; idx < (TH / PYV) * CW; idx += LX * LY) {
        int g = idx / CW, c = idx % CW;
        vec4 v[PYV + 16];
        for (int t = 0; t < PYV + 16; ++t) v[t] = tin[(g * PYV + t) * CW + c];
        for (int i = 0; i < PYV; ++i) {
            vec4 o = vec4(0);
            for (int k = 0; k < 17; ++k) o += WT[k] * v[i + k];
            tmid[(g * PYV + i) * CW + c] = o;
        }
    }
    barrier();
    const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
)" + row_stage;
}

// Fused, the column pass from memory: each invocation a vec4 column strip of
// PY rows from PY + 16 loads into the shared intermediate, then the row pass.
std::string fused_reg(const std::string& wt, int lx, int ly, int py) {
    return fmt("#version 450\nlayout(local_size_x = %d, local_size_y = %d) in;\n"
               "const int LX = %d, LY = %d, PY = %d, TH = LY * PY, CW = LX + 4;\n",
               lx, ly, lx, ly, py) +
           wt + refl + R"(
layout(binding = 0) readonly buffer I { vec4 src4[]; };
layout(binding = 1) readonly buffer I1 { float src[]; };
layout(binding = 2) writeonly buffer O { vec4 dst4[]; };
layout(push_constant) uniform P { uint W, H; } p;
shared vec4 tmid[TH * CW];
void main() {
    const int W = int(p.W), H = int(p.H), W4 = W / 4;
    const int n0 = int(gl_WorkGroupID.x) * LX * 4, m0 = int(gl_WorkGroupID.y) * TH;
    const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    const int c40 = n0 / 4 - 2;
    for (int c = tx; c < CW; c += LX) {
        int c4 = c40 + c;
        vec4 v[PY + 16];
        for (int t = 0; t < PY + 16; ++t) {
            int row = refl(m0 + ty * PY - 8 + t, H);
            if (c4 >= 0 && c4 < W4) v[t] = src4[row * W4 + c4];
            else for (int k = 0; k < 4; ++k) v[t][k] = src[row * W + refl(c4 * 4 + k, W)];
        }
        for (int i = 0; i < PY; ++i) {
            vec4 o = vec4(0);
            for (int k = 0; k < 17; ++k) o += WT[k] * v[i + k];
            tmid[(ty * PY + i) * CW + c] = o;
        }
    }
    barrier();
)" + row_stage;
}

// W3: numpy.convolve full of n doubles with 15 device taps; PX outputs per
// invocation from (PX + 14) / 2 dvec2 loads straight from memory.
std::string conv1d_direct(int px, int lx) {
    return fmt("#version 450\n#extension GL_EXT_control_flow_attributes : require\nlayout(local_size_x = %d) in;\nconst int PX = %d, K = 15, NW = (PX + 16) / 2;\n",
               lx, px) +
           R"(
layout(binding = 0) readonly buffer A { dvec2 a2[]; };
layout(binding = 1) readonly buffer V { double v[]; };
layout(binding = 2) writeonly buffer O { dvec2 o2[]; };
layout(push_constant) uniform P { uint n, len; } p;
void main() {
    const int i0 = int(gl_GlobalInvocationID.x) * PX;
    if (i0 >= int(p.len)) return;
    double w[K];
    [[unroll]] for (int t = 0; t < K; ++t) w[t] = v[t];
    double f[2 * NW];
    const int s = i0 - 16;  // even: the window starts on a dvec2
    if (s >= 0 && s + 2 * NW <= int(p.n)) {
        [[unroll]] for (int q = 0; q < NW; ++q) { dvec2 d = a2[s / 2 + q]; f[2*q] = d.x; f[2*q+1] = d.y; }
    } else {
        [[unroll]] for (int q = 0; q < NW; ++q) {
            int j = s / 2 + q;
            dvec2 d = (j >= 0 && 2 * j < int(p.n)) ? a2[j] : dvec2(0);
            f[2*q] = d.x; f[2*q+1] = d.y;
        }
    }
    double acc[PX];
    [[unroll]] for (int o = 0; o < PX; ++o) {
        acc[o] = 0;
        [[unroll]] for (int t = 0; t < K; ++t) acc[o] += w[t] * f[o + 16 - t];
    }
    [[unroll]] for (int o = 0; o < PX; o += 2)
        if (i0 + o < int(p.len)) o2[(i0 + o) / 2] = dvec2(acc[o], acc[o + 1]);
}
)";
}

// W3 through shared memory: the workgroup's window by dvec2, then PX outputs
// per invocation.
std::string conv1d_shared(int px, int lx) {
    return fmt("#version 450\n#extension GL_EXT_control_flow_attributes : require\nlayout(local_size_x = %d) in;\nconst int LX = %d, PX = %d, K = 15, TW = LX * PX, NV = (TW + 16) / 2;\n",
               lx, lx, px) +
           R"(
layout(binding = 0) readonly buffer A { dvec2 a2[]; };
layout(binding = 1) readonly buffer V { double v[]; };
layout(binding = 2) writeonly buffer O { dvec2 o2[]; };
layout(push_constant) uniform P { uint n, len; } p;
shared dvec2 tile[NV];
void main() {
    const int n0 = int(gl_WorkGroupID.x) * TW, tx = int(gl_LocalInvocationID.x);
    const int s2 = n0 / 2 - 8;  // the window from n0 - 16 by dvec2
    for (int q = tx; q < NV; q += LX) {
        int j = s2 + q;
        tile[q] = (j >= 0 && 2 * j < int(p.n)) ? a2[j] : dvec2(0);
    }
    double w[K];
    [[unroll]] for (int t = 0; t < K; ++t) w[t] = v[t];
    barrier();
    // invocation tx makes outputs n0 + tx * PX .. + PX - 1 from window
    // values (n0 + tx * PX - 16) ..: tile index tx * PX / 2 ..
    double f[PX + 16];
    [[unroll]] for (int q = 0; q < PX / 2 + 8; ++q) { dvec2 d = tile[tx * PX / 2 + q]; f[2*q] = d.x; f[2*q+1] = d.y; }
    double acc[PX];
    [[unroll]] for (int o = 0; o < PX; ++o) {
        acc[o] = 0;
        [[unroll]] for (int t = 0; t < K; ++t) acc[o] += w[t] * f[o + 16 - t];
    }
    const int i0 = n0 + tx * PX;
    [[unroll]] for (int o = 0; o < PX; o += 2)
        if (i0 + o < int(p.len)) o2[(i0 + o) / 2] = dvec2(acc[o], acc[o + 1]);
}
)";
}

const char* copy4 = R"(#version 450
layout(local_size_x = 256) in;
layout(binding = 0) readonly buffer I { vec4 s[]; };
layout(binding = 1) writeonly buffer O { vec4 d[]; };
layout(push_constant) uniform P { uint n; } p;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) d[i] = s[i]; }
)";

const char* empty = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) writeonly buffer O { float d[]; };
void main() { if (gl_GlobalInvocationID.x == 1000000u) d[0] = 1; }
)";

}  // namespace

int main(int argc, char** argv) {
    std::string only = argc > 1 ? argv[1] : "";
    if (argc > 2) repeats = std::atoi(argv[2]);
    ContextOptions o;
    o.timing = Timing::submission;
    Context ctx(o);
    std::printf("%s\n", ctx.device().name.c_str());
    auto want = [&](const char* tag) { return only.empty() || only.find(tag) != std::string::npos; };

    Array scratch = Array::zeros(ctx, Shape{16}, DType::float32);
    Kernel k_empty(ctx, empty, "main", {}, "empty");
    Kernel k_copy(ctx, copy4, "main", {}, "copy4");
    time_it(ctx, "empty dispatch (1 workgroup)", [&] { k_empty(scratch).groups(1); });
    time_it(ctx, "two empty dispatches", [&] { k_empty(scratch).groups(1); k_empty(scratch).groups(1); });

    if (only == "floor") {
        const size_t side = 2048, n = side * side;
        Array image = Array::full(ctx, Shape{side, side}, 1.0f);
        Array out = Array::empty(ctx, Shape{side, side}, DType::float32);
        time_it(ctx, "copy 16 MiB float32 (vec4)", [&] { k_copy(image, out).push(uint32_t(n / 4)).grid(n / 4); });
        time_it(ctx, "W4 built-in gaussian_filter", [&] { out = gaussian_filter(image, {0, 2, 2}); });
        return 0;
    }
    if (only == "1d") {
        const size_t n = 4ull << 20;
        std::vector<double> a(n), v(15);
        for (size_t i = 0; i < n; ++i) a[i] = double((i * 2654435761u) % 1000) / 1000;
        for (int i = 0; i < 15; ++i) v[i] = 1.0 / (1 + i);
        for (DType t : {DType::float64, DType::float32}) {
            Array aa = cast(Array::from(ctx, Shape{n}, a), t), vv = cast(Array::from(ctx, Shape{15}, v), t);
            Array out;
            time_it(ctx, "convolve 4M x 15 " + std::string(dtype_name(t)), [&] { out = convolve(aa, vv); });
            const std::vector<double> w15(v.begin(), v.end());
            time_it(ctx, "convolve1d 1 x 4M x 15 (host taps) " + std::string(dtype_name(t)),
                    [&] { out = convolve1d(aa, w15, -1); });
            Array img = aa.reshape(Shape{2048, 2048});
            const std::vector<double> w17(17, 1.0 / 17);
            time_it(ctx, "convolve1d 2048^2 x 17, last axis, " + std::string(dtype_name(t)),
                    [&] { out = convolve1d(img, w17, -1); });
        }
        return 0;
    }
    if (want("4")) {
        const size_t side = 2048, n = side * side;
        std::vector<float> img(n);
        uint32_t state = 12345;
        for (float& v : img) v = float((state = state * 1664525u + 1013904223u) >> 8) / 16777216.0f;
        Array image = Array::from(ctx, Shape{side, side}, img);
        Array out = Array::empty(ctx, Shape{side, side}, DType::float32);
        Array mid = Array::empty(ctx, Shape{side, side}, DType::float32);
        time_it(ctx, "copy 16 MiB float32 (vec4)", [&] { k_copy(image, out).push(uint32_t(n / 4)).grid(n / 4); });
        Array ref;
        time_it(ctx, "W4 built-in gaussian_filter", [&] { ref = gaussian_filter(image, {0, 2, 2}); });
        std::vector<double> w(17);
        double total = 0;
        for (int i = 0; i < 17; ++i) total += w[i] = std::exp(-0.5 / 4.0 * (i - 8) * (i - 8));
        for (double& x : w) x /= total;
        const std::string wt = weights_glsl(w);
        const uint32_t W = side, H = side;
        Kernel rp(ctx, row_pass(wt), "main", {}, "rowpass");
        for (int py : {4}) {
            Kernel cp(ctx, col_pass(wt, py, 64, 4), "main", {}, fmt("colpass%d", py));
            double t = time_it(ctx, fmt("W4 two passes col(py=%d) then row", py), [&] {
                cp(image, mid).push(W).push(H).grid(W / 4, H / py);
                rp(mid, mid, out).push(W).push(H).grid(W / 4, H);
            });
            (void)t;
            std::printf("    max diff %.3g\n", max_diff<float>(out, ref));
        }
        for (auto [lx, ly, py, pyv] : std::vector<std::array<int, 4>>{
                 {16, 16, 2, 4}, {16, 16, 2, 2}, {16, 8, 4, 4}, {8, 32, 1, 4}, {16, 16, 1, 4}, {16, 32, 1, 4}, {16, 16, 4, 4}, {8, 16, 2, 4}, {16, 16, 2, 8}, {32, 8, 2, 4}}) {
            Kernel f(ctx, fused(wt, lx, ly, py, pyv), "main", {}, fmt("fused%d_%d_%d_%d", lx, ly, py, pyv));
            time_it(ctx, fmt("W4 fused shared lx%d ly%d py%d pyv%d", lx, ly, py, pyv), [&] {
                f(image, image, out).push(W).push(H).groups(W / (4 * lx), (H + ly * py - 1) / (ly * py));
            });
            std::printf("    max diff %.3g\n", max_diff<float>(out, ref));
        }
        for (auto [lx, ly, py] : std::vector<std::array<int, 3>>{{32, 8, 4}, {16, 8, 4}}) {
            Kernel f(ctx, fused_reg(wt, lx, ly, py), "main", {}, fmt("fusedreg%d_%d_%d", lx, ly, py));
            time_it(ctx, fmt("W4 fused col-from-memory lx%d ly%d py%d", lx, ly, py), [&] {
                f(image, image, out).push(W).push(H).groups(W / (4 * lx), (H + ly * py - 1) / (ly * py));
            });
            std::printf("    max diff %.3g\n", max_diff<float>(out, ref));
        }
    }
    if (want("3")) {
        const size_t g = 2048, len = g * g;
        std::vector<double> a(len, 0.0), v(15);
        for (size_t y = 8; y < g; y += 16)
            for (size_t x = 8; x < g; x += 16) a[y * g + x] = 1;
        for (int i = 0; i < 15; ++i) v[i] = std::exp(-0.5 * std::pow(-2 + 4.0 * i / 14, 2) * 2);
        Array aa = Array::from(ctx, Shape{len}, a), vv = Array::from(ctx, Shape{15}, v);
        Array out = Array::empty(ctx, Shape{len + 14}, DType::float64);
        time_it(ctx, "copy 32 MiB float64 (vec4)", [&] { k_copy(aa, out).push(uint32_t(len / 2)).grid(len / 2); });
        Array ref;
        time_it(ctx, "W3 built-in convolve", [&] { ref = convolve(aa, vv); });
        for (auto [px, lx] : std::vector<std::array<int, 2>>{{2, 128}, {4, 128}, {8, 128}, {4, 256}, {8, 64}, {16, 64}}) {
            Kernel k(ctx, conv1d_direct(px, lx), "main", {}, fmt("c1d%d_%d", px, lx));
            time_it(ctx, fmt("W3 direct px%d lx%d", px, lx), [&] {
                k(aa, vv, out).push(uint32_t(len)).push(uint32_t(len + 14)).grid((len + 14 + px - 1) / px);
            });
            std::printf("    max diff %.3g\n", max_diff<double>(out, ref));
        }
        for (auto [px, lx] : std::vector<std::array<int, 2>>{{4, 256}, {8, 128}, {8, 256}, {16, 64}, {16, 128}, {32, 64}}) {
            Kernel k(ctx, conv1d_shared(px, lx), "main", {}, fmt("c1s%d_%d", px, lx));
            const uint32_t tw = px * lx;
            time_it(ctx, fmt("W3 shared px%d lx%d", px, lx), [&] {
                k(aa, vv, out).push(uint32_t(len)).push(uint32_t(len + 14)).groups(uint32_t((len + 14 + tw - 1) / tw));
            });
            std::printf("    max diff %.3g\n", max_diff<double>(out, ref));
        }
    }
    return 0;
}
