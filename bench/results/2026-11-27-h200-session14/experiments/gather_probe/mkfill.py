# Fill variants: R rows per invocation, V consecutive texels per invocation (vec4 load when 4).
tmpl = """#version 450
layout(local_size_x = {lx}, local_size_y = {ly}) in;
layout(push_constant) uniform P {{ int h; int w; uint count; }} p;
layout(std430, binding = 0) readonly buffer In {{ {T} src[]; }};
layout(std430, binding = 1) readonly buffer Co {{ float co[]; }};
layout(r32f, binding = 2) uniform writeonly image2D dst;
void main() {{
    const int x0 = int(gl_GlobalInvocationID.x) * {V}, y0 = int(gl_GlobalInvocationID.y) * {R};
    if (x0 >= p.w) return;
    for (int r = 0; r < {R}; ++r) {{
        const int y = y0 + r;
        if (y >= p.h) return;
        {body}
    }}
}}
"""
V1 = "imageStore(dst, ivec2(x0, y), vec4(src[y * p.w + x0]));"
V4 = """const vec4 v = src[(y * p.w + x0) / 4];
        imageStore(dst, ivec2(x0, y), vec4(v.x)); imageStore(dst, ivec2(x0 + 1, y), vec4(v.y));
        imageStore(dst, ivec2(x0 + 2, y), vec4(v.z)); imageStore(dst, ivec2(x0 + 3, y), vec4(v.w));"""
V2 = """const vec2 v = src[(y * p.w + x0) / 2];
        imageStore(dst, ivec2(x0, y), vec4(v.x)); imageStore(dst, ivec2(x0 + 1, y), vec4(v.y));"""
variants = {
 "r8": dict(lx=64, ly=4, V=1, R=8, T="float", body=V1),
 "r2": dict(lx=64, ly=4, V=1, R=2, T="float", body=V1),
 "v4": dict(lx=64, ly=4, V=4, R=1, T="vec4", body=V4),
 "v4r4": dict(lx=64, ly=4, V=4, R=4, T="vec4", body=V4),
 "v2r2": dict(lx=64, ly=4, V=2, R=2, T="vec2", body=V2),
 "v2r4": dict(lx=32, ly=8, V=2, R=4, T="vec2", body=V2),
}
import subprocess
for k, d in variants.items():
    open(f"fill_{k}.comp", "w").write(tmpl.format(**d))
    subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.2", "-o", f"fill_{k}.spv", f"fill_{k}.comp"], check=True, stdout=subprocess.DEVNULL)
    print(k, d["lx"], d["ly"], d["V"], d["R"])
