#pragma once
// CPU references for kiln/label_tools.hpp (same definitions, plain loops).
#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

HostArray relabel_sequential(const HostArray& labels);
HostArray exclude_labels_on_edges(const HostArray& labels);
HostArray exclude_labels_outside_size_range(const HostArray& labels, double minimum_size = 0,
                                            double maximum_size = 100);
HostArray label_sizes(const HostArray& labels);
HostArray find_objects(const HostArray& labels);
HostArray dilate_labels(const HostArray& labels, int radius = 2);
/// The growth of voronoi_otsu_labeling: seeds (int32 labels) grown inside
/// mask (nonzero) by alternating box and face steps until nothing changes.
HostArray masked_voronoi_labeling(const HostArray& seeds, const HostArray& mask);
/// voronoi_otsu_labeling from a float image, with cpu::gaussian_filter,
/// threshold_otsu and cpu::label.
HostArray voronoi_otsu_labeling(const HostArray& image, double spot_sigma = 2, double outline_sigma = 2);

}  // namespace kiln::cpu
#pragma GCC visibility pop
