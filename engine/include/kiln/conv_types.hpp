#pragma once
// Selectors of the convolutions and filters, shared by the GPU ops
// (kiln/convolve.hpp, kiln/filters.hpp) and their CPU references
// (kiln/reference/convolve.hpp, kiln/reference/gaussian.hpp).
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Output extent, as the `mode` of scipy.signal.convolve2d and numpy.convolve.
enum class ConvMode { full, same, valid };

/// How convolve2d reads outside the image, as scipy.signal.convolve2d's
/// `boundary`: fill with a value, wrap around (periodic), or symm (mirror
/// including the edge: d c b a | a b c d | d c b a, repeated as far as needed).
enum class Boundary { fill, wrap, symm };

/// How scipy.ndimage extends its input, as its `mode` (for any distance):
/// reflect  d c b a | a b c d | d c b a   (half-sample symmetric, period 2n)
/// constant k k k k | a b c d | k k k k   (k = cval)
/// nearest  a a a a | a b c d | d d d d
/// mirror   d c b   | a b c d | c b a     (whole-sample symmetric, period 2n - 2;
///                                         a single element repeats)
/// wrap     a b c d | a b c d | a b c d
enum class NdMode { reflect, constant, nearest, mirror, wrap };

/// The selectors by the names SciPy and NumPy give them ("full", "same",
/// "valid"; "fill", "wrap", "symm"; "reflect", "constant", "nearest",
/// "mirror", "wrap"). Throws InvalidArgument naming the accepted ones for
/// any other name.
ConvMode parse_conv_mode(std::string_view name);
Boundary parse_boundary(std::string_view name);
NdMode parse_nd_mode(std::string_view name);
/// The accepted names, in the order above.
std::vector<std::string> conv_mode_names();
std::vector<std::string> boundary_names();
std::vector<std::string> nd_mode_names();

}  // namespace kiln
#pragma GCC visibility pop
