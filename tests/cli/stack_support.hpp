#pragma once
// Frame stacks for the integrate-azimuthal tests (test_cli_stack.cpp,
// test_cli_mpi.cpp): detector-like frames written as bitshuffle-LZ4 HDF5
// stacks, the C++ API's profiles of them, and the command line's geometry.
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/azimuthal.hpp"

namespace kiln::test::stack {

inline constexpr size_t rows = 24, cols = 30, bins = 16;
/// The geometry of setup_of_args() on the command line.
extern const std::vector<std::string> geometry_args;

/// n Poisson frames (uint32, mean 40), seeds seed, seed + 1, ...
std::vector<HostArray> make_frames(size_t n, uint32_t seed, size_t r = rows, size_t c = cols);

/// A bitshuffle-LZ4 stack as detectors write it (kiln's writer: one
/// compressed chunk per frame), at /entry/data/data.
void write_stack(const std::string& path, const std::vector<HostArray>& frames);

/// The C++ API's profiles of the frames, integrated in one batch.
struct Reference {
    std::vector<float> intensity, sigma, std, count;
    std::vector<double> radial;
};
Reference reference(const std::vector<HostArray>& frames, const AzimuthalSetup& setup);

/// geometry_args as an AzimuthalSetup.
AzimuthalSetup setup_of_args(size_t r = rows, size_t c = cols);

/// a, then b.
std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b);

/// A float32 .npy file's values (and its shape).
std::vector<float> npy_floats(const std::string& path, Shape* shape = nullptr);

/// A file's bytes.
std::string slurp(const std::string& path);

/// A stack of n frames in `name` and the C++ API's profiles of it.
struct StackFixture {
    TempDir dir;
    std::vector<HostArray> frames;
    Reference want;
    StackFixture(size_t n, uint32_t seed, const std::string& name);
};

}  // namespace kiln::test::stack
