#pragma once
// The NPY header, shared by write_npy and the profile writer that grows a
// .npy batch by batch and rewrites its header at the end.
#include <cstddef>
#include <string>
#include <vector>

namespace kiln::io {

/// An NPY format 1.0 header: magic, version, length and the dict for
/// `descr` ("<f4") and `shape`, padded with spaces to a multiple of 64 bytes
/// and to at least min_size bytes, ending in '\n'. The data follows it.
std::string npy_header(const std::string& descr, const std::vector<size_t>& shape, size_t min_size = 0);

}  // namespace kiln::io
