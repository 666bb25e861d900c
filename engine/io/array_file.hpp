#pragma once
// Reading and writing arrays by file extension: .npy, .fits (.fit, .fts),
// .png (8-bit grayscale).
#include <string>

#include "kiln/host_array.hpp"

namespace kiln::io {

/// Reads an array; the format comes from the extension. Throws IoError
/// naming the file and the accepted extensions for anything else.
HostArray read_array(const std::string& path);
/// Writes an array (atomically: a failed write leaves no partial file).
void write_array(const std::string& path, const HostArray& array);
/// Whether read_array/write_array know the file's extension.
bool known_array_extension(const std::string& path);

} // namespace kiln::io
