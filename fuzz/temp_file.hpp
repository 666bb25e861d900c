#pragma once
// A file per fuzzing process for harnesses whose reader takes a path: the
// input's bytes are written there (in memory when /dev/shm exists) before
// each run, and the file is removed at exit.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace kiln::fuzz {

inline const std::string& temp_path(const char* suffix) {
    static const std::string path = [&] {
        const char* dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
        return std::string(dir) + "/kiln-fuzz-" + std::to_string(getpid()) + suffix;
    }();
    static const bool cleanup = [] {
        std::atexit([] { std::remove(path.c_str()); });
        return true;
    }();
    (void)cleanup;
    return path;
}

inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
}

}  // namespace kiln::fuzz
