#pragma once
// CPU reference for the rank and box filters (kiln/rank_filters.hpp), with
// scipy.ndimage's semantics: every output gathered and selected with
// std::nth_element; the box mean as a 1-D pass per axis summing in double.
#include <cstdint>
#include <vector>

#include "kiln/conv_types.hpp"
#include "kiln/footprint.hpp"
#include "kiln/host_array.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// scipy.ndimage.rank_filter on a 1-, 2- or 3-D array of any dtype: the
/// element of sorted index `rank` (negative: from the end) under the
/// footprint, as kiln::rank_filter (which throws the same errors; float64
/// is accepted here). Floats compare by value, NaN-free input assumed.
HostArray rank_filter(const HostArray& input, int64_t rank, const Footprint& footprint,
                      NdMode mode = NdMode::reflect, double cval = 0);

/// scipy.ndimage.uniform_filter: a 1-D pass per axis of size > 1, slowest
/// first, each summing in double and dividing by the size, then rounding to
/// the input's dtype (integers truncated toward zero), as SciPy's
/// uniform_filter1d does. Arguments as kiln::uniform_filter.
HostArray uniform_filter(const HostArray& input, const std::vector<int64_t>& sizes,
                         NdMode mode = NdMode::reflect, double cval = 0,
                         const std::vector<int64_t>& origins = {});

}  // namespace kiln::cpu
#pragma GCC visibility pop
