#pragma once
// CPU reference for the element-wise operations. These functions define the
// semantics the GPU shaders must reproduce: bit for bit on integer results, to
// rounding on floating-point ones. They follow NumPy except where noted.
#include "kiln/host_array.hpp"
#include "kiln/op_types.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::cpu {

/// The operations of the GPU side, selected the same way.
using kiln::BinaryOp;
using kiln::CompareOp;

/// The value a double takes in dtype t, returned as a double. Floats: rounded
/// to nearest (out-of-range float32 values become +-inf). Integers: NaN gives
/// 0, otherwise truncated toward zero and saturated to the dtype's range.
/// This is how every scalar argument (binary_scalar, where_scalar, fill) and
/// every float-to-integer cast() is converted.
double scalar_to_dtype(double v, DType t);

/// The dtype binary() gives: divide gives float64 for float64, int64 and
/// uint64 inputs and float32 for every other dtype; all other ops keep the
/// input dtype.
DType binary_result_dtype(BinaryOp op, DType input);

/// Element-wise a op b. Shapes and dtypes must match (else InvalidArgument).
/// Integer add, subtract and multiply wrap modulo 2^bits as in NumPy. Divide is
/// true division in the result dtype (see binary_result_dtype): both operands
/// are converted to it as cast() does, then divided with correct rounding
/// (int32 values beyond 2^24 lose precision in float32 before dividing, unlike
/// NumPy's float64 result); x/0 gives +-inf and 0/0 NaN.
/// minimum and maximum return NaN when either operand is NaN, and b when the
/// operands are equal (minimum(0.0, -0.0) is -0.0), as np.minimum/np.maximum.
HostArray binary(BinaryOp op, const HostArray& a, const HostArray& b);

/// Element-wise a op s, or s op a when scalar_first. The scalar is first
/// converted to the array's dtype with scalar_to_dtype (for divide: to the
/// result dtype, float32 or float64), then the operation is as in binary().
HostArray binary_scalar(BinaryOp op, const HostArray& a, double s, bool scalar_first = false);

/// Element-wise comparison giving uint8 0/1. Values are compared as doubles
/// (exact for every kiln dtype); NaN compares false except with not_equal.
/// Shapes and dtypes must match (else InvalidArgument).
HostArray compare(CompareOp op, const HostArray& a, const HostArray& b);

/// Element-wise a op s giving uint8 0/1. The scalar is not converted to the
/// array's dtype: uint8 values compared with 300.5 are all less.
HostArray compare_scalar(CompareOp op, const HostArray& a, double s);

/// cond ? a : b element-wise. cond has any dtype and is true where nonzero
/// (NaN is true, as bool(nan) in Python; -0.0 is false). a and b must have the
/// same shape and dtype, cond the same shape (else InvalidArgument). The
/// result has a's dtype.
HostArray where(const HostArray& cond, const HostArray& a, const HostArray& b);

/// cond ? a : b with scalar values converted to dtype out by scalar_to_dtype.
HostArray where_scalar(const HostArray& cond, double a, double b, DType out);

/// uint8 image, 1 where value > t and 0 elsewhere (NaN gives 0), as the
/// lesson's np.where(data > t, 1, 0).
HostArray threshold(const HostArray& image, double t);

/// Converts to dtype `to`. To a float: rounded to nearest. Float to integer:
/// NaN gives 0, otherwise truncated toward zero and saturated to the target
/// range (NumPy leaves out-of-range values undefined; kiln saturates so CPU
/// and GPU agree). Integer to integer: wraps modulo 2^bits, as NumPy's astype.
HostArray cast(const HostArray& a, DType to);

/// An array of the shape filled with value converted by scalar_to_dtype.
HostArray fill(Shape shape, DType dtype, double value);

} // namespace kiln::cpu
#pragma GCC visibility pop
