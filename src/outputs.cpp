#include "outputs.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "kiln/io.hpp"
#include "kiln/error.hpp"

namespace kiln::cli {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw IoError("output '" + path + "' cannot be written: " + why);
}

}  // namespace

Outputs::~Outputs() { remove_temporaries(); }

void Outputs::claim(const std::string& path) {
    if (path.empty()) refuse(path, "the name is empty");
    for (const File& f : files_)
        if (fs::path(f.path).lexically_normal() == fs::path(path).lexically_normal())
            refuse(path, "it is named twice; give each output its own file");
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (fs::is_directory(st)) refuse(path, "it is a directory; name a file");
    if (fs::exists(st) && !fs::is_regular_file(st))
        refuse(path, "it exists and is not a regular file (a device, socket or pipe)");
    const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    const std::string temporary = io::create_temporary_beside(path, ec);
    if (temporary.empty()) {
        std::error_code dir_ec;
        if (!fs::is_directory(dir, dir_ec))
            refuse(path, "directory '" + dir.string() + "' does not exist (" + ec.message() + ")");
        refuse(path, "cannot create a file in directory '" + dir.string() + "': " + ec.message());
    }
    files_.push_back({path, temporary, false});
}

std::string Outputs::write_to(const std::string& path) {
    auto it = std::find_if(files_.begin(), files_.end(), [&](const File& f) { return f.path == path; });
    if (it == files_.end()) {
        claim(path);
        it = files_.end() - 1;
    }
    it->written = true;
    return it->temporary;
}

void Outputs::commit() {
    for (File& f : files_) {
        if (!f.written) continue;
        if (const std::error_code ec = io::move_into_place(f.temporary, f.path))
            refuse(f.path, "renaming '" + f.temporary + "' into place failed: " + ec.message());
        f.temporary.clear();
    }
    remove_temporaries();
    files_.clear();
}

std::vector<std::string> Outputs::temporaries() const {
    std::vector<std::string> out;
    for (const File& f : files_)
        if (!f.temporary.empty()) out.push_back(f.temporary);
    return out;
}

void Outputs::remove_temporaries() {
    for (const File& f : files_) {
        std::error_code ignored;
        if (!f.temporary.empty()) fs::remove(f.temporary, ignored);
    }
}

}  // namespace kiln::cli
