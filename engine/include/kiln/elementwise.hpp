#pragma once
// Element-wise operations: fill, copy, cast, arithmetic, comparisons, where,
// threshold. Shapes must match exactly (no broadcasting); results are new
// arrays in the same context. Arrays of any size work: ones larger than the
// device's maxStorageBufferRange are processed in pieces. int64 and uint64
// arrays are taken by fill, copy, cast and binary (the arithmetic); the
// other ops here, and the other families, throw Unsupported for them, naming
// the dtypes they take (cast first).
#include "kiln/array.hpp"
#include "kiln/op_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Sets every element to value (converted as cast converts).
void fill(Array& a, double value);
/// A new array with the same contents (a compute-shader copy).
Array copy(const Array& a);
/// Conversion to another dtype: to float rounds to nearest; float to integer
/// maps NaN to 0, truncates toward zero and saturates at the type's range
/// (NumPy leaves that case undefined); integer to integer wraps modulo 2^bits.
Array cast(const Array& a, DType to);

/// a op b. Same dtype in and out, except divide, which is true division:
/// float64, int64 and uint64 give float64, every other dtype float32. Integer
/// add/subtract/multiply wrap as NumPy's do. minimum/maximum propagate NaN.
Array binary(BinaryOp op, const Array& a, const Array& b);
/// a op s (or s op a when scalar_first). The scalar is converted to a's
/// dtype first (integers: truncated toward zero, saturated); divide uses it
/// as a float.
Array binary(BinaryOp op, const Array& a, double s, bool scalar_first = false);

Array add(const Array& a, const Array& b);
Array add(const Array& a, double s);
Array subtract(const Array& a, const Array& b);
Array subtract(const Array& a, double s);
Array subtract(double s, const Array& a);
Array multiply(const Array& a, const Array& b);
Array multiply(const Array& a, double s);
Array divide(const Array& a, const Array& b);
Array divide(const Array& a, double s);
Array divide(double s, const Array& a);
Array minimum(const Array& a, const Array& b);
Array minimum(const Array& a, double s);
Array maximum(const Array& a, const Array& b);
Array maximum(const Array& a, double s);

inline Array operator+(const Array& a, const Array& b) { return add(a, b); }
inline Array operator+(const Array& a, double s) { return add(a, s); }
inline Array operator+(double s, const Array& a) { return add(a, s); }
inline Array operator-(const Array& a, const Array& b) { return subtract(a, b); }
inline Array operator-(const Array& a, double s) { return subtract(a, s); }
inline Array operator-(double s, const Array& a) { return subtract(s, a); }
inline Array operator*(const Array& a, const Array& b) { return multiply(a, b); }
inline Array operator*(const Array& a, double s) { return multiply(a, s); }
inline Array operator*(double s, const Array& a) { return multiply(a, s); }
inline Array operator/(const Array& a, const Array& b) { return divide(a, b); }
inline Array operator/(const Array& a, double s) { return divide(a, s); }
inline Array operator/(double s, const Array& a) { return divide(s, a); }

/// uint8 0/1 of a op b. With a scalar the comparison is exact, as if done
/// in float64 (a NaN scalar compares false, except not_equal).
Array compare(CompareOp op, const Array& a, const Array& b);
Array compare(CompareOp op, const Array& a, double s);
Array equal(const Array& a, const Array& b);
Array not_equal(const Array& a, const Array& b);
Array less(const Array& a, const Array& b);
Array less_equal(const Array& a, const Array& b);
Array greater(const Array& a, const Array& b);
Array greater_equal(const Array& a, const Array& b);

/// cond ? a : b element-wise. cond of any dtype (nonzero, NaN included, is true).
Array where(const Array& cond, const Array& a, const Array& b);
Array where(const Array& cond, const Array& a, double b);
Array where(const Array& cond, double a, const Array& b);
/// cond ? a : b with scalars, as dtype.
Array where(const Array& cond, double a, double b, DType dtype = DType::float32);

/// uint8 1 where image > t, else 0 (NaN gives 0): the lesson's np.where(data > t, 1, 0).
Array threshold(const Array& image, double t);

/// uint8 1 where image > factor * scalars[index], else 0 (NaN gives 0), the
/// threshold taken from a float64 array on the device, e.g. the std of
/// kappa_sigma_clip_async: threshold(image, clip.stats, 1, 5.0) without
/// reading it back. The comparison is exact, in float64. Throws
/// InvalidArgument for a null array, scalars not float64, index out of
/// range, or arrays of different contexts.
Array threshold(const Array& image, const Array& scalars, size_t index, double factor);

} // namespace kiln
#pragma GCC visibility pop
