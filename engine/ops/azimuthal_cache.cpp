// The CSR matrices of azimuthal integration are built on the CPU (a few
// hundred milliseconds for an Eiger 4M, more with pixel splitting) and reused:
// an in-process cache of the last few, and optionally files in a folder.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <mutex>
#include <unistd.h>

#include "kiln/azimuthal.hpp"
#include "kiln/error.hpp"

namespace kiln {

namespace {

constexpr size_t memory_entries = 4;
constexpr char magic[8] = {'K', 'I', 'L', 'N', 'C', 'S', 'R', '1'};

struct Entry {
    std::string key;
    std::shared_ptr<const Csr> csr;
};

std::mutex cache_mutex;
std::list<Entry> cache;  // most recently used first

template <typename T> void put(std::string& s, const T& v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// Every parameter that changes the matrix, as bytes (the mask by its hash).
std::string make_key(const Geometry& g, Radial unit, size_t bins,
                     const std::optional<std::pair<double, double>>& range, bool split,
                     const std::vector<uint8_t>* mask) {
    std::string k;
    put(k, uint64_t(g.rows));
    put(k, uint64_t(g.cols));
    for (double v : {g.pixel1, g.pixel2, g.dist, g.poni1, g.poni2, g.rot1, g.rot2, g.rot3, g.wavelength}) put(k, v);
    put(k, uint32_t(unit));
    put(k, uint64_t(bins));
    put(k, uint8_t(range.has_value()));
    put(k, range ? range->first : 0.0);
    put(k, range ? range->second : 0.0);
    put(k, uint8_t(split));
    put(k, uint64_t(mask ? mask->size() : 0));
    // Only zero versus nonzero matters in a mask.
    uint64_t h = 0xcbf29ce484222325ull;
    if (mask)
        for (uint8_t m : *mask) {
            const uint8_t b = m != 0;
            h = fnv1a(&b, 1, h);
        }
    put(k, h);
    return k;
}

template <typename T> void write_vec(std::ofstream& f, const std::vector<T>& v) {
    f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}

template <typename T> bool read_vec(std::ifstream& f, std::vector<T>& v, size_t n) {
    v.resize(n);
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(n * sizeof(T)));
    return bool(f);
}

template <typename T> bool read_pod(std::ifstream& f, T& v) {
    f.read(reinterpret_cast<char*>(&v), sizeof(T));
    return bool(f);
}

std::filesystem::path file_for(const std::string& dir, const std::string& key) {
    char name[40];
    std::snprintf(name, sizeof name, "csr-%016llx.bin", static_cast<unsigned long long>(fnv1a(key.data(), key.size())));
    return std::filesystem::path(dir) / name;
}

// A matrix from a cache file, or null when the file is missing, for other
// parameters (a hash collision) or damaged: the matrix is then rebuilt.
std::shared_ptr<Csr> load(const std::filesystem::path& path, const std::string& key) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return nullptr;
    char m[8];
    uint64_t key_size = 0, bins = 0, pixels = 0, nnz = 0;
    uint32_t unit = 0, split = 0;
    auto csr = std::make_shared<Csr>();
    if (!f.read(m, 8) || std::memcmp(m, magic, 8) != 0 || !read_pod(f, key_size) || key_size != key.size())
        return nullptr;
    std::string stored(key_size, '\0');
    if (!f.read(stored.data(), std::streamsize(key_size)) || stored != key) return nullptr;
    if (!read_pod(f, bins) || !read_pod(f, pixels) || !read_pod(f, nnz) || !read_pod(f, csr->range_lo) ||
        !read_pod(f, csr->range_hi) || !read_pod(f, unit) || !read_pod(f, split) || nnz > (1ull << 31) ||
        bins > (1ull << 31) || unit > uint32_t(Radial::chi_deg))
        return nullptr;
    if (!read_vec(f, csr->indptr, bins + 1) || !read_vec(f, csr->indices, nnz) || !read_vec(f, csr->data, nnz) ||
        !read_vec(f, csr->bin_centers, bins))
        return nullptr;
    csr->bins = bins;
    csr->pixels = pixels;
    csr->unit = Radial(unit);
    csr->pixel_split = split != 0;
    if (csr->indptr.front() != 0 || uint64_t(csr->indptr.back()) != nnz) return nullptr;
    return csr;
}

void store(const std::filesystem::path& path, const std::string& key, const Csr& csr) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    const auto temp = path.string() + ".tmp-" + std::to_string(getpid());
    {
        std::ofstream f(temp, std::ios::binary | std::ios::trunc);
        if (f) {
            f.write(magic, 8);
            const uint64_t key_size = key.size(), bins = csr.bins, pixels = csr.pixels, nnz = csr.nnz();
            const uint32_t unit = uint32_t(csr.unit), split = csr.pixel_split;
            f.write(reinterpret_cast<const char*>(&key_size), 8);
            f.write(key.data(), std::streamsize(key.size()));
            for (uint64_t v : {bins, pixels, nnz}) f.write(reinterpret_cast<const char*>(&v), 8);
            for (double v : {csr.range_lo, csr.range_hi}) f.write(reinterpret_cast<const char*>(&v), 8);
            for (uint32_t v : {unit, split}) f.write(reinterpret_cast<const char*>(&v), 4);
            write_vec(f, csr.indptr);
            write_vec(f, csr.indices);
            write_vec(f, csr.data);
            write_vec(f, csr.bin_centers);
        }
        if (!f) {
            std::filesystem::remove(temp, ec);
            throw IoError("CSR cache: cannot write '" + temp + "'; give a writable csr_cache_dir or none");
        }
    }
    std::filesystem::rename(temp, path, ec);
    if (ec) {
        std::filesystem::remove(temp, ec);
        throw IoError("CSR cache: cannot move the matrix into '" + path.string() + "': " + ec.message());
    }
}

} // namespace

std::shared_ptr<const Csr> cached_csr(const Geometry& g, Radial unit, size_t bins,
                                      std::optional<std::pair<double, double>> range, bool pixel_split,
                                      const std::vector<uint8_t>* mask, const std::string& cache_dir) {
    const std::string key = make_key(g, unit, bins, range, pixel_split, mask);
    {
        std::lock_guard lock(cache_mutex);
        for (auto it = cache.begin(); it != cache.end(); ++it)
            if (it->key == key) {
                cache.splice(cache.begin(), cache, it);
                return cache.front().csr;
            }
    }
    std::shared_ptr<const Csr> csr;
    if (!cache_dir.empty()) csr = load(file_for(cache_dir, key), key);
    if (!csr) {
        // Built outside the lock: other threads keep using the cache meanwhile.
        csr = std::make_shared<const Csr>(build_csr(g, unit, bins, range, pixel_split, mask));
        if (!cache_dir.empty()) store(file_for(cache_dir, key), key, *csr);
    }
    std::lock_guard lock(cache_mutex);
    cache.push_front({key, csr});
    if (cache.size() > memory_entries) cache.pop_back();
    return csr;
}

void clear_csr_cache() {
    std::lock_guard lock(cache_mutex);
    cache.clear();
}

} // namespace kiln
