#pragma once
// CPU references for kiln/threshold.hpp, and the host steps the GPU ops share
// with them: the threshold from a histogram (Otsu, Yen, triangle) and Li's
// iteration from sums, each in scikit-image 0.19's arithmetic.
#include <cstdint>
#include <functional>
#include <vector>

#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// skimage.exposure.histogram(image, nbins, source_range='image') over the
/// finite values: counts and bin centres (float images: numpy.histogram's
/// bins, centres in the image's float type; integer images: one bin per
/// integer min..max). `single` marks an image of one value, whose
/// thresholds scikit-image returns before any histogram.
struct ThresholdHistogram {
    std::vector<int64_t> counts;
    std::vector<double> centers;
    bool single = false;
};

/// Centres (e[i] + e[i+1]) / 2 of numpy.histogram's edges, in float32
/// arithmetic when f32 (the edges are then float32 values), else in double.
std::vector<double> bin_centers(const std::vector<double>& edges, bool f32);

ThresholdHistogram threshold_histogram(const HostArray& image, int nbins = 256);

/// The host steps: threshold_otsu, threshold_yen and threshold_triangle of
/// a histogram, as scikit-image computes them from (counts, centres).
double otsu_threshold(const ThresholdHistogram& h);
double yen_threshold(const ThresholdHistogram& h);
double triangle_threshold(const ThresholdHistogram& h);

double threshold_otsu(const HostArray& image, int nbins = 256);
double threshold_yen(const HostArray& image, int nbins = 256);
double threshold_triangle(const HostArray& image, int nbins = 256);

/// Count and sum of shifted values d = x - min (all of them, or those > t).
struct LiSums {
    double count = 0, sum = 0;
};

/// Li's iteration (threshold_li) given the total and a function giving the
/// sums of the values above t; f32: float32 image (means and update rounded
/// to float32), integer: integer image (default tolerance 0.5). Returns the
/// threshold on the shifted values; `iterations` gets the number of sums taken.
double li_iterate(LiSums all, const std::function<LiSums(double)>& above, bool f32, bool integer,
                  double tolerance, int* iterations = nullptr);

/// threshold_li (kiln::threshold_li's definition) with sequential sums.
double threshold_li(const HostArray& image, double tolerance = 0);

}  // namespace kiln::cpu
#pragma GCC visibility pop
