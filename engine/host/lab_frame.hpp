#pragma once
// The laboratory frame of a detector geometry (kiln/geometry.hpp), in GLM
// types: internal to the host layer and its tests.
#include <glm/glm.hpp>

#include "kiln/geometry.hpp"

namespace kiln {

/// R = R3 R2 R1, taking detector coordinates relative to the sample into the
/// laboratory frame (beam along the third axis).
glm::dmat3 rotation(const Geometry& g);

/// Laboratory position (t1, t2, t3), metres, of the detector point at
/// continuous pixel coordinates (y, x): pixel (i, j) spans [i, i+1) x [j, j+1).
glm::dvec3 lab_position(const Geometry& g, double y, double x);

}  // namespace kiln
