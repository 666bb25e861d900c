#pragma once
// Marker-based watershed on the GPU (skimage.segmentation.watershed).
#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// skimage.segmentation.watershed(image, markers, connectivity, mask=mask)
/// of a 1-, 2- or 3-D image: int32 labels, each marked basin flooded from
/// its markers (markers: nonzero labels, any dtype, converted to int32 as
/// skimage does; 0 = unlabelled). Elements outside the mask (any dtype,
/// nonzero = inside; a null Array means everywhere) and elements no marker
/// reaches stay 0. connectivity as skimage: a neighbour differs by one in
/// at most that many coordinates (1 .. ndim: 4 or 8 neighbours in 2-D, 6, 18
/// or 26 in 3-D).
///
/// The rule: F(p), the least over paths from a marker to p of the largest
/// image value on the path; every element takes the smallest label among its
/// neighbours of least F. On images without plateaus (no two elements of
/// equal value) this is exactly skimage's result: its heap pops elements in
/// phases of increasing F, all elements of one phase carry one label, and
/// an element takes the label of its neighbour popped first, one of least F
/// (checked against skimage on 3000 random cases by
/// tests/data/make_distance.py --prove). On plateaus skimage splits by
/// arrival time (entry age); here the smallest label of the least-F
/// neighbours wins instead, so results may differ there.
///
/// Computed by relaxation: tiles iterate in shared memory until stable,
/// rounds of tiles until nothing changes (a changed flag per round; batches
/// of 16 rounds between host checks): first F, then the labels.
/// Compactness and watershed lines are not offered.
/// Throws InvalidArgument for a null image or markers, shapes that differ,
/// a rank outside 1-3 or a connectivity outside 1..ndim; Unsupported for
/// float64 images (cast to float32, which keeps values distinct only if
/// they were float32 values) and 2^31 elements or more.
Array watershed(const Array& image, const Array& markers, const Array& mask = Array(), int connectivity = 1);

}  // namespace kiln
#pragma GCC visibility pop
