#pragma once
// NumPy .npy files: kiln's own reader and writer, so the CLI and the tests can
// exchange arrays with NumPy without a Python dependency.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kiln/host_array.hpp"

namespace kiln::io {

/// Reads a .npy file (format 1.0, 2.0 or 3.0). Accepts C-order arrays of 1 to
/// 3 dimensions with descr f4, f8, i1, u1, i2, u2, i4, u4 or b1 (bool, read as
/// uint8) in any byte order ('<', '>', '|', '='); big-endian data is converted
/// to native order. Anything else (0-d or >3-d arrays, Fortran order, object,
/// structured or other dtypes, a bad magic, a truncated header or data) throws
/// IoError naming the file, the problem and what is accepted.
HostArray read_npy(const std::string& path);

/// Writes a .npy file readable by numpy.load: little-endian, C order, format
/// 1.0, '|u1' for uint8 (never bool). Written to a temporary file next
/// to PATH and renamed over it, so a failed write leaves no partial file and
/// keeps any previous PATH. Throws InvalidArgument for an inconsistent array
/// and IoError when the file cannot be written.
void write_npy(const std::string& path, const HostArray& array);

/// parse_npy is read_npy on bytes already in memory; name_for_errors stands in
/// for the file name in error messages.
HostArray parse_npy(std::span<const std::byte> bytes, const std::string& name_for_errors);

/// The bytes write_npy would write.
std::vector<std::byte> encode_npy(const HostArray& array);

} // namespace kiln::io
