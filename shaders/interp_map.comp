#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
//! variants: float32 float64 int8 uint8 int16 uint16 int32 uint32
// B-spline interpolation of order ORDER (0, 1, 3) at mapped coordinates, as
// scipy.ndimage's NI_ZoomShift and NI_GeometricTransform: one output per
// invocation (a mapping's rows of the last axis from workgroups y and z; a
// coordinates array's outputs grid-stride). Per axis the input coordinate comes from (SOURCE)
//   SOURCE 0: zoom/shift   c = o; c += shift; c = grid ? (c + 0.5) * zoom - 0.5 : c * zoom
//   SOURCE 1: matrix       c = sum_l o[l] * m[a][l] + offset[a]
//   SOURCE 2, 3: a coordinates array (float32, float64) of NDIM rows of count
// computed in double with `precise` (no fused multiply-adds), so that order 0
// picks the element SciPy picks at exact halves; the weights are R. Taps
// beyond the edges follow the mode (constant and wrap read mirrored taps,
// grid-constant reads cval), as SciPy's; the mode (SciPy's code) is in
// flags. An axis flagged in `flags` passes
// its output index through (rotate of a volume, plane by plane).
#include "interp_map.glsl"
