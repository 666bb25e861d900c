#pragma once
// Azimuthal integration of long frame stacks, from files to profile files:
// the driver behind `kiln integrate-azimuthal`, for applications too.
//
// A FrameStack is the frames of one or several files (HDF5 stacks, an Eiger
// master file's data files, array files), numbered continuously; its frame
// count is known before any frame is read. integrate_stack() then runs a
// pipeline of three stages that overlap:
//   - reader threads copy each batch's chunks straight from the files into
//     pinned memory (pread of the stored bitshuffle-LZ4 chunks, located once
//     through HDF5's chunk index; frames HDF5 has to decode go through it);
//   - the GPU copies a batch in, decodes it, integrates it and copies the
//     profiles back, one recorded Graph run per batch;
//   - the calling thread parses the next batch's block tables, launches it,
//     and hands the previous batch's profiles to a ProfileSink (a file
//     writer, kiln/profile_io.hpp) while the GPU works.
// A stop flag ends the run early with every launched batch written, so an
// interrupted run keeps what it finished.
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/azimuthal.hpp"
#include "kiln/dtype.hpp"
#include "kiln/profile_io.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// The frames of one or several files, numbered continuously across them.
class FrameStack {
public:
    /// One file's frames in the stack.
    struct Part {
        std::string path;
        std::string dataset;  ///< the HDF5 dataset; empty for an array file
        size_t first = 0;     ///< number of its first frame in the stack
        size_t frames = 0;
    };

    /// Opens every input, in order, and counts its frames. An input is an
    /// HDF5 file (.h5, .hdf5, .nxs, .hdf) holding `dataset`, or an Eiger
    /// master file whose data links are expanded to its data files
    /// (io::stack_parts); or an array file (.npy, .fits, .tif: a 2-D frame
    /// or a 3-D stack (frames, rows, cols)), read whole. Throws
    /// InvalidArgument when there are no inputs, when the inputs hold no
    /// frame, or when an input's frames differ in shape or dtype from the
    /// first input's (naming both); IoError as the readers do.
    explicit FrameStack(const std::vector<std::string>& inputs, const std::string& dataset = "/entry/data/data");
    ~FrameStack();
    FrameStack(FrameStack&&) noexcept;
    FrameStack& operator=(FrameStack&&) noexcept;
    FrameStack(const FrameStack&) = delete;
    FrameStack& operator=(const FrameStack&) = delete;

    size_t frames() const;
    size_t rows() const;
    size_t cols() const;
    DType dtype() const;
    /// A single 2-D frame (one array file of rank 2): profiles are written
    /// without a frames axis where the format has the choice.
    bool single() const;
    const std::vector<Part>& parts() const;
    /// Whether every frame's chunk can go to the GPU compressed (all parts
    /// are bitshuffle-LZ4 HDF5 stacks, io::FrameStackReader::gpu_decodable).
    bool gpu_decodable() const;
    /// "FILE:DATASET frame K" (or "FILE frame K") for frame `frame` of the
    /// stack, for messages.
    std::string where(size_t frame) const;

    struct Impl;
    const Impl& impl() const { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

/// Where a run stands, after each batch written.
struct StackProgress {
    size_t done = 0;     ///< frames written
    size_t total = 0;    ///< frames this run integrates (the stack's, or its share's: StackOptions::shards)
    double seconds = 0;  ///< since integrate_stack started
};

/// How integrate_stack runs.
struct StackOptions {
    size_t batch = 16;     ///< frames per GPU batch (at most the stack's frames)
    /// Reader threads, shared among the devices. 0: from the cores (below):
    /// all but 2 of them, at most 8 per device, at least 1 per device.
    unsigned readers = 0;
    /// The cores this run may take for its default readers; 0: the host's
    /// (std::thread::hardware_concurrency). Processes sharing a host (MPI
    /// ranks) give each its part.
    unsigned cores = 0;
    /// Decode bitshuffle-LZ4 chunks on the host (by the reader threads)
    /// and push the frames, instead of decoding on the GPU.
    bool cpu_decompress = false;
    /// Per-bin kappa-sigma clipping (AzimuthalIntegrator::sigma_clip) when set.
    std::optional<double> sigma_clip_kappa;
    int sigma_clip_iter = 5;
    ClipThreshold sigma_clip_threshold = ClipThreshold::chauvenet;
    /// The mean between two quantiles per ring (AzimuthalIntegrator::medfilt1d)
    /// instead of the plain mean, when set (and no sigma clipping).
    std::optional<std::pair<double, double>> medfilt;
    /// Results handed to the sink, by AzimuthalResult's names: intensity,
    /// sigma (= sem), sem, std, count, sum_signal, sum_variance,
    /// sum_normalization, sum_normalization_sq.
    std::vector<std::string> fields = {"intensity", "sigma"};
    /// Called on the calling thread after each batch is written.
    std::function<void(const StackProgress&)> progress;
    /// When it becomes true, no further batch is started: those under way
    /// are finished and written, and the run returns with stopped set.
    /// (A signal handler may set it.)
    const std::atomic<bool>* stop = nullptr;
    /// A share of the stack, for processes that split it (kiln's MPI ranks):
    /// of the batches (`batch` frames each, numbered from 0 across the
    /// stack) only those b with b % shards == shard are read and integrated.
    /// The sink still begins with the whole stack's layout (its frames) and
    /// gets this share's batches in frame order (write's `first` says where
    /// each lies); finish() gets the frames written, the summary's `frames`
    /// counts them and `stopped` compares them with the share's. A share
    /// may hold no batch (more shares than batches): the sink begins and
    /// finishes with none. InvalidArgument unless shards >= 1 and shard < shards.
    size_t shards = 1, shard = 0;
};

/// Where a run's time went, to find what limits its rate. Before the
/// pipeline starts (wall seconds): locating the chunks, and setting up the
/// devices' slots and graphs (all devices at once). Then seconds summed
/// over the threads of each stage (reader threads, one thread per device,
/// the calling thread that writes): a stage near its threads' wall time is
/// the limit; the waits say who waited for whom.
struct StackStages {
    double index = 0;         ///< locating every frame's chunk (from the start of the run)
    double setup = 0;         ///< the devices' pinned slots, decoders and recorded graphs
    double read = 0;          ///< reader threads reading chunks (and decoding them, on the host)
    double read_wait = 0;     ///< reader threads waiting for a slot whose batch is written
    double input_wait = 0;    ///< device threads waiting for a batch's chunks to be read
    double parse = 0;         ///< device threads parsing the chunks' block tables (Bslz4Decoder::stage)
    double submit = 0;        ///< device threads submitting a batch's graph run
    double gpu_wait = 0;      ///< device threads waiting for a batch's GPU run
    double slot_wait = 0;     ///< device threads waiting for a slot whose batch is written
    double results_wait = 0;  ///< the calling thread waiting for the next batch in frame order
    double write = 0;         ///< the calling thread in the sink (files, or MPI to rank 0)
};

/// What a run did.
struct StackSummary {
    size_t frames = 0;   ///< frames integrated and written
    size_t total = 0;    ///< frames of the stack
    double seconds = 0;  ///< wall time of the run, from its start to the sink's finish
    bool stopped = false;
    size_t batch = 0;
    unsigned readers = 0;
    std::string path;  ///< how frames travelled ("compressed chunks decoded on the GPU"...)
    size_t devices = 1;  ///< devices that integrated (at most one per batch; none for an empty share)
    StackStages stages;
};

/// Integrates every frame of `stack` with `integ` (made for the stack's
/// frame shape), batch by batch, and hands the profiles to `sink` in frame
/// order: sink.begin() with a layout of options.fields for stack.frames()
/// frames, write() per batch as it completes, finish() with the frames
/// written. `meta` describes the run for the files (geometry, detector,
/// corrections); its radial axis, unit and sources are filled in here.
///
/// Throws InvalidArgument for an unknown field, a zero batch or an
/// integrator whose pixel count is not the frames'; IoError for a chunk
/// that cannot be read or decoded (naming the file and frame); what the
/// sink throws. On any error the sink is not finished (its files are
/// removed) and the GPU is idle when this returns.
StackSummary integrate_stack(const Context& ctx, const AzimuthalIntegrator& integ, const FrameStack& stack,
                             io::ProfileSink& sink, const StackOptions& options = {}, io::ProfileMeta meta = {});

/// The same on several devices: one context each (`kiln::devices()` lists
/// them; ContextOptions::device_index picks one), each with an integrator
/// made from `setup` (the matrix is built once), its own pinned slots,
/// reader threads (options.readers, or the default, shared among them) and
/// a thread that launches its batches: batch b goes to device b % N, so
/// every device's decode, integration and pull overlap. The sink gets the
/// batches in frame order from the calling thread, as integrate_stack
/// gives them on one device; with one context this is that path. A stop
/// or an error ends every device's work: the batches written are a
/// prefix of the stack, and on an error no device's GPU is busy when this
/// returns. Throws InvalidArgument for no context, and as above.
StackSummary integrate_stack(const std::vector<Context>& devices, const AzimuthalSetup& setup,
                             const FrameStack& stack, io::ProfileSink& sink, const StackOptions& options = {},
                             io::ProfileMeta meta = {});
/// The same with integrators made by the caller, one per device (each on
/// its own context: AzimuthalIntegrator::context()), of one set-up.
StackSummary integrate_stack(const std::vector<const AzimuthalIntegrator*>& integrators, const FrameStack& stack,
                             io::ProfileSink& sink, const StackOptions& options = {}, io::ProfileMeta meta = {});

}  // namespace kiln
#pragma GCC visibility pop
