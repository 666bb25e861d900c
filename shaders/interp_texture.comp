#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32
// interp_map for a 2-D float32 input at order 1 and a coordinates array
// (SOURCE 2, 3), its taps gathered from the input as an image (binding 4,
// written by image_fill) where they are inside it. Bindings, push constants
// and specialization constants are interp_map's.
#define INTERP_TEXTURE
#include "interp_map.glsl"
