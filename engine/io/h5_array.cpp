// HDF5 datasets as arrays, by "file.h5:/path/to/dataset" (read_array,
// write_array): one dataset of 1 to 3 dimensions read whole, through
// FrameStackReader for 2-D and 3-D ones (its checks of the chunk index
// against the file, and kiln's bitshuffle-LZ4 decoder); one written to a new
// file, gzip-compressed if asked.
#include "kiln/io.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "io/h5_util.hpp"
#include "kiln/error.hpp"

namespace kiln::io {
namespace {

const char* const h5_extensions[] = {".h5", ".hdf5", ".hdf", ".nxs"};

bool has_h5_extension(std::string_view file) {
    std::string ext = std::filesystem::path(std::string(file)).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return std::find(std::begin(h5_extensions), std::end(h5_extensions), ext) != std::end(h5_extensions);
}

// The object at `name` in the file: a dataset, a group, something else, or
// nothing (under HdfCall).
enum class Kind { none, group, dataset, other };

Kind kind_of(hid_t file, const std::string& name) {
    // Each step of the path must exist before the next is asked for.
    for (size_t slash = name.find('/', 1);; slash = name.find('/', slash + 1)) {
        const std::string prefix = name.substr(0, slash);
        if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            return Kind::none;
        }
        H5O_info_t info{};
        if (H5Oget_info_by_name2(file, prefix.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
            H5Eclear2(H5E_DEFAULT);
            return Kind::none;  // a dangling link
        }
        if (slash == std::string::npos)
            return info.type == H5O_TYPE_GROUP ? Kind::group : info.type == H5O_TYPE_DATASET ? Kind::dataset : Kind::other;
        if (info.type != H5O_TYPE_GROUP) return Kind::none;
    }
}

// "datasets a, b; groups c" for what group `name` holds (under HdfCall).
std::string members(hid_t file, const std::string& name) {
    struct Lists {
        hid_t file;
        std::string group, datasets, groups;
    } lists{file, name, "", ""};
    auto visit = [](hid_t, const char* member, const H5L_info_t*, void* data) -> herr_t {
        auto& l = *static_cast<Lists*>(data);
        const std::string full = (l.group == "/" ? "/" : l.group + "/") + member;
        H5O_info_t info{};
        if (H5Oget_info_by_name2(l.file, full.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
            H5Eclear2(H5E_DEFAULT);
            return 0;
        }
        std::string& list = info.type == H5O_TYPE_DATASET ? l.datasets : l.groups;
        if (info.type == H5O_TYPE_DATASET || info.type == H5O_TYPE_GROUP) list += (list.empty() ? "" : ", ") + std::string(member);
        return 0;
    };
    H5Literate_by_name(file, name.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, visit, &lists, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    std::string out = "datasets: " + (lists.datasets.empty() ? std::string("none") : lists.datasets);
    if (!lists.groups.empty()) out += "; groups: " + lists.groups;
    return out;
}

// The deepest group on the way to `name` that exists (under HdfCall).
std::string deepest_group(hid_t file, const std::string& name) {
    std::string group = "/";
    for (size_t slash = name.find('/', 1); slash != std::string::npos; slash = name.find('/', slash + 1)) {
        const std::string prefix = name.substr(0, slash);
        if (kind_of(file, prefix) != Kind::group) break;
        group = prefix;
    }
    return group;
}

// What is at `dataset`, checked: IoError unless it is a dataset of 1 to 3
// dimensions. Returns its rank.
int check_dataset(const std::string& path, const std::string& dataset) {
    HdfCall guard;
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (file.get() < 0) throw IoError(path + ": cannot open as an HDF5 file" + h5_detail());
    const std::string at = path + ":" + dataset;
    if (dataset.empty() || dataset[0] != '/')
        throw IoError(at + ": a dataset is named by its path from the root, starting with '/'");
    switch (kind_of(file.get(), dataset)) {
    case Kind::none: {
        const std::string group = deepest_group(file.get(), dataset);
        throw IoError(at + ": no such dataset; group " + group + " holds " + members(file.get(), group));
    }
    case Kind::group:
        throw IoError(at + ": is a group, not a dataset; it holds " + members(file.get(), dataset));
    case Kind::other: throw IoError(at + ": is not a dataset (a named datatype)");
    case Kind::dataset: break;
    }
    Handle dset(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
    if (dset.get() < 0) throw IoError(at + ": cannot open the dataset" + h5_detail());
    Handle space(H5Dget_space(dset.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 1 || rank > 3) {
        std::string dims;
        if (rank > 3) {
            std::vector<hsize_t> d(static_cast<size_t>(rank));
            H5Sget_simple_extent_dims(space.get(), d.data(), nullptr);
            for (hsize_t e : d) dims += (dims.empty() ? " (" : ", ") + std::to_string(e);
            dims += ")";
        }
        throw IoError(at + ": dataset has " + std::to_string(rank) + " dimensions" + dims +
                      "; kiln reads datasets of 1, 2 or 3 dimensions");
    }
    return rank;
}

// A 1-D dataset read whole through HDF5.
HostArray read_vector(const std::string& path, const std::string& dataset) {
    HdfCall guard;
    const std::string at = path + ":" + dataset;
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    Handle dset(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
    Handle type(H5Dget_type(dset.get()), H5Tclose);
    const auto dt = dtype_of_h5(type.get());
    if (!dt) throw IoError(at + ": element type has no kiln dtype; accepted: 8- to 64-bit integers, 32/64-bit floats");
    Handle space(H5Dget_space(dset.get()), H5Sclose);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space.get(), &n, nullptr);
    if (n == 0) throw IoError(at + ": the dataset is empty; every extent must be >= 1");
    Shape shape;
    try {
        shape = Shape{size_t(n)};
    } catch (const InvalidArgument& e) {
        throw IoError(at + ": a dataset kiln cannot hold: " + e.what());
    }
    // Data beyond the end of a truncated file reads as an error, not as memory.
    const haddr_t address = H5Dget_offset(dset.get());
    std::error_code ec;
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    if (address != HADDR_UNDEF && !ec && (address > file_size || byte_size(shape, *dt) > file_size - address))
        throw IoError(at + ": its data lies beyond the end of the file: the file is truncated");
    H5Eclear2(H5E_DEFAULT);
    HostArray out(shape, *dt);
    if (H5Dread(dset.get(), h5_types(*dt).native, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
        throw IoError(at + ": reading failed" + h5_detail());
    return out;
}

}  // namespace

std::optional<H5DatasetPath> split_h5_path(const std::string& path) {
    for (size_t colon = path.find(":/"); colon != std::string::npos; colon = path.find(":/", colon + 1))
        if (has_h5_extension(std::string_view(path).substr(0, colon)))
            return H5DatasetPath{path.substr(0, colon), path.substr(colon + 1)};
    if (has_h5_extension(path)) return H5DatasetPath{path, default_h5_dataset};
    return std::nullopt;
}

HostArray read_h5_dataset(const std::string& path, const std::string& dataset) {
    const int rank = check_dataset(path, dataset);
    if (rank == 1) return read_vector(path, dataset);
    FrameStackReader reader(path, dataset);
    if (reader.frames() == 0)
        throw IoError(path + ":" + dataset + ": the dataset is empty (0 frames); every extent must be >= 1");
    const bool stack = rank == 3;
    HostArray out(stack ? Shape{reader.frames(), reader.rows(), reader.cols()} : Shape{reader.rows(), reader.cols()},
                  reader.dtype());
    const size_t frame_bytes = out.nbytes() / reader.frames();
    for (size_t f = 0; f < reader.frames(); ++f) {
        const HostArray frame = reader.read_frame(f);
        std::memcpy(out.bytes.data() + f * frame_bytes, frame.data(), frame_bytes);
    }
    return out;
}

void write_h5_dataset(const std::string& path, const std::string& dataset, const HostArray& array,
                      const H5WriteOptions& options) {
    const std::string at = path + ":" + dataset;
    if (dataset.size() < 2 || dataset[0] != '/' || dataset.back() == '/')
        throw InvalidArgument(at + ": a dataset is named by its path from the root, as /group/name");
    if (array.shape.empty() || array.nbytes() != byte_size(array.shape, array.dtype))
        throw InvalidArgument(at + ": the array is empty or inconsistent (" + std::to_string(array.nbytes()) +
                              " bytes for shape " + array.shape.str() + ")");
    if (options.gzip < 0 || options.gzip > 9)
        throw InvalidArgument(at + ": gzip level " + std::to_string(options.gzip) + "; accepted: 0 (none) to 9");
    std::error_code ec;
    const std::string temp = create_temporary_beside(path, ec);
    if (temp.empty()) throw IoError(path + ": cannot be created: " + ec.message());
    auto fail = [&](const std::string& problem) {
        std::filesystem::remove(temp, ec);
        throw IoError(at + ": " + problem);
    };
    {
        HdfCall guard;
        Handle file(H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (file.get() < 0) fail("cannot create the file (temporary '" + temp + "')" + h5_detail());
        const int rank = int(array.shape.ndim());
        hsize_t dims[3] = {}, chunk[3] = {};
        for (int i = 0; i < rank; ++i) dims[i] = chunk[i] = array.shape[size_t(i)];
        Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        if (options.gzip > 0) {
            // Chunks of one page (rows of a 2-D image, up to about 4 MiB):
            // readers of one frame decompress only it.
            if (rank == 3) chunk[0] = 1;
            const uint64_t row_bytes = uint64_t(chunk[rank - 1]) * dtype_size(array.dtype);
            if (rank >= 2) chunk[rank - 2] = std::clamp<hsize_t>((uint64_t(4) << 20) / row_bytes, 1, chunk[rank - 2]);
            else chunk[0] = std::clamp<hsize_t>((uint64_t(4) << 20) / dtype_size(array.dtype), 1, chunk[0]);
            H5Pset_chunk(dcpl.get(), rank, chunk);
            H5Pset_deflate(dcpl.get(), unsigned(options.gzip));
        }
        Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
        Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        Handle dset(H5Dcreate2(file.get(), dataset.c_str(), h5_types(array.dtype).file, space.get(), lcpl.get(),
                               dcpl.get(), H5P_DEFAULT),
                    H5Dclose);
        if (dset.get() < 0) fail("cannot create the dataset" + h5_detail());
        if (H5Dwrite(dset.get(), h5_types(array.dtype).native, H5S_ALL, H5S_ALL, H5P_DEFAULT, array.data()) < 0)
            fail("writing failed" + h5_detail());
        if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) fail("flushing failed" + h5_detail());
    }
    if (const std::error_code moved = move_into_place(temp, path))
        throw IoError(path + ": cannot be renamed into place from '" + temp + "': " + moved.message());
}

}  // namespace kiln::io
