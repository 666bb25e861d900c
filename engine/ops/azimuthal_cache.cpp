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
// Format 2: split scheme, renormalization and the cake's azimuth bins.
constexpr char magic[8] = {'K', 'I', 'L', 'N', 'C', 'S', 'R', '2'};

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
std::string make_key(const Geometry& g, const CsrSpec& s, const std::vector<uint8_t>* mask) {
    std::string k;
    put(k, uint64_t(g.rows));
    put(k, uint64_t(g.cols));
    for (double v : {g.pixel1, g.pixel2, g.dist, g.poni1, g.poni2, g.rot1, g.rot2, g.rot3, g.wavelength}) put(k, v);
    put(k, uint32_t(s.unit));
    put(k, uint64_t(s.bins));
    for (const auto* r : {&s.range, &s.azimuth_range}) {
        put(k, uint8_t(r->has_value()));
        put(k, *r ? (*r)->first : 0.0);
        put(k, *r ? (*r)->second : 0.0);
    }
    put(k, uint64_t(s.azimuth_bins));
    put(k, uint8_t(s.split));
    put(k, uint8_t(s.renormalize));
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
    uint64_t key_size = 0, bins = 0, pixels = 0, nnz = 0, radial_bins = 0, azimuth_bins = 0;
    uint32_t unit = 0, split = 0, renormalize = 0;
    auto csr = std::make_shared<Csr>();
    if (!f.read(m, 8) || std::memcmp(m, magic, 8) != 0 || !read_pod(f, key_size) || key_size != key.size())
        return nullptr;
    std::string stored(key_size, '\0');
    if (!f.read(stored.data(), std::streamsize(key_size)) || stored != key) return nullptr;
    if (!read_pod(f, bins) || !read_pod(f, pixels) || !read_pod(f, nnz) || !read_pod(f, csr->range_lo) ||
        !read_pod(f, csr->range_hi) || !read_pod(f, unit) || !read_pod(f, split) || !read_pod(f, renormalize) ||
        !read_pod(f, radial_bins) || !read_pod(f, azimuth_bins) || !read_pod(f, csr->azimuth_lo) ||
        !read_pod(f, csr->azimuth_hi) || nnz > (1ull << 31) || bins > (1ull << 31) ||
        unit > uint32_t(Radial::chi_deg) || split > uint32_t(PixelSplit::full) || azimuth_bins > bins)
        return nullptr;
    if (!read_vec(f, csr->indptr, bins + 1) || !read_vec(f, csr->indices, nnz) || !read_vec(f, csr->data, nnz) ||
        !read_vec(f, csr->bin_centers, bins) || !read_vec(f, csr->azimuth_centers, azimuth_bins))
        return nullptr;
    csr->bins = bins;
    csr->pixels = pixels;
    csr->unit = Radial(unit);
    csr->split = PixelSplit(split);
    csr->renormalize = renormalize != 0;
    csr->radial_bins = radial_bins;
    csr->azimuth_bins = azimuth_bins;
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
            const uint32_t unit = uint32_t(csr.unit), split = uint32_t(csr.split), renormalize = csr.renormalize;
            f.write(reinterpret_cast<const char*>(&key_size), 8);
            f.write(key.data(), std::streamsize(key.size()));
            for (uint64_t v : {bins, pixels, nnz}) f.write(reinterpret_cast<const char*>(&v), 8);
            for (double v : {csr.range_lo, csr.range_hi}) f.write(reinterpret_cast<const char*>(&v), 8);
            for (uint32_t v : {unit, split, renormalize}) f.write(reinterpret_cast<const char*>(&v), 4);
            for (uint64_t v : {uint64_t(csr.radial_bins), uint64_t(csr.azimuth_bins)})
                f.write(reinterpret_cast<const char*>(&v), 8);
            for (double v : {csr.azimuth_lo, csr.azimuth_hi}) f.write(reinterpret_cast<const char*>(&v), 8);
            write_vec(f, csr.indptr);
            write_vec(f, csr.indices);
            write_vec(f, csr.data);
            write_vec(f, csr.bin_centers);
            write_vec(f, csr.azimuth_centers);
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

std::shared_ptr<const Csr> cached_csr(const Geometry& g, const CsrSpec& spec, const std::vector<uint8_t>* mask,
                                      const std::string& cache_dir) {
    const std::string key = make_key(g, spec, mask);
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
        csr = std::make_shared<const Csr>(build_csr(g, spec, mask));
        if (!cache_dir.empty()) store(file_for(cache_dir, key), key, *csr);
    }
    std::lock_guard lock(cache_mutex);
    cache.push_front({key, csr});
    if (cache.size() > memory_entries) cache.pop_back();
    return csr;
}

std::shared_ptr<const Csr> cached_csr(const Geometry& g, Radial unit, size_t bins,
                                      std::optional<std::pair<double, double>> range, PixelSplit split,
                                      const std::vector<uint8_t>* mask, const std::string& cache_dir) {
    CsrSpec s;
    s.unit = unit;
    s.bins = bins;
    s.range = range;
    s.split = split;
    return cached_csr(g, s, mask, cache_dir);
}

void clear_csr_cache() {
    std::lock_guard lock(cache_mutex);
    cache.clear();
}

} // namespace kiln
