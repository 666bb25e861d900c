#pragma once
// Plain-file helpers shared by kiln's readers and writers: whole-file reads,
// and writes that never leave a partial file at the destination (the two
// that the CLI uses too, move_into_place and create_temporary_beside, are
// public: kiln/io.hpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kiln::io {

/// An open file descriptor, closed on destruction. Errors throw IoError naming
/// the path the File was made for.
class File {
public:
    /// Opens PATH read-only; throws IoError with the system's reason.
    static File open_read(const std::string& path);
    /// Takes ownership of fd; path labels error messages.
    File(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    /// Size in bytes; throws IoError unless the file is a regular file.
    size_t size() const;
    /// Reads exactly out.size() bytes; the caller has checked the file size,
    /// so running short means the file changed or the device failed.
    void read_exactly(std::span<std::byte> out);
    /// Reads exactly out.size() bytes at offset (not moving the file
    /// position); IoError if the file ends first.
    void read_at(uint64_t offset, std::span<std::byte> out) const;
    /// Writes all of in, retrying short writes.
    void write_all(std::span<const std::byte> in);
    /// Flushes to disk and closes, reporting errors that close() alone would hide.
    void sync_and_close();

private:
    int fd_;
    std::string path_;
};

/// Writes the concatenated parts to PATH.tmp-XXXXXX, flushes it to disk and
/// renames it over PATH, removing the temporary on any failure. Throws IoError
/// naming PATH and the system's reason. Shared by kiln's file writers.
void write_file_atomically(const std::string& path,
                           std::span<const std::span<const std::byte>> parts);

/// Reads a whole file; throws IoError naming PATH and the system's reason.
std::vector<std::byte> read_file_bytes(const std::string& path);

} // namespace kiln::io
