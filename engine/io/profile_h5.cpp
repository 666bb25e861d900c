// Hdf5ProfileWriter (kiln/profile_io.hpp): every field of a run's profiles
// in one HDF5 file, grown and flushed batch by batch.
#include <algorithm>
#include <filesystem>

#include "io/h5_util.hpp"
#include "kiln/error.hpp"
#include "kiln/profile_io.hpp"

namespace kiln::io {

namespace {

void attribute(hid_t at, const std::string& path, const char* name, const std::string& value) {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), std::max<size_t>(1, value.size()));
    H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(at, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (a.get() < 0 || H5Awrite(a.get(), type.get(), value.c_str()) < 0)
        throw IoError(path + ": cannot write attribute " + name + h5_detail());
}

void attribute(hid_t at, const std::string& path, const char* name, const std::vector<std::string>& values) {
    size_t longest = 1;
    for (const auto& v : values) longest = std::max(longest, v.size());
    std::string packed(values.size() * longest, '\0');
    for (size_t i = 0; i < values.size(); ++i) packed.replace(i * longest, values[i].size(), values[i]);
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), longest);
    H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
    const hsize_t n = values.size();
    Handle space(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL), H5Sclose);
    Handle a(H5Acreate2(at, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (a.get() < 0 || (n && H5Awrite(a.get(), type.get(), packed.data()) < 0))
        throw IoError(path + ": cannot write attribute " + name + h5_detail());
}

void attribute(hid_t at, const std::string& path, const char* name, double value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(at, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (a.get() < 0 || H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value) < 0)
        throw IoError(path + ": cannot write attribute " + name + h5_detail());
}

void axis(hid_t file, const std::string& path, const char* name, const std::vector<double>& values,
          const std::string& unit) {
    const hsize_t n = values.size();
    Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    Handle d(H5Dcreate2(file, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             H5Dclose);
    if (d.get() < 0 || H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
        throw IoError(path + ": cannot write dataset " + name + h5_detail());
    attribute(d.get(), path, "unit", unit);
    attribute(d.get(), path, "long_name", unit);
}

}  // namespace

struct Hdf5ProfileWriter::Impl {
    std::string path;
    hid_t file = -1;
    std::vector<hid_t> datasets;  // one per field
    std::vector<size_t> frame_shape;
    size_t frame_values = 0;
    bool finished = false;

    void close() noexcept {
        HdfCall guard;
        for (hid_t d : datasets) H5Dclose(d);
        datasets.clear();
        if (file >= 0) H5Fclose(file);
        file = -1;
    }
};

Hdf5ProfileWriter::Hdf5ProfileWriter(std::string path) : impl_(std::make_unique<Impl>()) {
    impl_->path = std::move(path);
}

Hdf5ProfileWriter::~Hdf5ProfileWriter() {
    const bool opened = impl_->file >= 0;
    impl_->close();
    if (opened && !impl_->finished) {
        std::error_code ignored;
        std::filesystem::remove(impl_->path, ignored);
    }
}

void Hdf5ProfileWriter::begin(const ProfileLayout& layout) {
    Impl& m = *impl_;
    const std::string& path = m.path;
    m.frame_shape = layout.frame_shape();
    m.frame_values = layout.frame_values();
    HdfCall guard;
    m.file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (m.file < 0) throw IoError(path + ": cannot create the file" + h5_detail());
    // (frames, ...) growing along frames; chunks of about 256 KiB.
    const int rank = int(m.frame_shape.size()) + 1;
    std::vector<hsize_t> dims(size_t(rank), 0), max_dims(size_t(rank), 0), chunk(size_t(rank), 1);
    max_dims[0] = H5S_UNLIMITED;
    chunk[0] = std::clamp<hsize_t>(hsize_t(65536 / std::max<size_t>(1, m.frame_values)), 1, 1024);
    for (size_t i = 0; i < m.frame_shape.size(); ++i) dims[i + 1] = max_dims[i + 1] = chunk[i + 1] = m.frame_shape[i];
    Handle space(H5Screate_simple(rank, dims.data(), max_dims.data()), H5Sclose);
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl.get(), rank, chunk.data());
    for (const std::string& field : layout.fields) {
        const hid_t d = H5Dcreate2(m.file, field.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(),
                                   H5P_DEFAULT);
        if (d < 0) throw IoError(path + ": cannot create dataset " + field + h5_detail());
        m.datasets.push_back(d);
    }
    const ProfileMeta& meta = layout.meta;
    axis(m.file, path, "radial", meta.radial, meta.radial_unit);
    std::vector<std::string> axes = {"frame"};
    if (!meta.azimuthal.empty()) {
        axis(m.file, path, "azimuthal", meta.azimuthal, meta.azimuthal_unit);
        axes.push_back("azimuthal");
    }
    axes.push_back("radial");
    const Geometry& g = meta.geometry;
    const hid_t root = m.file;
    attribute(root, path, "NX_class", std::string("NXdata"));
    attribute(root, path, "signal", std::string("intensity"));
    attribute(root, path, "axes", axes);
    attribute(root, path, "unit", meta.radial_unit);
    attribute(root, path, "detector", meta.detector);
    attribute(root, path, "dist", g.dist);
    attribute(root, path, "poni1", g.poni1);
    attribute(root, path, "poni2", g.poni2);
    attribute(root, path, "rot1", g.rot1);
    attribute(root, path, "rot2", g.rot2);
    attribute(root, path, "rot3", g.rot3);
    attribute(root, path, "pixel1", g.pixel1);
    attribute(root, path, "pixel2", g.pixel2);
    attribute(root, path, "wavelength", g.wavelength);
    attribute(root, path, "shape", std::vector<std::string>{std::to_string(g.rows), std::to_string(g.cols)});
    attribute(root, path, "error_model", meta.error_model);
    attribute(root, path, "frames", double(layout.frames));
    attribute(root, path, "sources", meta.sources);
    if (H5Fflush(m.file, H5F_SCOPE_LOCAL) < 0) throw IoError(path + ": flushing failed" + h5_detail());
}

void Hdf5ProfileWriter::write(size_t first, size_t n, std::span<const float* const> fields) {
    Impl& m = *impl_;
    HdfCall guard;
    const size_t rank = m.frame_shape.size() + 1;
    std::vector<hsize_t> dims(rank), offset(rank, 0), count(rank);
    dims[0] = first + n;
    offset[0] = first;
    count[0] = n;
    for (size_t i = 1; i < rank; ++i) dims[i] = count[i] = m.frame_shape[i - 1];
    for (size_t f = 0; f < m.datasets.size(); ++f) {
        const hid_t d = m.datasets[f];
        if (H5Dset_extent(d, dims.data()) < 0) throw IoError(m.path + ": cannot extend a dataset" + h5_detail());
        Handle file_space(H5Dget_space(d), H5Sclose);
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset.data(), nullptr, count.data(), nullptr);
        Handle mem_space(H5Screate_simple(int(rank), count.data(), nullptr), H5Sclose);
        if (H5Dwrite(d, H5T_NATIVE_FLOAT, mem_space.get(), file_space.get(), H5P_DEFAULT, fields[f]) < 0)
            throw IoError(m.path + ": writing frames " + std::to_string(first) + " to " +
                          std::to_string(first + n - 1) + " failed" + h5_detail());
    }
    if (H5Fflush(m.file, H5F_SCOPE_LOCAL) < 0) throw IoError(m.path + ": flushing failed" + h5_detail());
}

void Hdf5ProfileWriter::finish(size_t frames) {
    Impl& m = *impl_;
    HdfCall guard;
    // Frames announced but not written (a stopped run) are not in the file:
    // the datasets grew with each write. A run that wrote none still has
    // datasets of zero frames.
    (void)frames;
    herr_t status = 0;
    for (hid_t d : m.datasets) status |= H5Dclose(d);
    m.datasets.clear();
    status |= H5Fclose(m.file);
    m.file = -1;
    if (status < 0) throw IoError(m.path + ": finishing the file failed" + h5_detail());
    m.finished = true;
}

}  // namespace kiln::io
