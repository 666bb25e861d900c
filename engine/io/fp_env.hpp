#pragma once
// Puts the caller's floating-point environment back after a stretch of code
// that may load a shared library built with -ffast-math. Such a library's
// start-up code (GCC's crtfastmath) turns on flush-to-zero and
// denormals-are-zero for the whole process; Debian's HDF5 filter plugins
// (bitshuffle, LZF) are built that way, and HDF5 loads them on demand.
#include <cfenv>

namespace kiln::io {

class FloatEnvGuard {
public:
    FloatEnvGuard() { std::fegetenv(&env_); }
    ~FloatEnvGuard() { std::fesetenv(&env_); }
    FloatEnvGuard(const FloatEnvGuard&) = delete;
    FloatEnvGuard& operator=(const FloatEnvGuard&) = delete;

private:
    std::fenv_t env_{};
};

} // namespace kiln::io
