#pragma once
// Tools on label images (int32, 0 = background): renumbering, removing
// labels on the border or outside a size range, sizes, bounding boxes,
// label dilation, and pyclesperanto's Voronoi-Otsu labelling.
#include <cstdint>

#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// skimage.segmentation.relabel_sequential(labels)[0]: the labels present
/// renumbered 1..N in increasing order of their old value; 0 stays 0.
/// int32 in and out. Throws InvalidArgument for a null array, another dtype
/// or a negative label (scikit-image refuses them too).
Array relabel_sequential(const Array& labels);

/// pyclesperanto's exclude_labels_on_edges: labels with a pixel on a face of
/// the image (first or last index of an axis longer than 1) become 0; every
/// other label value v in 1..max(labels) gets the number of values in 1..v
/// that are not removed, present in the image or not, as pyclesperanto
/// numbers them (a label image without gaps, such as label()'s, comes out
/// without gaps). Same checks as relabel_sequential.
Array exclude_labels_on_edges(const Array& labels);

/// pyclesperanto's exclude_labels_outside_size_range (alias
/// remove_labels_outside_size_range): labels whose pixel count lies outside
/// [minimum_size, maximum_size] become 0, the rest are renumbered as
/// exclude_labels_on_edges does (absent values count as size 0). Same checks,
/// and InvalidArgument for minimum_size > maximum_size.
Array exclude_labels_outside_size_range(const Array& labels, double minimum_size = 0, double maximum_size = 100);

/// numpy.bincount(labels.ravel())[1:]: the pixel count of every label 1..max
/// as an int32 array of max(labels) elements. Throws InvalidArgument for an
/// image without labels (the result would be empty), and as relabel_sequential.
Array label_sizes(const Array& labels);

/// scipy.ndimage.find_objects(labels) as an int32 array of shape (N, 2*ndim),
/// N = max(labels): per label, start and stop along each axis in (z,) y, x
/// order; a label that does not occur (SciPy's None) gets -1 -1 on every
/// axis. Values <= 0 are background. Throws InvalidArgument for a null
/// array, another dtype than int32, and an image without labels (no rows).
Array find_objects(const Array& labels);

/// pyclesperanto's dilate_labels(labels, radius): `radius` steps that give
/// every background pixel the largest label among its neighbours, the
/// steps alternating between the 3x3(x3) box (first) and the 4 (6) face
/// neighbours, so labels grow as octagons and never overwrite each other.
/// (skimage.segmentation.expand_labels grows by Euclidean distance instead
/// and is a different result.) radius 0 returns a copy.
Array dilate_labels(const Array& labels, int radius = 2);

/// pyclesperanto's voronoi_otsu_labeling(image, spot_sigma, outline_sigma):
/// the spots are the strict local maxima (3x3(x3) box, neighbours read
/// clamped to the edge, see detect_maxima_box) of gaussian_blur(image,
/// spot_sigma) inside the foreground, gaussian_blur(image, outline_sigma) >
/// threshold_otsu of it; spots are labelled with box connectivity (8 or 26,
/// numbered in raster order as scipy.ndimage.label) and grown inside the
/// foreground as pyclesperanto's masked_voronoi_labeling: dilate_labels'
/// alternating steps until a step changes nothing, the larger label
/// winning where two arrive at once. int32 result. Waits for the GPU for the
/// threshold and every 16 growth steps.
Array voronoi_otsu_labeling(const Array& image, double spot_sigma = 2, double outline_sigma = 2);

}  // namespace kiln
#pragma GCC visibility pop
