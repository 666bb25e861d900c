#version 450
// The viewer's colour step: one invocation per window pixel writes its RGBA8
// colour into a kiln array, which the application copies into the window.
// The layout and colours are compose.glsl's, pasted in where the include
// line stands (kiln::Kernel compiles one source, without includes).
layout(local_size_x = 16, local_size_y = 16) in;

#define SHARED
#include "compose.glsl"

layout(binding = 0) readonly buffer Image { float image[]; };
layout(binding = 1) readonly buffer Blur { float blur[]; };
layout(binding = 2) readonly buffer Labels { int labels[]; };
layout(binding = 3) readonly buffer Stats { float stats[]; };  // median, std of the clipped image (float32)
layout(binding = 4) writeonly buffer Picture { uint picture[]; };
layout(push_constant) uniform Push { Params p; } push;

void main() {
    int ox = int(gl_GlobalInvocationID.x);
    int oy = int(gl_GlobalInvocationID.y);
    if (ox >= push.p.width || oy >= push.p.height) return;
    Sample s = locate(push.p, ox, oy);
    float v = 0.0f;
    float b = 0.0f;
    int l = 0;
    if (s.index >= 0) {
        v = image[s.index];
        b = blur[s.index];
        l = labels[s.index];
    }
    picture[oy * push.p.width + ox] = pixel_colour(s, v, b, l, stats[0], stats[1], push.p);
}
