#pragma once
// Neighbourhoods of the morphology and rank filters (kiln/morphology.hpp,
// kiln/rank_filters.hpp), as scipy.ndimage's `size`, `footprint` and
// `structure` arguments describe them.
#include <array>
#include <cstdint>
#include <vector>

#include "kiln/host_array.hpp"
#include "kiln/shape.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// A neighbourhood of 1 to 3 dimensions: a shape and one flag per element
/// (C order), true where the element belongs to it. Its centre is element
/// (shape[d] / 2) along each axis, shifted by `origin` as scipy.ndimage's
/// origin shifts it (centre + origin[d]; origin within
/// [-(shape[d] / 2), (shape[d] - 1) / 2]).
struct Footprint {
    Shape shape;
    std::vector<uint8_t> mask;  ///< 0 or 1 per element, C order
    std::vector<int> origin;    ///< one per axis; empty means all 0

    /// A full box (scipy's `size=`): sizes in (z, y, x) order, one per axis
    /// of the array it filters. Throws InvalidArgument for no sizes, more
    /// than 3, or a size below 1.
    static Footprint box(const std::vector<int64_t>& sizes);
    /// scipy.ndimage.generate_binary_structure(rank, connectivity): elements
    /// within `connectivity` steps of the centre (1: a cross, rank: the full
    /// 3^rank box). Throws InvalidArgument for rank outside 1..3 or
    /// connectivity outside 1..rank.
    static Footprint binary_structure(size_t rank, int connectivity);
    /// The nonzero elements of an array of any dtype (scipy's `footprint=`
    /// and `structure=`). Throws InvalidArgument for an array of more than 3
    /// dimensions or with no nonzero element.
    static Footprint from_host(const HostArray& array);

    size_t ndim() const { return shape.ndim(); }
    /// Number of elements in the neighbourhood.
    size_t count() const;
    /// Whether every element belongs to it (a box: separable filters apply).
    bool is_box() const;
    /// The offsets (dz, dy, dx) of its elements from the centre (origin
    /// applied), for an array of `ndim` dimensions: a footprint of fewer
    /// dimensions applies to the last axes. Throws InvalidArgument when the
    /// footprint has more dimensions than the array, or its origin is out of
    /// range.
    std::vector<std::array<int, 3>> offsets(size_t ndim) const;
    /// The footprint mirrored through its centre: elements reversed along
    /// every axis and the origin moved as scipy's grey_dilation and
    /// binary_dilation move it (-origin, one less along an even axis), so
    /// its offsets are this one's negated.
    Footprint reflected() const;
};

}  // namespace kiln
#pragma GCC visibility pop
