// Frame stacks for the integrate-azimuthal tests (stack_support.hpp).
#include "cli/stack_support.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "bslz4_support.hpp"
#include "kiln/io.hpp"
#include "support.hpp"

namespace kiln::test::stack {

const std::vector<std::string> geometry_args = {"--bins", "16", "--pixel", "1e-3", "--dist", "0.05", "--poni1",
                                                "0.011", "--poni2", "0.013"};

std::vector<HostArray> make_frames(size_t n, uint32_t seed, size_t r, size_t c) {
    std::vector<HostArray> out;
    for (size_t k = 0; k < n; ++k) out.push_back(test::poisson(Shape{r, c}, DType::uint32, 40.0, seed + uint32_t(k)));
    return out;
}

void write_stack(const std::string& path, const std::vector<HostArray>& frames) {
    io::FrameStackWriter w(path, "/entry/data/data", frames[0].shape.y(), frames[0].shape.x(), DType::uint32, true);
    for (const auto& f : frames) w.write_frame(f);
    w.close();
}

Reference reference(const std::vector<HostArray>& frames, const AzimuthalSetup& setup) {
    Context ctx = test::context();
    AzimuthalIntegrator integ(ctx, setup);
    const size_t r = frames[0].shape.y(), c = frames[0].shape.x();
    std::vector<uint32_t> all;
    for (const auto& f : frames) all.insert(all.end(), f.as<uint32_t>().begin(), f.as<uint32_t>().end());
    const AzimuthalResult res =
        integ.integrate(Array::from_host(ctx, HostArray::from(Shape{frames.size(), r, c}, all)));
    return {res.intensity.to_vector<float>(), res.sem.to_vector<float>(), res.std.to_vector<float>(),
            res.count.to_vector<float>(), integ.csr().bin_centers};
}

AzimuthalSetup setup_of_args(size_t r, size_t c) {
    AzimuthalSetup s;
    s.geometry = Geometry{r, c, 1e-3, 1e-3, 0.05, 0.011, 0.013, 0, 0, 0, 1e-10};
    s.unit = Radial::q_nm;
    s.bins = bins;
    return s;
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::vector<float> npy_floats(const std::string& path, Shape* shape) {
    const HostArray a = io::read_npy(path);
    if (shape) *shape = a.shape;
    REQUIRE(a.dtype == DType::float32);
    return {a.as<float>().begin(), a.as<float>().end()};
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

StackFixture::StackFixture(size_t n, uint32_t seed, const std::string& name) : frames(make_frames(n, seed)) {
    write_stack(dir.file(name), frames);
    want = reference(frames, setup_of_args());
}

}  // namespace kiln::test::stack
