// Azimuthal integration subcommands: integrate-azimuthal (frames from HDF5
// stacks, decompressed on the GPU when they are bitshuffle-LZ4, or from array
// files) and decompress-bslz4 (one frame of a stack, decoded on the GPU).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>

#include "cli.hpp"
#include "kiln/azimuthal.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/io.hpp"

namespace kiln::cli {

namespace {

struct AzimuthalArgs {
    std::string input, output, errors, radial, dataset = "/entry/data/data";
    double dist = 0.1, poni1 = 0, poni2 = 0, pixel = 75e-6, wavelength = 1e-10;
    double rot1 = 0, rot2 = 0, rot3 = 0;
    size_t bins = 1000, batch = 16;
    std::string unit = "q_nm", error_model = "poisson", accumulation = "auto", kernels = "fused";
    std::vector<double> range;
    std::string split = "no";
    bool solid_angle = false, cpu_decompress = false;
    std::optional<double> polarization, dummy;
    double delta_dummy = 0;
    std::string dark, flat, mask, csr_cache;
    std::optional<double> clip_kappa;
    int clip_iter = 5;
};

bool is_h5(const std::string& path) {
    for (const char* ext : {".h5", ".hdf5", ".nxs", ".hdf"})
        if (path.size() > std::strlen(ext) && path.compare(path.size() - std::strlen(ext), std::string::npos, ext) == 0)
            return true;
    return false;
}

AzimuthalSetup make_setup(const AzimuthalArgs& a, size_t rows, size_t cols) {
    AzimuthalSetup s;
    s.geometry = kiln::Geometry{rows, cols, a.pixel, a.pixel, a.dist, a.poni1, a.poni2, a.rot1, a.rot2,
                                a.rot3, a.wavelength};
    s.unit = kiln::parse_radial(a.unit);
    s.bins = a.bins;
    if (!a.range.empty()) s.range = std::make_pair(a.range[0], a.range[1]);
    s.split = kiln::parse_split(a.split);
    s.csr_cache_dir = a.csr_cache;
    if (!a.dark.empty()) s.dark = io::read_array(a.dark);
    if (!a.flat.empty()) s.flat = io::read_array(a.flat);
    if (!a.mask.empty()) s.mask = io::read_array(a.mask);
    s.solid_angle = a.solid_angle;
    s.polarization_factor = a.polarization;
    s.dummy = a.dummy;
    s.delta_dummy = a.delta_dummy;
    s.error_model = a.error_model == "none" ? kiln::IntegrateParams::ErrorModel::none
                                            : kiln::IntegrateParams::ErrorModel::poisson;
    s.accumulation = a.accumulation == "float64"       ? Accumulation::float64
                     : a.accumulation == "compensated" ? Accumulation::compensated
                                                       : Accumulation::automatic;
    s.kernels = a.kernels == "separate" ? AzimuthalKernels::separate : AzimuthalKernels::fused;
    return s;
}

// Integrates frames [first, first + n) of whatever a batch's input array
// holds; results are appended to the host profiles.
struct Collector {
    std::vector<float> intensity, sem;
    void take(const AzimuthalResult& r, size_t n, size_t bins) {
        const auto i = r.intensity.to_vector<float>(), e = r.sem.to_vector<float>();
        intensity.insert(intensity.end(), i.begin(), i.begin() + long(n * bins));
        sem.insert(sem.end(), e.begin(), e.begin() + long(n * bins));
    }
};

void run_integrate(Globals& g, const AzimuthalArgs& a) {
    const auto no_frames = [&] {
        return InvalidArgument("integrate-azimuthal: '" + a.input + "' holds no frame to integrate");
    };
    Context& ctx = g.context();
    const auto t0 = std::chrono::steady_clock::now();
    Collector out;
    size_t frames = 0, bins = 0;
    bool stack = true;
    std::vector<double> radial;
    std::string path_taken;
    auto integrate = [&](const AzimuthalIntegrator& integ, const Array& in) {
        return a.clip_kappa ? integ.sigma_clip(in, *a.clip_kappa, a.clip_iter) : integ.integrate(in);
    };
    if (is_h5(a.input)) {
        io::FrameStackReader reader(a.input, a.dataset);
        frames = reader.frames();
        if (frames == 0) throw no_frames();
        const size_t rows = reader.rows(), cols = reader.cols();
        AzimuthalIntegrator integ(ctx, make_setup(a, rows, cols));
        bins = integ.bins();
        radial = integ.csr().bin_centers;
        const size_t batch = std::max<size_t>(1, std::min(a.batch, frames));
        const bool gpu_decode = reader.gpu_decodable() && !a.cpu_decompress;
        path_taken = gpu_decode ? "compressed chunks decoded on the GPU" : "frames decoded on the host";
        // One graph recorded once, run per batch with new inputs.
        Graph graph(ctx);
        AzimuthalResult r;
        std::optional<Bslz4Decoder> dec;
        Array input;
        {
            auto capture = graph.capture();
            if (gpu_decode) {
                dec.emplace(ctx, Shape{rows, cols}, reader.dtype(), batch);
                dec->record();
                input = dec->output();
            } else {
                input = Array::empty(ctx, batch == 1 ? Shape{rows, cols} : Shape{batch, rows, cols}, reader.dtype());
            }
            r = integrate(integ, input);
        }
        std::vector<std::vector<uint8_t>> chunks(batch);
        std::vector<ChunkCoding> coding(batch);
        HostArray host(batch == 1 ? Shape{rows, cols} : Shape{batch, rows, cols}, reader.dtype());
        for (size_t first = 0; first < frames; first += batch) {
            const size_t n = std::min(batch, frames - first);
            if (gpu_decode) {
                // Chunks stored unfiltered travel as they are, into their frame.
                for (size_t k = 0; k < n; ++k) coding[k] = reader.read_for_decoder(first + k, chunks[k]);
                dec->push(std::span<const std::vector<uint8_t>>(chunks.data(), n), first, a.input + " frame",
                          std::span<const ChunkCoding>(coding.data(), n));
            } else {
                const size_t frame_bytes = byte_size(Shape{rows, cols}, reader.dtype());
                for (size_t k = 0; k < n; ++k)
                    std::memcpy(static_cast<std::byte*>(host.data()) + k * frame_bytes, reader.read_frame(first + k).data(), frame_bytes);
                input.push(host.data(), host.nbytes());
            }
            graph.run();
            if (dec) dec->check();
            out.take(r, n, bins);
        }
    } else {
        const HostArray h = io::read_array(a.input);
        if (h.shape.ndim() < 2)
            throw InvalidArgument("integrate-azimuthal: '" + a.input + "' holds a " + h.shape.str() +
                                  " array; give a 2-D frame or a 3-D stack (frames, rows, cols)");
        stack = h.shape.ndim() == 3;
        const size_t rows = h.shape.y(), cols = h.shape.x();
        frames = h.shape.z();
        AzimuthalIntegrator integ(ctx, make_setup(a, rows, cols));
        bins = integ.bins();
        radial = integ.csr().bin_centers;
        path_taken = "frames pushed from the file";
        const size_t frame_bytes = byte_size(Shape{rows, cols}, h.dtype);
        for (size_t first = 0; first < frames; first += a.batch) {
            const size_t n = std::min(a.batch, frames - first);
            const Shape shape = n == 1 ? Shape{rows, cols} : Shape{n, rows, cols};
            out.take(integrate(integ, Array::from_host(ctx, shape, h.dtype, static_cast<const std::byte*>(h.data()) + first * frame_bytes,
                                                       n * frame_bytes)),
                     n, bins);
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Shape shape = stack ? Shape{frames, bins} : Shape{bins};
    save(g, HostArray::from(shape, out.intensity), a.output);
    if (!a.errors.empty()) save(g, HostArray::from(shape, out.sem), a.errors);
    if (!a.radial.empty()) save(g, HostArray::from(Shape{bins}, radial), a.radial);
    if (g.json) {
        std::printf("{\"frames\": %zu, \"bins\": %zu, \"seconds\": %s, \"frames_per_second\": %s, \"path\": %s}\n",
                    frames, bins, json_number(seconds).c_str(), json_number(double(frames) / seconds).c_str(),
                    json_string(path_taken).c_str());
    } else {
        std::printf("integrated %zu frame%s into %zu bins in %.3f s (%.1f frames/s, %s)\n", frames,
                    frames == 1 ? "" : "s", bins, seconds, frames / seconds, path_taken.c_str());
    }
    std::fflush(stdout);  // before the profile table, which goes to stderr
}

void register_azimuthal(CLI::App& app, Globals& g) {
    {
        auto a = std::make_shared<AzimuthalArgs>();
        auto* c = add_command(
            app, g, "integrate-azimuthal",
            "Azimuthal integration (pyFAI's CSR engine) of every frame of an HDF5 stack (bitshuffle-LZ4 chunks are "
            "decoded on the GPU) or of an array file (2-D frame or 3-D stack); writes the intensities, "
            "frames x bins float32 (bins for a single 2-D frame)",
            [a, &g] { run_integrate(g, *a); });
        c->add_option("FRAMES", a->input, "HDF5 stack (.h5, .hdf5, .nxs) or array file (.npy, .fits, .tif)")->required();
        add_output(c, g, "-o,--output", a->output, "Intensities (.npy)")->required();
        add_output(c, g, "--errors", a->errors, "Also write the standard errors of the mean (sigma) here");
        add_output(c, g, "--radial", a->radial, "Also write the bin centres (float64) here");
        c->add_option("--dataset", a->dataset, "Dataset of the HDF5 stack")->capture_default_str();
        c->add_option("--dist", a->dist, "Sample to detector distance, m")->capture_default_str();
        c->add_option("--poni1", a->poni1, "PONI along the rows (y), m")->capture_default_str();
        c->add_option("--poni2", a->poni2, "PONI along the columns (x), m")->capture_default_str();
        c->add_option("--rot1", a->rot1, "Rotation 1, rad")->capture_default_str();
        c->add_option("--rot2", a->rot2, "Rotation 2, rad")->capture_default_str();
        c->add_option("--rot3", a->rot3, "Rotation 3, rad")->capture_default_str();
        c->add_option("--pixel", a->pixel, "Pixel size, m")->capture_default_str();
        c->add_option("--wavelength", a->wavelength, "Wavelength, m")->capture_default_str();
        c->add_option("--bins", a->bins, "Radial bins")
            ->check(whole_number(1, std::numeric_limits<uint32_t>::max()))
            ->capture_default_str();
        c->add_option("--unit", a->unit, "Radial unit (pyFAI's names)")
            ->check(CLI::IsMember({"q_nm", "q_nm^-1", "q_A^-1", "2th_deg", "2th_rad", "r_mm", "d*2_A^-2", "chi_deg"}))
            ->capture_default_str();
        c->add_option("--range", a->range, "Radial range LO HI (default: the unmasked pixels' extent)")
            ->expected(2);
        c->add_flag("--split{bbox}", a->split,
                    "Pixel splitting, pyFAI's no|bbox|full (--split alone: bbox; --split=full: each pixel "
                    "shared by the area of its corners' quadrilateral in each bin)")
            ->check(CLI::IsMember({"no", "none", "bbox", "full"}));
        c->add_option("--dark", a->dark, "Dark current, subtracted (.npy, .fits, .tif)");
        c->add_option("--flat", a->flat, "Flat field, divides (.npy, .fits, .tif)");
        c->add_option("--mask", a->mask, "Mask, nonzero = excluded (.npy, .fits, .tif, .png)");
        c->add_flag("--solid-angle", a->solid_angle, "Divide by the pixels' relative solid angle");
        c->add_option("--polarization", a->polarization, "Divide by the polarization factor for this factor in [-1, 1]");
        c->add_option("--dummy", a->dummy, "Raw value marking invalid pixels");
        c->add_option("--delta-dummy", a->delta_dummy, "Tolerance around --dummy")->capture_default_str();
        c->add_option("--error-model", a->error_model, "Variance of a pixel: poisson (max(raw, 1) + dark) or none")
            ->check(CLI::IsMember({"poisson", "none"}))
            ->capture_default_str();
        c->add_option("--sigma-clip", a->clip_kappa, "Kappa of per-ring sigma clipping (off unless given)");
        c->add_option("--max-iter", a->clip_iter, "Sigma-clipping passes")->capture_default_str();
        c->add_option("--accumulation", a->accumulation, "Sums in float64, compensated float32, or auto")
            ->check(CLI::IsMember({"auto", "float64", "compensated"}))
            ->capture_default_str();
        c->add_option("--kernels", a->kernels, "Pre-processing fused into the CSR kernel, or separate")
            ->check(CLI::IsMember({"fused", "separate"}))
            ->capture_default_str();
        c->add_option("--batch", a->batch, "Frames per GPU batch")
            ->check(whole_number(1, std::numeric_limits<uint32_t>::max()))
            ->capture_default_str();
        c->add_flag("--cpu-decompress", a->cpu_decompress,
                    "Decode bitshuffle-LZ4 chunks on the host instead of pushing them compressed");
        c->add_option("--csr-cache", a->csr_cache, "Folder keeping the CSR matrices between runs");
    }
    {
        auto input = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto dataset = std::make_shared<std::string>("/entry/data/data");
        auto frame = std::make_shared<size_t>(0);
        auto* c = add_command(app, g, "decompress-bslz4",
                              "Decode one frame of a bitshuffle-LZ4 HDF5 stack on the GPU (direct chunk read, "
                              "compressed bytes pushed)",
                              [=, &g] {
                                  io::FrameStackReader reader(*input, *dataset);
                                  if (!reader.gpu_decodable())
                                      throw InvalidArgument(
                                          "decompress-bslz4: dataset " + *dataset + " of '" + *input +
                                          "' is not bitshuffle-LZ4 (its only filter) with one frame per chunk "
                                          "in little-endian order; read it with any HDF5 tool instead");
                                  // A chunk stored unfiltered is copied to the GPU as it is.
                                  std::vector<uint8_t> chunk;
                                  const ChunkCoding coding = reader.read_for_decoder(*frame, chunk);
                                  save(g,
                                       bslz4_decompress(g.context(), chunk, Shape{reader.rows(), reader.cols()},
                                                        reader.dtype(), *input + " frame " + std::to_string(*frame),
                                                        coding),
                                       *out);
                              });
        c->add_option("FRAMES", *input, "HDF5 stack")->required();
        c->add_option("--frame", *frame, "Frame index")
            ->check(whole_number(0, std::numeric_limits<uint64_t>::max()))
            ->capture_default_str();
        c->add_option("--dataset", *dataset, "Dataset of the stack")->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Output file (.npy, .fits, .tif)")->required();
    }
}

const CommandFamily azimuthal_family(register_azimuthal);

} // namespace

} // namespace kiln::cli
