#pragma once
// Automatic thresholds with scikit-image's definitions (skimage.filters
// threshold_otsu, threshold_yen, threshold_triangle, threshold_li), each
// computed from a histogram or reductions on the GPU and a small host step.
#include "kiln/array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// skimage.filters.threshold_otsu(image, nbins): the bin centre maximising
/// the between-class variance, bit for bit as scikit-image 0.19 on the same
/// histogram. The histogram is skimage.exposure.histogram's: for float
/// images numpy.histogram(image, nbins) over the finite min..max (centres
/// (e[i] + e[i+1]) / 2 in the image's float type); for integer images one
/// bin per integer from min to max (nbins is ignored, as there). The host
/// step repeats NumPy's float64 cumulative sums in the same order. NaN and
/// infinities are left out (scikit-image raises on them). An image with one
/// value returns that value. Waits for the GPU (the range, then the 256
/// counts). Throws InvalidArgument for a null or empty image, nbins < 1, an
/// image with no finite value, and Unsupported for an integer image whose
/// range spans more than 2^24 values.
double threshold_otsu(const Array& image, int nbins = 256);

/// skimage.filters.threshold_yen(image, nbins) on the same histogram as
/// threshold_otsu, in float32 as scikit-image computes it (pmf, cumulative
/// sums and the log criterion are float32 there); the log is the C
/// library's logf, NumPy's may differ in the last bit, which moves the
/// result only on an exact tie of two criteria. Same errors as threshold_otsu.
double threshold_yen(const Array& image, int nbins = 256);

/// skimage.filters.threshold_triangle(image, nbins): the bin centre farthest
/// from the line joining the histogram's peak to its far end, float64
/// arithmetic as there. Same histogram and errors as threshold_otsu; also
/// throws InvalidArgument for an image of one value (scikit-image fails there).
double threshold_triangle(const Array& image, int nbins = 256);

/// skimage.filters.threshold_li(image, tolerance): Li's iterative minimum
/// cross entropy, iterated on the image values as scikit-image does; each
/// iteration is one reduction on the GPU (count and sum of the values above
/// the current threshold, in float64) and one read-back, 4 to 20 iterations
/// on usual images. Values are shifted by the minimum in the image's type
/// (float32 for float32 images), the means and the update rounded to
/// float32 for float32 images as NumPy's float32 means are (NumPy sums them
/// pairwise in float32, kiln in float64: the two agree to a few float32
/// ulps). tolerance <= 0 picks the default: 0.5 for integer images (as
/// scikit-image); for float images scikit-image's default (half the smallest
/// gap between distinct values) needs a sort, so kiln iterates instead until
/// the set of values above the threshold stops changing, where the update
/// has reached its fixed point; scikit-image can stop one step earlier,
/// within half that gap. Initial guess: the mean. NaN and infinities are
/// left out; an image of one value returns it; no finite value returns NaN.
/// Throws InvalidArgument for a null or empty image.
double threshold_li(const Array& image, double tolerance = 0);

}  // namespace kiln
#pragma GCC visibility pop
