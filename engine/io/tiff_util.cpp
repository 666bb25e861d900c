#include "io/tiff_util.hpp"

#include <cstdarg>
#include <cstdio>
#include <new>

#include "kiln/error.hpp"

namespace kiln::io {
namespace {

constexpr size_t kept_lines = 8;

}  // namespace

TiffMessages::TiffMessages() : options_(TIFFOpenOptionsAlloc(), TIFFOpenOptionsFree) {
    if (!options_) throw OutOfMemory("out of host memory: cannot allocate libtiff's open options");
    TIFFOpenOptionsSetErrorHandlerExtR(options_.get(), collect, &errors_);
    TIFFOpenOptionsSetWarningHandlerExtR(options_.get(), collect, &warnings_);
}

// Called by libtiff, through C code: nothing may be thrown from here.
int TiffMessages::collect(TIFF*, void* lines, const char* module, const char* format, va_list args) {
    auto& out = *static_cast<Lines*>(lines);
    if (out.lines.size() >= kept_lines) {
        ++out.dropped;
        return 1;
    }
    try {
        va_list copy;
        va_copy(copy, args);
        const int n = std::vsnprintf(nullptr, 0, format, copy);
        va_end(copy);
        std::string text(n > 0 ? size_t(n) : 0, '\0');
        if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
        const std::string& name = out.owner->name_;
        if (!name.empty() && text.rfind(name + ": ", 0) == 0) text.erase(0, name.size() + 2);
        if (module && *module && name != module) text = std::string(module) + ": " + text;
        out.lines.push_back(std::move(text));
    } catch (const std::bad_alloc&) {
        ++out.dropped;
    }
    return 1;  // handled: libtiff's process-wide handlers are not called
}

std::string TiffMessages::text() const {
    const Lines& from = errors_.lines.empty() ? warnings_ : errors_;
    std::string text;
    for (const std::string& line : from.lines) text += (text.empty() ? "" : "; ") + line;
    if (from.dropped) text += "; and " + std::to_string(from.dropped) + " more";
    return text;
}

void TiffMessages::clear() {
    errors_.lines.clear();
    errors_.dropped = 0;
    warnings_.lines.clear();
    warnings_.dropped = 0;
}

}  // namespace kiln::io
