// Azimuthal integration subcommands: integrate-azimuthal (frames from HDF5
// stacks, decompressed on the GPU when they are bitshuffle-LZ4, or from array
// files, through integrate_stack: kiln/stack_integration.hpp) and
// decompress-bslz4 (one frame of a stack, decoded on the GPU).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <thread>

#include "cli.hpp"
#include "interrupt.hpp"
#include "job.hpp"
#include "kiln/azimuthal.hpp"
#include "kiln/bslz4.hpp"
#include "kiln/detector.hpp"
#include "kiln/io.hpp"
#include "kiln/poni.hpp"
#include "kiln/profile_io.hpp"
#include "kiln/stack_integration.hpp"
#include "progress.hpp"

namespace kiln::cli {

namespace {

struct AzimuthalArgs {
    std::vector<std::string> inputs;
    std::string output, errors, radial, dataset = "/entry/data/data";
    std::string poni, detector;
    double dist = 0.1, poni1 = 0, poni2 = 0, pixel = 75e-6, pixel1 = 75e-6, pixel2 = 75e-6, wavelength = 1e-10;
    double rot1 = 0, rot2 = 0, rot3 = 0;
    size_t bins = 1000, batch = 16;
    unsigned readers = 0;
    std::string devices;  // --devices: "all" or indices/names, comma-separated
    std::string unit = "q_nm", error_model = "poisson", accumulation = "auto", kernels = "fused";
    std::string clip_threshold = "chauvenet", variance;
    std::vector<double> range, azimuth_range, medfilt;
    size_t npt_azim = 0;
    bool renormalize = false, no_dark_variance = false;
    std::string split = "no";
    bool solid_angle = false, cpu_decompress = false, quiet = false, verbose = false;
    std::optional<double> polarization, dummy;
    double delta_dummy = 0;
    std::string dark, flat, mask, csr_cache;
    std::optional<double> clip_kappa;
    int clip_iter = 5;
    const CLI::App* command = nullptr;  // which options were given (count)

    bool given(const char* option) const { return command->count(option) > 0; }
};

std::string shape_text(size_t rows, size_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

// The geometry and detector of the run: a .poni file's, then a named
// detector's pixel sizes, shape and gap mask, then the options given on the
// command line, each overriding what came before; the defaults where none
// says. Refuses a .poni or detector whose shape is not the frames'.
struct Setup {
    Geometry geometry;
    std::optional<Detector> detector;
};

Setup resolve_geometry(const AzimuthalArgs& a, size_t rows, size_t cols) {
    Setup s;
    Geometry& g = s.geometry;
    g = Geometry{rows, cols, a.pixel, a.pixel, a.dist, a.poni1, a.poni2, a.rot1, a.rot2, a.rot3, a.wavelength};
    const auto check_shape = [&](size_t r, size_t c, const std::string& what) {
        if (r && c && (r != rows || c != cols))
            throw InvalidArgument(what + " is " + shape_text(r, c) + " pixels, but the frames are " +
                                  shape_text(rows, cols) + "; give frames of that detector, or another " +
                                  (what.rfind("--poni", 0) == 0 ? std::string(".poni file") : "--detector"));
    };
    if (!a.poni.empty()) {
        const Poni p = read_poni(a.poni);
        check_shape(p.geometry.rows, p.geometry.cols,
                    "--poni '" + a.poni + "': its detector (" + p.detector.name + ")");
        g = p.geometry;
        if (p.detector.name != "Detector" || p.detector.rows) s.detector = p.detector;
    }
    if (!a.detector.empty()) {
        const Detector d = detector_by_name(a.detector);
        check_shape(d.rows, d.cols, "--detector " + d.name);
        g.pixel1 = d.pixel1;
        g.pixel2 = d.pixel2;
        s.detector = d;
    }
    g.rows = rows;
    g.cols = cols;
    if (a.given("--dist")) g.dist = a.dist;
    if (a.given("--poni1")) g.poni1 = a.poni1;
    if (a.given("--poni2")) g.poni2 = a.poni2;
    if (a.given("--rot1")) g.rot1 = a.rot1;
    if (a.given("--rot2")) g.rot2 = a.rot2;
    if (a.given("--rot3")) g.rot3 = a.rot3;
    if (a.given("--wavelength")) g.wavelength = a.wavelength;
    if (a.given("--pixel")) g.pixel1 = g.pixel2 = a.pixel;
    if (a.given("--pixel1")) g.pixel1 = a.pixel1;
    if (a.given("--pixel2")) g.pixel2 = a.pixel2;
    if (g.pixel1 <= 0 || g.pixel2 <= 0) g.pixel1 = g.pixel2 = a.pixel;  // a .poni without pixel sizes
    return s;
}

// The detector's gap mask OR-ed with --mask (nonzero = excluded).
std::optional<HostArray> combined_mask(const AzimuthalArgs& a, const Setup& s, size_t rows, size_t cols) {
    std::optional<HostArray> file;
    if (!a.mask.empty()) file = io::read_array(a.mask);
    const bool gaps = s.detector && (s.detector->module_rows || s.detector->module_cols || s.detector->mid_gap_cols);
    if (!gaps) return file;
    std::vector<uint8_t> m = s.detector->mask();
    if (file) {
        if (file->shape.size() != m.size())
            throw InvalidArgument("--mask '" + a.mask + "' holds " + std::to_string(file->shape.size()) +
                                  " values; the frames have " + std::to_string(m.size()) + " pixels (" +
                                  shape_text(rows, cols) + ")");
        for (size_t i = 0; i < m.size(); ++i) m[i] = m[i] || file->at(i) != 0;
    }
    return HostArray::from(Shape{rows, cols}, m);
}

AzimuthalSetup make_setup(const AzimuthalArgs& a, const Setup& geo, size_t rows, size_t cols) {
    AzimuthalSetup s;
    s.geometry = geo.geometry;
    s.unit = kiln::parse_radial(a.unit);
    s.bins = a.bins;
    if (!a.range.empty()) s.range = std::make_pair(a.range[0], a.range[1]);
    s.split = kiln::parse_split(a.split);
    s.csr_cache_dir = a.csr_cache;
    if (!a.dark.empty()) s.dark = io::read_array(a.dark);
    if (!a.flat.empty()) s.flat = io::read_array(a.flat);
    s.mask = combined_mask(a, geo, rows, cols);
    s.solid_angle = a.solid_angle;
    s.polarization_factor = a.polarization;
    s.dummy = a.dummy;
    s.delta_dummy = a.delta_dummy;
    using EM = kiln::IntegrateParams::ErrorModel;
    s.error_model = kiln::parse_error_model(a.error_model);
    if ((s.error_model == EM::variance) != !a.variance.empty())
        throw InvalidArgument("--error-model variance and --variance FILE go together (the per-pixel variance)");
    if (!a.variance.empty()) s.variance = io::read_array(a.variance);
    s.dark_variance = !a.no_dark_variance;
    s.azimuth_bins = a.npt_azim;
    if (!a.azimuth_range.empty()) s.azimuth_range = std::make_pair(a.azimuth_range[0], a.azimuth_range[1]);
    s.renormalize = a.renormalize;
    s.accumulation = a.accumulation == "float64"       ? Accumulation::float64
                     : a.accumulation == "compensated" ? Accumulation::compensated
                                                       : Accumulation::automatic;
    s.kernels = a.kernels == "separate" ? AzimuthalKernels::separate : AzimuthalKernels::fused;
    return s;
}

// One field kept in memory and written whole at the end, for the array
// formats that cannot grow (.fits, .tif).
class WholeArraySink : public io::ProfileSink {
public:
    WholeArraySink(Globals& g, std::string path, std::string field)
        : g_(g), path_(std::move(path)), field_(std::move(field)) {}
    void begin(const io::ProfileLayout& layout) override {
        index_ = size_t(layout.field_index(field_));
        values_ = layout.frame_values();
        shape_ = layout.frame_shape();
        single_ = layout.single;
    }
    void write(size_t, size_t n, std::span<const float* const> fields) override {
        data_.insert(data_.end(), fields[index_], fields[index_] + n * values_);
    }
    void finish(size_t frames) override {
        std::vector<size_t> dims = shape_;
        if (!single_) dims.insert(dims.begin(), frames);
        save(g_, HostArray::from(Shape::of(dims.size(), dims.data()), data_), path_);
    }

private:
    Globals& g_;
    std::string path_, field_;
    size_t index_ = 0, values_ = 0;
    std::vector<size_t> shape_;
    bool single_ = false;
    std::vector<float> data_;
};

// The writer of one output file, by its extension; `field` for the
// one-array formats. Outputs go to the temporaries of g.outputs, renamed
// into place when the command ends (interrupted or not); a stack's text
// files are each renamed into place as their frame completes.
std::unique_ptr<io::ProfileSink> open_sink(Globals& g, const std::string& path, const std::string& field,
                                           bool single, InterruptGuard* interrupt = nullptr) {
    const auto format = io::profile_format(path);
    if (!format) {
        if (io::known_array_extension(path)) return std::make_unique<WholeArraySink>(g, path, field);
        throw IoError("output '" + path +
                      "': unknown file type; integrate-azimuthal writes .npy, .h5 (.hdf5, .nxs), .xy or .dat "
                      "(and .fits, .tif, written whole at the end)");
    }
    switch (*format) {
    case io::ProfileFormat::npy: return std::make_unique<io::NpyProfileWriter>(g.outputs.write_to(path), field);
    case io::ProfileFormat::hdf5: return std::make_unique<io::Hdf5ProfileWriter>(g.outputs.write_to(path));
    case io::ProfileFormat::text:
        if (single) return std::make_unique<io::TextProfileWriter>(g.outputs.write_to(path), path);
        auto text = std::make_unique<io::TextProfileWriter>(path);
        if (interrupt) interrupt->remove_on_exit_too(text->partial_file());
        return text;
    }
    return nullptr;
}

void print_setup(Context& ctx, const AzimuthalArgs& a, const FrameStack& stack, const Setup& geo,
                 const AzimuthalIntegrator& integ, double matrix_seconds, size_t batch) {
    const Geometry& g = geo.geometry;
    std::fprintf(stderr, "frames: %zu of %zux%zu %s in %zu file%s\n", stack.frames(), stack.rows(), stack.cols(),
                 std::string(dtype_name(stack.dtype())).c_str(), stack.parts().size(), stack.parts().size() == 1 ? "" : "s");
    for (const auto& p : stack.parts())
        std::fprintf(stderr, "  %s%s%s: frames %zu to %zu\n", p.path.c_str(), p.dataset.empty() ? "" : ":",
                     p.dataset.c_str(), p.first, p.first + p.frames - 1);
    std::fprintf(stderr,
                 "geometry: dist %.6g m, poni1 %.6g m, poni2 %.6g m, rot %.6g %.6g %.6g rad, pixel %.6g x %.6g m, "
                 "wavelength %.6g m%s%s\n",
                 g.dist, g.poni1, g.poni2, g.rot1, g.rot2, g.rot3, g.pixel1, g.pixel2, g.wavelength,
                 geo.detector ? ", detector " : "", geo.detector ? geo.detector->name.c_str() : "");
    const Csr& csr = integ.csr();
    std::fprintf(stderr, "matrix: %zu bins of %s in [%.6g, %.6g], %zu pixels, %zu entries; %.3f s to build or load\n",
                 csr.bins, radial_name(csr.unit), csr.range_lo, csr.range_hi, csr.pixels, csr.nnz(),
                 matrix_seconds);
    std::fprintf(stderr, "device: %s\n", ctx.device().name.c_str());
    std::fprintf(stderr, "batch: %zu frames%s\n", batch, a.cpu_decompress ? ", chunks decoded on the host" : "");
}

// --devices' contexts: "all" (every device kiln sees), or indices and name
// parts separated by commas, each loaded with its saved tuning.
std::vector<Context> open_devices(const std::string& spec) {
    std::vector<std::string> items;
    const size_t available = Context::devices().size();
    if (spec == "all") {
        for (size_t i = 0; i < available; ++i) items.push_back(std::to_string(i));
    } else {
        for (size_t at = 0; at <= spec.size();) {
            const size_t comma = std::min(spec.find(',', at), spec.size());
            items.push_back(spec.substr(at, comma - at));
            if (items.back().empty())
                throw InvalidArgument("--devices '" + spec + "': an empty entry; give 'all' or indices or name "
                                      "parts separated by commas, e.g. 0,1");
            at = comma + 1;
        }
    }
    if (items.empty()) throw InvalidArgument("--devices all: no Vulkan device found");
    std::vector<Context> contexts;
    for (const std::string& item : items) contexts.push_back(open_device(item, "--devices", available ? available - 1 : 0));
    return contexts;
}

// Under mpirun with no --device, --devices or KILN_DEVICE: this rank's GPU,
// its rank on the host modulo the devices of the kind kiln picks by itself
// (the first of discrete, integrated, virtual, cpu that is present), so
// ranks on one host share its GPUs and none takes the CPU's driver beside them.
std::string rank_device(const Job& job) {
    const std::vector<DeviceInfo> infos = Context::devices();
    for (const char* type : {"discrete", "integrated", "virtual", "cpu", "other"}) {
        std::vector<uint32_t> kind;
        for (const DeviceInfo& i : infos)
            if (i.type == type && i.vulkan13) kind.push_back(i.index);
        if (!kind.empty()) return std::to_string(kind[size_t(job.local_rank()) % kind.size()]);
    }
    return "";
}

void run_integrate(Globals& g, const AzimuthalArgs& a) {
    using Clock = std::chrono::steady_clock;
    // Every output's type is known before any work.
    const bool text_out = io::profile_format(a.output) == io::ProfileFormat::text;
    if (!io::profile_format(a.output) && !io::known_array_extension(a.output))
        (void)open_sink(g, a.output, "intensity", false);  // throws the message
    for (const std::string* p : {&a.errors})
        if (!p->empty() && io::profile_format(*p) != io::ProfileFormat::npy && !io::known_array_extension(*p))
            throw IoError("output '" + *p + "': --errors writes one array: .npy (or .fits, .tif)");
    // From here on, Ctrl-C stops the run with what it finished written.
    InterruptGuard interrupt(g.outputs.temporaries());
    const FrameStack stack(a.inputs, a.dataset);
    const Setup geo = resolve_geometry(a, stack.rows(), stack.cols());
    // --devices: a context per device (its tuning loaded), the first
    // standing for them all in the set-up and summary.
    std::vector<Context> contexts;
    if (!a.devices.empty()) {
        if (!g.device.empty()) throw InvalidArgument("--device and --devices: give one of them");
        contexts = open_devices(a.devices);
        g.ctx = contexts.front();
        g.contexts = contexts;
    } else if (g.job && g.device.empty() && !std::getenv("KILN_DEVICE")) {
        g.device = rank_device(*g.job);
    }
    Context& ctx = g.context();
    const auto t0 = Clock::now();
    const AzimuthalSetup setup = make_setup(a, geo, stack.rows(), stack.cols());
    const AzimuthalIntegrator integ(ctx, setup);
    std::vector<AzimuthalIntegrator> more;
    std::vector<const AzimuthalIntegrator*> integrators{&integ};
    for (size_t k = 1; k < contexts.size(); ++k) more.emplace_back(contexts[k], setup);
    for (const AzimuthalIntegrator& i : more) integrators.push_back(&i);
    const double matrix_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const size_t batch = std::max<size_t>(1, std::min(a.batch, stack.frames()));
    // Under mpirun, rank 0 prints and writes for the job.
    const bool quiet = a.quiet || !g.speaks();
    if (a.verbose && !quiet) print_setup(ctx, a, stack, geo, integ, matrix_seconds, batch);

    io::ProfileFanout files;
    if (g.speaks()) {
        files.add(open_sink(g, a.output, "intensity", stack.single(), &interrupt));
        if (!a.errors.empty()) files.add(open_sink(g, a.errors, "sigma", stack.single()));
    }
    // Under mpirun, rank 0's sink writes every rank's batches to the files,
    // the others' send theirs to it.
    const std::unique_ptr<JobSink> job_sink = g.job ? g.job->sink(&files, batch) : nullptr;
    io::ProfileSink& sink = job_sink ? static_cast<io::ProfileSink&>(*job_sink) : files;
    io::ProfileMeta meta;
    meta.geometry = setup.geometry;
    if (geo.detector) {
        meta.detector = geo.detector->name;
        meta.detector_mask = geo.detector->module_rows || geo.detector->module_cols || geo.detector->mid_gap_cols;
    }
    meta.mask = !a.mask.empty();
    meta.dark = !a.dark.empty();
    meta.flat = !a.flat.empty();
    meta.polarization = a.polarization;
    meta.error_model = a.error_model;

    StackOptions o;
    o.batch = batch;
    o.readers = a.readers;
    o.cpu_decompress = a.cpu_decompress;
    o.sigma_clip_kappa = a.clip_kappa;
    o.sigma_clip_iter = a.clip_iter;
    o.sigma_clip_threshold = a.clip_threshold == "fixed" ? ClipThreshold::fixed : ClipThreshold::chauvenet;
    if (!a.medfilt.empty()) {
        if (a.clip_kappa) throw InvalidArgument("--medfilt and --sigma-clip: choose one");
        o.medfilt = std::make_pair(a.medfilt[0], a.medfilt[1]);
    }
    o.fields = {"intensity"};
    if (setup.error_model != kiln::IntegrateParams::ErrorModel::none) o.fields.insert(o.fields.end(), {"sigma", "std"});
    o.fields.push_back("count");
    if (g.job) {
        o.shards = size_t(g.job->size());
        o.shard = size_t(g.job->rank());
        // The host's cores shared among its ranks, for their readers.
        o.cores = std::max(1u, std::thread::hardware_concurrency() / unsigned(std::max(1, g.job->local_size())));
    }
    ProgressBar bar("integrating", stack.frames(), !quiet && !g.json);
    o.progress = [&](const StackProgress& p) { bar.update(job_sink ? job_sink->written() : p.done, p.seconds); };
    o.stop = &interrupt.stop();
    StackSummary done = integrate_stack(integrators, stack, sink, o, meta);
    bar.clear();
    if (g.job) {
        // The job's: every rank's frames (rank 0's sink wrote them) and devices.
        g.job->integrated(done);
        if (!g.speaks()) return;
        done.frames = job_sink->written();
        done.stopped = job_sink->cut();
    }
    const size_t ranks = g.job ? size_t(g.job->size()) : 1;

    if (!a.radial.empty()) save(g, HostArray::from(Shape{integ.bins()}, integ.csr().bin_centers), a.radial);
    const std::string written_to =
        text_out && !stack.single() ? io::TextProfileWriter::frame_file(a.output, 0) + "..." : a.output;
    if (done.stopped) {
        std::fprintf(stderr, "interrupted: %zu of %zu frames written to %s\n", done.frames, done.total,
                     written_to.c_str());
        g.exit_code = 130;
    }
    const double rate = done.seconds > 0 ? double(done.frames) / done.seconds : 0;
    // Stage times, summed over each stage's threads (and ranks).
    std::string stages_json, stages_text;
    for (const auto& [name, t] : stage_fields(done.stages)) {
        stages_json += std::string(stages_json.empty() ? "" : ", ") + "\"" + name + "\": " + json_number(*t);
        char v[32];
        std::snprintf(v, sizeof v, "%.3f", *t);
        stages_text += std::string(stages_text.empty() ? "" : ", ") + name + " " + v;
    }
    if (g.json) {
        std::printf("{\"frames\": %zu, \"total\": %zu, \"bins\": %zu, \"seconds\": %s, \"frames_per_second\": %s, "
                    "\"path\": %s, \"devices\": %zu, \"ranks\": %zu, \"readers\": %u, \"interrupted\": %s, "
                    "\"stages\": {%s}}\n",
                    done.frames, done.total, integ.bins(), json_number(done.seconds).c_str(),
                    json_number(rate).c_str(), json_string(done.path).c_str(), done.devices, ranks, done.readers,
                    done.stopped ? "true" : "false", stages_json.c_str());
    } else if (!a.quiet) {
        const std::string spread = (ranks > 1 ? ", " + std::to_string(ranks) + " ranks" : std::string()) +
                                   (done.devices > 1 ? ", " + std::to_string(done.devices) + " devices" : "");
        std::printf("integrated %zu frame%s into %zu bins in %.3f s (%.1f frames/s, %s%s)\n", done.frames,
                    done.frames == 1 ? "" : "s", integ.bins(), done.seconds, rate, done.path.c_str(),
                    spread.c_str());
        if (a.verbose)
            std::fprintf(stderr, "summary: %zu frames, %.3f s, %.1f frames/s, %u reader thread%s, written to %s\n",
                         done.frames, done.seconds, rate, done.readers, done.readers == 1 ? "" : "s",
                         written_to.c_str());
        if (a.verbose) std::fprintf(stderr, "stage times (s, summed over threads): %s\n", stages_text.c_str());
    }
    std::fflush(stdout);  // before the profile table, which goes to stderr
}

void register_azimuthal(CLI::App& app, Globals& g) {
    {
        auto a = std::make_shared<AzimuthalArgs>();
        auto* c = add_command(
            app, g, "integrate-azimuthal",
            "Azimuthal integration (pyFAI's CSR engine) of every frame of one or several HDF5 stacks "
            "(bitshuffle-LZ4 chunks are read by several threads and decoded on the GPU; an Eiger master file "
            "stands for its data files) or array files (2-D frame or 3-D stack), frames numbered across the "
            "files in order. Profiles are written as batches complete, so a run stopped by Ctrl-C (or SIGTERM) "
            "keeps every finished frame: it ends the batches under way, writes them, closes the files, says "
            "\"interrupted: N of M frames written to FILE\" and exits with status 130; a second Ctrl-C stops at "
            "once, leaving no partial file.\n"
            "Output by -o's extension: .npy: intensities, frames x bins float32 (bins for a single 2-D frame; "
            "written under a temporary name, its header rewritten for the frames done, renamed at the end); "
            ".h5 (.hdf5, .nxs): datasets intensity, sigma, std and count (frames, bins), radial (the bin "
            "centres, attribute unit) and the geometry as attributes; .xy or .dat: pyFAI's text format (its "
            "save1D: '#' header with the geometry, then radial, I, sigma columns), one file per frame, "
            "NAME_00000.xy, NAME_00001.xy... (NAME.xy itself for a single 2-D frame), each renamed into place "
            "as its frame completes; .fits, .tif: written whole at the end.\n"
            "Geometry: --poni FILE (pyFAI's), then --detector NAME (pixel sizes, shape, gap mask OR-ed with "
            "--mask), then the options given (--dist, --poni1, ..., --pixel, --pixel1, --pixel2) override, in "
            "that order.\n"
            "On a terminal, a progress line shows frames done, frames/s and the time left (-q: none).\n"
            "Under Open MPI's mpirun -np N (a kiln built with MPI), rank r reads batches r, r+N, r+2N... "
            "straight from the files and integrates them on its own GPU (its rank on the host modulo the GPUs, "
            "unless --device or --devices says), the other ranks send their profiles to rank 0, and rank 0 "
            "writes the one output in frame order, the same bytes as one process writes; a rank that fails "
            "fails the job with its message (\"rank R: ...\") and no output.",
            [a, &g] { run_integrate(g, *a); });
        a->command = c;
        c->add_option("FRAMES", a->inputs,
                      "HDF5 stacks (.h5, .hdf5, .nxs; an Eiger master file expands to its data files) or array "
                      "files (.npy, .fits, .tif), integrated in the order given")
            ->required();
        add_output(c, g, "-o,--output", a->output, "Profiles: .npy, .h5, .xy or .dat (see above)", false)->required();
        add_output(c, g, "--errors", a->errors, "Also write the standard errors of the mean (sigma) here (.npy)",
                   false);
        add_output(c, g, "--radial", a->radial, "Also write the bin centres (float64) here");
        c->add_option("--dataset", a->dataset, "Dataset of the HDF5 stacks")->capture_default_str();
        c->add_option("--poni", a->poni, "pyFAI .poni file (v1 or v2): geometry, wavelength, detector");
        c->add_option("--detector", a->detector,
                      "Detector by pyFAI's name (Eiger4M, Pilatus1M...): pixel sizes, shape, gap mask");
        c->add_option("--dist", a->dist, "Sample to detector distance, m")->capture_default_str();
        c->add_option("--poni1", a->poni1, "PONI along the rows (y), m")->capture_default_str();
        c->add_option("--poni2", a->poni2, "PONI along the columns (x), m")->capture_default_str();
        c->add_option("--rot1", a->rot1, "Rotation 1, rad")->capture_default_str();
        c->add_option("--rot2", a->rot2, "Rotation 2, rad")->capture_default_str();
        c->add_option("--rot3", a->rot3, "Rotation 3, rad")->capture_default_str();
        c->add_option("--pixel", a->pixel, "Pixel size (both directions), m")->capture_default_str();
        c->add_option("--pixel1", a->pixel1, "Pixel size along the rows (y), m (default: --pixel)");
        c->add_option("--pixel2", a->pixel2, "Pixel size along the columns (x), m (default: --pixel)");
        c->add_option("--wavelength", a->wavelength, "Wavelength, m")->capture_default_str();
        c->add_option("--bins", a->bins, "Radial bins")
            ->check(whole_number(1, std::numeric_limits<uint32_t>::max()))
            ->capture_default_str();
        c->add_option("--unit", a->unit, "Radial unit (pyFAI's names)")
            ->check(parsed_by(kiln::parse_radial, "UNIT"))
            ->capture_default_str();
        c->add_option("--range", a->range, "Radial range LO HI (default: the unmasked pixels' extent)")
            ->expected(2);
        c->add_flag("--split{bbox}", a->split,
                    "Pixel splitting, pyFAI's no|bbox|full (--split alone: bbox; --split=full: each pixel "
                    "shared by the area of its corners' quadrilateral in each bin)")
            ->check(parsed_by(kiln::parse_split, "SPLIT"));
        c->add_option("--dark", a->dark, "Dark current, subtracted (.npy, .fits, .tif)");
        c->add_option("--flat", a->flat, "Flat field, divides (.npy, .fits, .tif)");
        c->add_option("--mask", a->mask, "Mask, nonzero = excluded (.npy, .fits, .tif, .png)");
        c->add_flag("--solid-angle", a->solid_angle, "Divide by the pixels' relative solid angle");
        c->add_option("--polarization", a->polarization, "Divide by the polarization factor for this factor in [-1, 1]");
        c->add_option("--dummy", a->dummy, "Raw value marking invalid pixels");
        c->add_option("--delta-dummy", a->delta_dummy, "Tolerance around --dummy")->capture_default_str();
        c->add_option("--npt-azim", a->npt_azim,
                      "Azimuthal bins: a 2-D cake (outputs (frames, npt-azim, bins); not with .xy/.dat)")
            ->check(whole_number(1, std::numeric_limits<uint32_t>::max()));
        c->add_option("--azimuth-range", a->azimuth_range,
                      "chi range LO HI in degrees within [-180, 180]: the cake's, or in 1-D the sector integrated")
            ->expected(2);
        c->add_flag("--renormalize", a->renormalize,
                    "pyFAI 0.21's rule for split pixels cut by a range edge (default: they keep their inside part)");
        c->add_option("--error-model", a->error_model,
                      "Variance of a pixel: poisson (max(raw, 1), + dark unless --no-dark-variance), azimuthal "
                      "(the spread of each ring), variance (--variance FILE) or none")
            ->check(parsed_by(kiln::parse_error_model, "MODEL"))
            ->capture_default_str();
        c->add_option("--variance", a->variance, "Per-pixel variance for --error-model variance (.npy, .fits, .tif)");
        c->add_flag("--no-dark-variance", a->no_dark_variance,
                    "Poisson variance without the dark's, as pyFAI 0.21's compiled integrators");
        c->add_option("--sigma-clip", a->clip_kappa,
                      "Per-ring sigma clipping (pyFAI's sigma_clip_ng) with this minimum threshold (off unless given)");
        c->add_option("--clip-threshold", a->clip_threshold,
                      "chauvenet: max(kappa, Chauvenet's criterion for the ring's count); fixed: kappa")
            ->check(CLI::IsMember({"chauvenet", "fixed"}))
            ->capture_default_str();
        c->add_option("--max-iter", a->clip_iter, "Sigma-clipping passes")->capture_default_str();
        c->add_option("--medfilt", a->medfilt,
                      "Mean between the quantiles Q_LO Q_HI of each ring (pyFAI's medfilt1d_ng; 0.5 0.5: median)")
            ->expected(2);
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
        c->add_option("--devices", a->devices,
                      "Integrate on several devices: 'all', or device indices or name parts separated by commas "
                      "(`kiln devices` lists them; one may repeat); batch b goes to the (b mod N)-th, the output "
                      "is the same as on one")
            ->check([](const std::string& v) { return v.empty() ? std::string("give 'all' or a list") : ""; });
        c->add_option("--readers", a->readers, "Threads reading chunks from the files, shared among the devices (0: from the cores: all but 2, "
                      "at most 8 per device; under mpirun, the host's cores divided among its ranks)")
            ->check(whole_number(0, 256))
            ->capture_default_str();
        c->add_flag("-q,--quiet", a->quiet, "Print nothing but errors (and the interruption notice)");
        c->add_flag("-v,--verbose", a->verbose,
                    "Print the set-up (frames, geometry, matrix and its build time, device, batch) and a summary");
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
