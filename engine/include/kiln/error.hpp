#pragma once
// Errors thrown by kiln. The library never aborts or exits: every failure is
// one of these, with a message saying what was wrong and what is accepted.
#include <stdexcept>
#include <string>

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// Base of every exception kiln throws.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A Vulkan call failed (device lost, out of memory, driver missing...).
class VulkanError : public Error {
public:
    VulkanError(const std::string& what, int result)
        : Error(what), result_(result) {}
    /// The VkResult returned by the failing call.
    int result() const { return result_; }

private:
    int result_;
};

/// The caller passed something kiln cannot accept (shape, dtype, size...).
class InvalidArgument : public Error {
public:
    using Error::Error;
};

/// The device lacks a feature the call needs (float64, a limit...).
class Unsupported : public Error {
public:
    using Error::Error;
};

/// Memory for an array could not be had: the host could not allocate it, or
/// it is larger than the device can hold in one array. (A Vulkan allocation
/// that fails at run time is a VulkanError with VK_ERROR_OUT_OF_*_MEMORY.)
class OutOfMemory : public Error {
public:
    using Error::Error;
};

/// A file could not be read or written, or its contents are malformed.
class IoError : public Error {
public:
    using Error::Error;
};

} // namespace kiln
#pragma GCC visibility pop
