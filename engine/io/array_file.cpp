#include "kiln/io.hpp"

#include <algorithm>
#include <filesystem>

#include "kiln/error.hpp"
#include "kiln/io.hpp"

namespace kiln::io {

namespace {

enum class Format { npy, fits, tiff, png, hdf5, unknown };

Format format_of(const std::string& path) {
    if (split_h5_path(path)) return Format::hdf5;
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".npy") return Format::npy;
    if (ext == ".fits" || ext == ".fit" || ext == ".fts") return Format::fits;
    if (ext == ".tif" || ext == ".tiff") return Format::tiff;
    if (ext == ".png") return Format::png;
    return Format::unknown;
}

[[noreturn]] void unknown(const std::string& path) {
    throw IoError("'" + path + "': unknown file type; kiln reads and writes .npy, .fits (.fit, .fts), .tif (.tiff), "
                  ".png and HDF5 datasets (file.h5:/path/to/dataset; .h5, .hdf5, .hdf, .nxs)");
}

} // namespace

bool known_array_extension(const std::string& path) { return format_of(path) != Format::unknown; }

HostArray read_array(const std::string& path) {
    switch (format_of(path)) {
    case Format::npy: return read_npy(path);
    case Format::fits: return read_fits(path);
    case Format::tiff: return read_tiff(path);
    case Format::png: return read_png(path);
    case Format::hdf5: {
        const H5DatasetPath h5 = *split_h5_path(path);
        return read_h5_dataset(h5.file, h5.dataset);
    }
    default: unknown(path);
    }
}

void write_array(const std::string& path, const HostArray& array) {
    switch (format_of(path)) {
    case Format::npy: write_npy(path, array); return;
    case Format::fits: write_fits(path, array); return;
    case Format::tiff: write_tiff(path, array); return;
    case Format::png:
        if (array.shape.ndim() != 2)
            throw IoError("'" + path + "': PNG output needs a 2-D array, this one has shape " + array.shape.str());
        write_png_gray(path, array, Stretch::linear);
        return;
    case Format::hdf5: {
        const H5DatasetPath h5 = *split_h5_path(path);
        write_h5_dataset(h5.file, h5.dataset, array);
        return;
    }
    default: unknown(path);
    }
}

} // namespace kiln::io
