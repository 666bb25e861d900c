#include "io/file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kiln/error.hpp"
#include "kiln/io.hpp"

namespace kiln::io {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw IoError(name + ": " + what);
}

/// A fresh PREFIX + six random characters + SUFFIX, created exclusively
/// (its name in tmp); returns the open descriptor, or -1 with errno set.
/// mkstemp is not used because it creates files with mode 0600; here the
/// umask decides, as for the destination itself.
int create_exclusive(const std::string& prefix, const std::string& suffix, std::string& tmp) {
    static constexpr char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device rd;
    for (int attempt = 0; attempt < 100; ++attempt) {
        tmp = prefix;
        for (int i = 0; i < 6; ++i) tmp += chars[rd() % (sizeof(chars) - 1)];
        tmp += suffix;
        int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

/// A fresh PATH.tmp-XXXXXX.
File create_temporary(const std::string& path, std::string& tmp) {
    int fd = create_exclusive(path + ".tmp-", "", tmp);
    if (fd < 0) fail(path, std::string("cannot create ") + tmp + ": " + std::strerror(errno));
    return File(fd, path);
}

} // namespace

File File::open_read(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path, std::string("cannot open for reading: ") + std::strerror(errno));
    return File(fd, path);
}

File::~File() {
    if (fd_ >= 0) ::close(fd_);
}

size_t File::size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(path_, std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail(path_, "not a regular file");
    return size_t(st.st_size);
}

void File::read_exactly(std::span<std::byte> out) {
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = ::read(fd_, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(path_, std::string("read failed: ") + std::strerror(errno));
        if (n == 0) fail(path_, "file ended early (truncated while reading?)");
        done += size_t(n);
    }
}

void File::read_at(uint64_t offset, std::span<std::byte> out) const {
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(path_, std::string("read failed: ") + std::strerror(errno));
        if (n == 0)
            fail(path_, "file ended at byte " + std::to_string(offset + done) + ", inside " +
                            std::to_string(out.size()) + " bytes read from byte " + std::to_string(offset));
        done += size_t(n);
    }
}

void File::write_all(std::span<const std::byte> in) {
    size_t done = 0;
    while (done < in.size()) {
        ssize_t n = ::write(fd_, in.data() + done, in.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(path_, std::string("write failed: ") + std::strerror(errno));
        done += size_t(n);
    }
}

void File::sync_and_close() {
    if (::fsync(fd_) != 0) fail(path_, std::string("fsync failed: ") + std::strerror(errno));
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(path_, std::string("close failed: ") + std::strerror(errno));
}

void write_file_atomically(const std::string& path,
                           std::span<const std::span<const std::byte>> parts) {
    std::string tmp;
    File file = create_temporary(path, tmp);
    try {
        for (auto part : parts) file.write_all(part);
        file.sync_and_close();
        if (::rename(tmp.c_str(), path.c_str()) != 0)
            fail(path, std::string("cannot rename ") + tmp + " over it: " + std::strerror(errno));
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
}

std::error_code move_into_place(const std::string& tmp, const std::string& path) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
    }
    return ec;
}

std::string create_temporary_beside(const std::string& path, std::error_code& ec) {
    const std::filesystem::path p(path);
    const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    const std::string stem = p.stem().string(), extension = p.extension().string();
    std::string tmp;
    int fd = create_exclusive((dir / ("." + stem + ".kiln-")).string(), extension, tmp);
    if (fd < 0) {
        ec = std::error_code(errno, std::generic_category());
        return {};
    }
    ::close(fd);
    ec.clear();
    return tmp;
}

std::vector<std::byte> read_file_bytes(const std::string& path) {
    File file = File::open_read(path);
    std::vector<std::byte> bytes(file.size());
    file.read_exactly(bytes);
    return bytes;
}

} // namespace kiln::io
