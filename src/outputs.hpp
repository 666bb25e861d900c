#pragma once
// The files one command writes, all or none: a command that fails, at any
// point, leaves no output file behind and no earlier file replaced.
#include <string>
#include <vector>

namespace kiln::cli {

/// Each output is claimed before any work: a temporary file is created in
/// its directory at once, which proves the directory exists and is
/// writable (IoError with the system's reason otherwise). Results are
/// written to the temporaries, which are renamed into place together by
/// commit() once the command has succeeded; whatever was not committed is
/// removed when the Outputs goes.
class Outputs {
public:
    Outputs() = default;
    Outputs(const Outputs&) = delete;
    Outputs& operator=(const Outputs&) = delete;
    ~Outputs();

    /// Claims PATH. Throws IoError when its directory is missing or not
    /// writable, when PATH is a directory or another non-regular file, or
    /// when it was claimed already (two outputs of one command).
    void claim(const std::string& path);
    /// The temporary to write PATH's contents to; claims PATH first if that
    /// was not done. PATH is moved into place by commit().
    std::string write_to(const std::string& path);
    /// Renames every written temporary into place, in the order claimed, and
    /// removes the temporaries of outputs that were claimed but not written.
    void commit();
    /// The temporaries claimed so far (what an immediate exit must remove).
    std::vector<std::string> temporaries() const;

private:
    struct File {
        std::string path, temporary;
        bool written = false;
    };
    std::vector<File> files_;
    void remove_temporaries();
};

}  // namespace kiln::cli
