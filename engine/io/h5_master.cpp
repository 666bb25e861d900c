// stack_parts (kiln/io.hpp): an HDF5 file's frame stacks, with an Eiger
// master file expanded to the data files its /entry/data links point to.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "io/h5_util.hpp"
#include "kiln/error.hpp"
#include "kiln/io.hpp"

namespace kiln::io {

namespace {

namespace fs = std::filesystem;

bool is_data_link(const std::string& name) {
    return name.size() == 11 && name.compare(0, 5, "data_") == 0 &&
           std::all_of(name.begin() + 5, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Whether every group on the way to `object` and the object's link exist
// (H5Lexists fails on a missing intermediate group).
bool link_exists(hid_t file, const std::string& object) {
    for (size_t at = object.find('/', 1); ; at = object.find('/', at + 1)) {
        const std::string prefix = object.substr(0, at);
        if (!prefix.empty() && prefix != "/" && H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
        if (at == std::string::npos) return true;
    }
}

// The part a link `name` in `file` leads to: an external link resolved to
// its file (relative to the folder of `path`), any other the object itself.
StackPart resolve(hid_t file, const std::string& path, const std::string& name) {
    H5L_info_t info{};
    if (H5Lget_info(file, name.c_str(), &info, H5P_DEFAULT) < 0 || info.type != H5L_TYPE_EXTERNAL)
        return {path, name};
    std::string value(info.u.val_size, '\0');
    const char *target_file = nullptr, *target_object = nullptr;
    unsigned flags = 0;
    if (H5Lget_val(file, name.c_str(), value.data(), value.size(), H5P_DEFAULT) < 0 ||
        H5Lunpack_elink_val(value.data(), value.size(), &flags, &target_file, &target_object) < 0)
        throw IoError(path + ":" + name + ": its external link cannot be read" + h5_detail());
    fs::path target(target_file);
    if (target.is_relative()) target = fs::path(path).parent_path() / target;
    return {target.lexically_normal().string(), target_object};
}

}  // namespace

std::vector<StackPart> stack_parts(const std::string& path, const std::string& dataset) {
    HdfCall guard;
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (file.get() < 0) throw IoError(path + ": cannot open as an HDF5 file" + h5_detail());
    if (link_exists(file.get(), dataset)) return {resolve(file.get(), path, dataset)};
    H5Eclear2(H5E_DEFAULT);
    const size_t slash = dataset.rfind('/');
    const std::string group = slash == std::string::npos || slash == 0 ? "/" : dataset.substr(0, slash);
    std::vector<std::string> names;
    if (link_exists(file.get(), group)) {
        auto collect = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
            if (is_data_link(name)) static_cast<std::vector<std::string>*>(out)->push_back(name);
            return 0;
        };
        hsize_t index = 0;
        H5Literate_by_name(file.get(), group.c_str(), H5_INDEX_NAME, H5_ITER_INC, &index, collect, &names,
                           H5P_DEFAULT);
    }
    H5Eclear2(H5E_DEFAULT);
    if (names.empty())
        throw IoError(path + ": no dataset " + dataset + ", and no links data_000001, data_000002... in " +
                      group + " (as an Eiger master file has); name the dataset that holds the frames");
    std::sort(names.begin(), names.end());
    std::vector<StackPart> parts;
    for (const std::string& name : names)
        parts.push_back(resolve(file.get(), path, (group == "/" ? "" : group) + "/" + name));
    return parts;
}

}  // namespace kiln::io
