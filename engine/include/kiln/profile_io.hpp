#pragma once
// Integrated profiles written to files frame by frame, as a stack
// integration (kiln/stack_integration.hpp) produces them: NPY, HDF5, and
// pyFAI's text format (.xy/.dat, as pyFAI's save1D writes it). Each writer is
// a ProfileSink: begin() with the layout, write() the frames in order as they
// complete, finish() with the number written, which may be fewer than
// announced (an interrupted run): the file then holds exactly those frames.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/geometry.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln::io {

/// What the profiles are, for the files' headers and attributes.
struct ProfileMeta {
    Geometry geometry;
    std::string detector = "Detector";  ///< detector's name (pyFAI's class name; "Detector": generic)
    bool detector_mask = false;         ///< the detector has a gap mask (applied)
    std::string radial_unit;            ///< pyFAI's unit name of the radial axis ("q_nm^-1")
    std::vector<double> radial;         ///< radial bin centres
    /// A 2-D (cake) integration's azimuthal bin centres and unit ("chi_deg");
    /// empty for 1-D profiles.
    std::vector<double> azimuthal;
    std::string azimuthal_unit;
    bool mask = false, dark = false, flat = false;  ///< corrections applied
    std::optional<double> polarization;            ///< polarization factor applied
    std::string error_model = "poisson";
    std::vector<std::string> sources;  ///< input files, for the record
};

/// The shape of what a sink receives.
struct ProfileLayout {
    ProfileMeta meta;
    /// Names of the per-frame float32 arrays, in the order write() passes
    /// them: "intensity", "sigma" (the standard error of the mean), "std",
    /// "count", "sum_signal", ...
    std::vector<std::string> fields;
    size_t frames = 0;  ///< frames announced
    /// A single frame (a 2-D input): written without a frames axis where the
    /// format has a choice (.npy (bins), one text file).
    bool single = false;

    /// One frame's shape: (radial) or (azimuthal, radial).
    std::vector<size_t> frame_shape() const;
    /// Values of one field per frame.
    size_t frame_values() const;
    /// Index of `field` in fields, or -1.
    int field_index(const std::string& field) const;
};

/// Receives a run's profiles, frame by frame in order.
class ProfileSink {
public:
    virtual ~ProfileSink() = default;
    /// Before the first frame. Throws IoError when the output cannot be
    /// created, InvalidArgument when the layout lacks what it writes.
    virtual void begin(const ProfileLayout& layout) = 0;
    /// Frames [first, first + n): fields[i] points at n * frame_values()
    /// values of layout.fields[i]. first is the number of frames written so
    /// far. Written through to the file (flushed) before it returns.
    virtual void write(size_t first, size_t n, std::span<const float* const> fields) = 0;
    /// After the last frame: `frames` were written (fewer than announced when
    /// the run was stopped). Completes the files; a sink destroyed without
    /// finish() leaves no file of its own behind.
    virtual void finish(size_t frames) = 0;
};

/// Several sinks fed the same frames.
class ProfileFanout : public ProfileSink {
public:
    void add(std::unique_ptr<ProfileSink> sink) { sinks_.push_back(std::move(sink)); }
    void begin(const ProfileLayout& layout) override;
    void write(size_t first, size_t n, std::span<const float* const> fields) override;
    void finish(size_t frames) override;

private:
    std::vector<std::unique_ptr<ProfileSink>> sinks_;
};

/// One field as a float32 .npy: (frames, bins) or (frames, azimuthal,
/// radial), (bins) for a single frame. The file is sized for the announced
/// frames at begin(), each batch written in place, and finish() rewrites the
/// header for the frames written and cuts the file there, so a finished file
/// holds exactly them. (Until finish() the header announces every frame:
/// write to a temporary name and rename after finish(), as the CLI does.)
class NpyProfileWriter : public ProfileSink {
public:
    NpyProfileWriter(std::string path, std::string field = "intensity");
    ~NpyProfileWriter() override;
    void begin(const ProfileLayout& layout) override;
    void write(size_t first, size_t n, std::span<const float* const> fields) override;
    void finish(size_t frames) override;

private:
    std::string header(size_t frames) const;
    std::string path_, field_;
    int fd_ = -1, index_ = -1;
    size_t header_bytes_ = 0, frame_bytes_ = 0;
    std::vector<size_t> frame_shape_;
    bool single_ = false, finished_ = false;
};

/// Every field in one HDF5 file: a float32 dataset per field, named after
/// it, of shape (frames, bins) or (frames, azimuthal, radial), grown by each
/// write() and flushed; the radial bin centres as dataset "radial" (float64,
/// attributes "unit" and "long_name"), a cake's as "azimuthal"; attributes of
/// the root group: the geometry (dist, poni1, poni2, rot1, rot2, rot3,
/// pixel1, pixel2 in metres and radians, wavelength in metres, shape),
/// "detector", "unit", "error_model", "frames" (announced), "sources", and
/// NeXus's "signal" (intensity) and "axes". A finished file's datasets hold
/// exactly the frames written.
class Hdf5ProfileWriter : public ProfileSink {
public:
    explicit Hdf5ProfileWriter(std::string path);
    ~Hdf5ProfileWriter() override;
    void begin(const ProfileLayout& layout) override;
    void write(size_t first, size_t n, std::span<const float* const> fields) override;
    void finish(size_t frames) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// pyFAI's text format for 1-D profiles, as its save1D writes it: '#' header
/// lines (geometry as pyFAI and Fit2D give it, detector, wavelength,
/// corrections applied), "# --> FILE", the column titles, then one line per
/// bin: radial, intensity and sigma ("%14.6e  %14.6e %14.6e"; two columns
/// without a "sigma" field). One file per frame: for a single frame PATH
/// itself; for a stack STEM_00000.EXT, STEM_00001.EXT... beside PATH
/// (frame numbers of five digits or more, counted across the run), each
/// written whole under a temporary name (partial_file(), the same for every
/// frame) and renamed as its frame completes.
/// A writer destroyed without finish() removes the frame files it wrote.
/// Cake (2-D) profiles are refused (InvalidArgument at begin()).
class TextProfileWriter : public ProfileSink {
public:
    /// `shown`: the name the header gives ("# --> ..") and, for a stack, the
    /// frame files' names are derived from; empty: PATH. (The CLI writes a
    /// single frame to a temporary and shows the final name.)
    explicit TextProfileWriter(std::string path, std::string shown = "");
    ~TextProfileWriter() override;
    void begin(const ProfileLayout& layout) override;
    void write(size_t first, size_t n, std::span<const float* const> fields) override;
    void finish(size_t frames) override;

    /// The file frame `frame` of a stack is written to, for output `path`.
    static std::string frame_file(const std::string& path, size_t frame);
    /// Where a stack's frame file is written before it is renamed
    /// (.STEM.kiln-partial.EXT beside PATH): what a process stopped at once
    /// must remove.
    const std::string& partial_file() const { return partial_; }

private:
    std::string path_, shown_, header_, partial_;
    ProfileLayout layout_;
    std::vector<std::string> written_;
    bool finished_ = false;
};

/// The pyFAI header lines of a text profile (without the '#' and the
/// "--> FILE" line), as pyFAI 0.21's DefaultAiWriter.make_headers writes them.
std::vector<std::string> pyfai_header_lines(const ProfileMeta& meta);

/// Whether a writer exists for the file's extension: .npy, .h5/.hdf5/.nxs,
/// .xy/.dat (case does not matter).
enum class ProfileFormat { npy, hdf5, text };
std::optional<ProfileFormat> profile_format(const std::string& path);

}  // namespace kiln::io
#pragma GCC visibility pop
