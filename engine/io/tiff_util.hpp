#pragma once
// libtiff helpers shared by the TIFF reader (tiff.cpp) and writer
// (tiff_writer.cpp): owners of libtiff's handles, and its messages collected
// per handle instead of printed.
#include <tiffio.h>

#include <cstdarg>
#include <memory>
#include <string>
#include <vector>

namespace kiln::io {

/// What libtiff said about one file. The handlers that fill it are given to
/// each handle when it is opened (TIFFOpenOptions, libtiff 4.5), so nothing
/// reaches libtiff's process-wide handlers, which print to stderr: threads
/// working on different files share nothing, and the application's own
/// handlers, if it set any, stay untouched.
class TiffMessages {
public:
    TiffMessages();
    TiffMessages(const TiffMessages&) = delete;
    TiffMessages& operator=(const TiffMessages&) = delete;

    /// Options for TIFFOpenExt / TIFFClientOpenExt that send libtiff's errors
    /// and warnings here; valid while this object lives.
    TIFFOpenOptions* options() const { return options_.get(); }

    /// Whether libtiff reported an error since the last clear().
    bool any_error() const { return !errors_.lines.empty(); }
    /// The errors (or, if none, the warnings) as one line; "" if neither.
    std::string text() const;
    void clear();

    /// libtiff names the file in some messages; this name is left out of
    /// them, as kiln's own message names the file already.
    void set_name(std::string name) { name_ = std::move(name); }

private:
    struct Lines {
        TiffMessages* owner;
        std::vector<std::string> lines;
        size_t dropped = 0;  // past the first few: a corrupt file can cause thousands
    };
    static int collect(TIFF*, void* lines, const char* module, const char* format, va_list args);

    std::string name_;
    Lines errors_{this, {}, 0}, warnings_{this, {}, 0};
    std::unique_ptr<TIFFOpenOptions, void (*)(TIFFOpenOptions*)> options_;
};

/// Closes the TIFF handle when it goes out of scope.
using TiffHandle = std::unique_ptr<TIFF, void (*)(TIFF*)>;

}  // namespace kiln::io
