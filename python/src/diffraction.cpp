// Files and the diffraction workflow: arrays read and written by extension,
// the synthetic sky, HDF5 frame stacks, bitshuffle-LZ4 decoding on the GPU
// and the azimuthal integrator.
#include "binding.hpp"

namespace kiln::python {

using namespace py::literals;

namespace {

std::span<const uint8_t> bytes_of(const py::buffer_info& info) {
    return {static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size * info.itemsize)};
}

Radial radial_of(const std::string& unit) {
    return parse_radial(unit);
}

std::optional<HostArray> optional_host(const py::object& o) {
    if (o.is_none()) return std::nullopt;
    return to_host_array(o);
}

// The decoder's output as (frames, *frame_shape): Bslz4Decoder gives the
// frame's own shape for a batch of one, which would drop the frame axis.
Array with_frame_axis(const Array& out, const Shape& frame, size_t frames) {
    if (frames != 1 || frame.ndim() == 3) return out;
    size_t dims[3] = {1, frame[0], frame.ndim() == 2 ? frame[1] : 0};
    return out.reshape(Shape::of(frame.ndim() + 1, dims));
}

py::dict profile_dict(const Profile1d& p) {
    py::dict d("radial"_a = numpy_of(p.radial, "float64"), "intensity"_a = numpy_of(p.intensity, "float64"),
                 "sigma"_a = numpy_of(p.sigma, "float64"), "sem"_a = numpy_of(p.sem, "float64"),
                 "std"_a = numpy_of(p.std, "float64"), "sum_signal"_a = numpy_of(p.sum_signal, "float64"),
                 "sum_variance"_a = numpy_of(p.sum_variance, "float64"),
                 "sum_normalization"_a = numpy_of(p.sum_normalization, "float64"),
                 "count"_a = numpy_of(p.count, "float64"));
    return d;
}

py::dict detector_dict(const Detector& d) {
    py::dict out("name"_a = d.name, "pixel1"_a = d.pixel1, "pixel2"_a = d.pixel2,
                 "shape"_a = py::make_tuple(d.rows, d.cols));
    out["mask"] = d.rows && d.cols ? numpy_of(d.mask(), "uint8").attr("reshape")(d.rows, d.cols) : py::object(py::none());
    return out;
}

}  // namespace

void init_diffraction(py::module_& m) {
    m.def("detector", [](const std::string& name) { return detector_dict(detector_by_name(name)); }, py::arg("name"),
          "A detector by pyFAI's name ('Eiger4M', 'Pilatus 1M', 'Eiger2 CdTe 9M'...): dict of name, pixel1, "
          "pixel2 (metres), shape (rows, cols) and mask (uint8, 1 in the module gaps).");
    m.def("detector_names", &detector_names, "pyFAI's class names of the detectors kiln knows.");
    m.def("read_poni", [](const std::string& path) {
        const Poni p = read_poni(path);
        const Geometry& g = p.geometry;
        return py::dict("version"_a = p.version, "dist"_a = g.dist, "poni1"_a = g.poni1, "poni2"_a = g.poni2,
                        "rot1"_a = g.rot1, "rot2"_a = g.rot2, "rot3"_a = g.rot3, "wavelength"_a = g.wavelength,
                        "detector"_a = detector_dict(p.detector));
    }, py::arg("path"), "A pyFAI .poni file (versions 1 and 2) as a dict: version, dist, poni1, poni2, rot1-3, "
       "wavelength (metres, radians; 0: not given) and detector (as kiln.detector gives it; shape (0, 0) and "
       "mask None when the file leaves the shape unknown).");
    m.def("read_array", [](const std::string& path) {
        HostArray h;
        {
            py::gil_scoped_release release;
            h = io::read_array(path);
        }
        return host_to_numpy(h);
    }, py::arg("path"), "Reads .npy, .fits (.fit, .fts), .tif (.tiff) and .png files (by extension) into a NumPy array.");
    m.def("write_array", [](const std::string& path, const py::handle& values) {
        std::optional<Array> device;
        HostArray h;
        if (py::isinstance<Array>(values)) device = values.cast<Array>();
        else h = to_host_array(values);
        py::gil_scoped_release release;  // also while a device array is pulled
        if (device) h = device->to_host();
        io::write_array(path, h);
    }, py::arg("path"), py::arg("array"), "Writes an array by extension, whole or not at all.");
    m.def("synthetic_sky", [](size_t size, double noise_sigma, int n_compact, int n_shells, uint64_t seed) {
        const SkyParams p{.size = size, .noise_sigma = noise_sigma, .n_compact = n_compact, .n_shells = n_shells,
                          .seed = seed};
        HostArray h;
        {
            py::gil_scoped_release release;
            h = synthetic_sky(p);
        }
        return host_to_numpy(h);
    }, py::arg("size") = 2048, py::arg("noise_sigma") = 0.013, py::arg("n_compact") = 400, py::arg("n_shells") = 6,
       py::arg("seed") = 42, "The astronomy sample's synthetic radio image (Jy/beam, float32).");

    py::class_<io::FrameStackReader>(m, "FrameStack", R"(A stack of detector frames in HDF5 (NeXus layout).

Frames read whole (decoded by HDF5), or their chunks as stored, to decode on
the GPU with kiln.decode_bslz4 (to_device does both).)")
        .def(py::init<const std::string&, const std::string&>(), py::arg("path"),
             py::arg("dataset") = "/entry/data/data")
        .def_property_readonly("frames", &io::FrameStackReader::frames)
        .def_property_readonly("shape", [](const io::FrameStackReader& r) {
            return py::make_tuple(r.frames(), r.rows(), r.cols());
        })
        .def_property_readonly("dtype", [](const io::FrameStackReader& r) { return numpy_dtype(r.dtype()); })
        .def_property_readonly("is_bslz4", &io::FrameStackReader::is_bslz4)
        .def("read_frame", [](const io::FrameStackReader& r, size_t frame) {
            return host_to_numpy(r.read_frame(frame));
        }, py::arg("frame"))
        .def("read_chunk", [](const io::FrameStackReader& r, size_t frame) {
            const std::vector<uint8_t> c = r.read_chunk(frame);
            return py::bytes(reinterpret_cast<const char*>(c.data()), c.size());
        }, py::arg("frame"), "The frame's chunk as stored (compressed), as bytes.")
        .def("to_device", [](const io::FrameStackReader& r, size_t first, const py::object& count,
                             const py::object& context) {
            const size_t n = count.is_none() ? r.frames() - std::min(first, r.frames()) : count.cast<size_t>();
            if (!r.gpu_decodable())
                throw InvalidArgument("to_device decodes bitshuffle-LZ4 stacks of one chunk per frame, in "
                                      "little-endian order; '" + r.path() +
                                      "' is not one: read_frame() reads it through HDF5");
            if (n == 0 || first + n > r.frames())
                throw InvalidArgument("to_device: frames [" + std::to_string(first) + ", " + std::to_string(first + n) +
                                      ") of a stack of " + std::to_string(r.frames()));
            const Context ctx = context_of(context);
            py::gil_scoped_release release;
            std::vector<std::vector<uint8_t>> chunks(n);
            std::vector<ChunkCoding> coding(n);  // chunks stored unfiltered are copied, not decoded
            for (size_t i = 0; i < n; ++i) coding[i] = r.read_for_decoder(first + i, chunks[i]);
            Bslz4Decoder dec(ctx, Shape{r.rows(), r.cols()}, r.dtype(), n);
            dec.push(chunks, first, "frame", coding);
            dec.record();
            return with_frame_axis(dec.output(), Shape{r.rows(), r.cols()}, n);
        }, py::arg("first") = 0, py::arg("count") = py::none(), py::arg("context") = py::none(),
           "Frames [first, first + count) decoded on the GPU: a (count, rows, cols) array.");

    py::class_<io::FrameStackWriter>(m, "FrameStackWriter", "Writes a stack of frames to HDF5, frame by frame.")
        .def(py::init([](const std::string& path, size_t rows, size_t cols, const py::handle& dtype, bool bslz4,
                         const std::string& dataset) {
                 return new io::FrameStackWriter(path, dataset, rows, cols, dtype_from(dtype), bslz4);
             }),
             py::arg("path"), py::arg("rows"), py::arg("cols"), py::arg("dtype"), py::arg("bslz4") = true,
             py::arg("dataset") = "/entry/data/data")
        .def("write_frame", [](io::FrameStackWriter& w, const py::handle& frame) {
            w.write_frame(to_host_array(frame));
        }, py::arg("frame"))
        .def("close", &io::FrameStackWriter::close)
        .def("__enter__", [](io::FrameStackWriter& w) -> io::FrameStackWriter& { return w; },
             py::return_value_policy::reference)
        .def("__exit__", [](io::FrameStackWriter& w, const py::object& type, const py::object&, const py::object&) {
            if (type.is_none()) w.close();  // on an exception the file is discarded with the writer
            return false;
        });

    m.def("decode_bslz4", [](const py::list& chunks, const py::handle& frame_shape, const py::handle& dtype,
                             const py::object& context) {
        const Context ctx = context_of(context);
        const Shape shape = shape_from(frame_shape);
        const DType t = dtype_from(dtype);
        std::vector<py::buffer_info> infos;
        for (auto c : chunks) infos.push_back(py::reinterpret_borrow<py::buffer>(c).request());
        if (infos.empty()) throw InvalidArgument("decode_bslz4: no chunks given");
        py::gil_scoped_release release;
        std::vector<uint8_t> all;
        std::vector<size_t> sizes;
        for (const auto& i : infos) {
            const auto b = bytes_of(i);
            all.insert(all.end(), b.begin(), b.end());
            sizes.push_back(b.size());
        }
        Bslz4Decoder dec(ctx, shape, t, infos.size());
        dec.push(all, sizes);
        dec.record();
        return with_frame_axis(dec.output(), shape, infos.size());
    }, py::arg("chunks"), py::arg("frame_shape"), py::arg("dtype"), py::arg("context") = py::none(),
       "bitshuffle-LZ4 chunks (HDF5 filter 32008, one frame each) decoded on the GPU into one array of shape "
       "(len(chunks), *frame_shape) (a 3-D frame_shape takes one chunk and is the shape).");

    py::class_<AzimuthalResult>(m, "AzimuthalResult", "What AzimuthalIntegrator.integrate returns.")
        .def_property_readonly("radial", [](const AzimuthalResult& r) { return numpy_of(r.radial, "float64"); })
        .def_property_readonly("azimuthal", [](const AzimuthalResult& r) { return numpy_of(r.azimuthal, "float64"); },
                               "A cake's azimuth bin centres (chi, degrees); empty for a 1-D result.")
        .def_readonly("intensity", &AzimuthalResult::intensity)
        .def_readonly("sigma", &AzimuthalResult::sigma)
        .def_readonly("sem", &AzimuthalResult::sem)
        .def_readonly("std", &AzimuthalResult::std)
        .def_readonly("sum_signal", &AzimuthalResult::sum_signal)
        .def_readonly("sum_variance", &AzimuthalResult::sum_variance)
        .def_readonly("sum_normalization", &AzimuthalResult::sum_normalization)
        .def_readonly("count", &AzimuthalResult::count)
        .def("to_host", [](const AzimuthalResult& r, size_t frame) {
            Profile1d p;
            {
                py::gil_scoped_release release;
                p = r.to_host(frame);
            }
            return profile_dict(p);
        }, py::arg("frame") = 0, "One frame's profile as NumPy arrays (radial, intensity, sigma, ...).");

    py::class_<AzimuthalIntegrator>(m, "AzimuthalIntegrator", R"(pyFAI's azimuthal integration through a CSR matrix.

Geometry as pyFAI's (metres, radians): dist, poni1, poni2, rot1-3, pixel1,
pixel2, wavelength; shape is the detector's (rows, cols). The matrix of
npt bins in `unit` (pyFAI's 'q_nm^-1', 'q_A^-1', '2th_deg', '2th_rad', 'r_mm', 'd*2_A^-2' or
'chi_deg') is built once. npt_azim > 0 makes a 2-D cake (results (npt_azim, npt),
or (frames, npt_azim, npt)); azimuth_range (chi, degrees) limits the cake or,
in 1-D, integrates a sector; radial_sum merges the cake's radial bins (pyFAI's
integrate_radial: intensity against chi). pixel_split: 'no', 'bbox' or
'full' (True: 'bbox'); renormalize: pyFAI 0.21's rule for pixels cut by a
range edge.)")
        .def(py::init([](const py::handle& shape, double pixel1, double pixel2, double dist, double poni1,
                         double poni2, double rot1, double rot2, double rot3, double wavelength, size_t npt,
                         const std::string& unit, const std::optional<std::pair<double, double>>& radial_range,
                         const py::object& pixel_split, const py::object& dark, const py::object& flat, const py::object& mask,
                         bool solid_angle, const std::optional<double>& polarization_factor,
                         const std::optional<double>& dummy, double delta_dummy, const std::string& error_model,
                         const py::object& variance, double empty, bool dark_variance, size_t npt_azim,
                         const std::optional<std::pair<double, double>>& azimuth_range, bool renormalize,
                         bool radial_sum, const py::object& context) {
                 const Shape s = shape_from(shape);
                 if (s.ndim() != 2) throw InvalidArgument("shape must be the detector's (rows, cols)");
                 AzimuthalSetup a;
                 a.geometry = Geometry{s[0], s[1], pixel1, pixel2, dist, poni1, poni2, rot1, rot2, rot3, wavelength};
                 a.unit = radial_of(unit);
                 a.bins = npt;
                 a.range = radial_range;
                 // pixel_split: a bool (True: bbox) or pyFAI's name ("no", "bbox", "full").
                 if (py::isinstance<py::bool_>(pixel_split))
                     a.split = pixel_split.cast<bool>() ? PixelSplit::bbox : PixelSplit::none;
                 else if (py::isinstance<py::str>(pixel_split))
                     a.split = parse_split(pixel_split.cast<std::string>());
                 else
                     throw InvalidArgument("pixel_split must be a bool or one of 'no', 'bbox', 'full'");
                 a.dark = optional_host(dark);
                 a.flat = optional_host(flat);
                 a.mask = optional_host(mask);
                 a.solid_angle = solid_angle;
                 a.polarization_factor = polarization_factor;
                 a.dummy = dummy;
                 a.delta_dummy = delta_dummy;
                 a.error_model = parse_error_model(error_model);
                 a.variance = optional_host(variance);
                 a.empty = empty;
                 a.dark_variance = dark_variance;
                 a.azimuth_bins = npt_azim;
                 a.azimuth_range = azimuth_range;
                 a.renormalize = renormalize;
                 a.radial_sum = radial_sum;
                 const Context ctx = context_of(context);
                 py::gil_scoped_release release;  // building the matrix takes a while
                 return new AzimuthalIntegrator(ctx, a);
             }),
             py::arg("shape"), py::arg("pixel1"), py::arg("pixel2"), py::arg("dist"), py::arg("poni1"),
             py::arg("poni2"), py::arg("rot1") = 0.0, py::arg("rot2") = 0.0, py::arg("rot3") = 0.0,
             py::arg("wavelength") = 0.0, py::arg("npt") = 1000, py::arg("unit") = "q_nm^-1",
             py::arg("radial_range") = py::none(), py::arg("pixel_split") = false, py::arg("dark") = py::none(),
             py::arg("flat") = py::none(), py::arg("mask") = py::none(), py::arg("solid_angle") = false,
             py::arg("polarization_factor") = py::none(), py::arg("dummy") = py::none(), py::arg("delta_dummy") = 0.0,
             py::arg("error_model") = "poisson", py::arg("variance") = py::none(), py::arg("empty") = 0.0,
             py::arg("dark_variance") = true, py::arg("npt_azim") = 0, py::arg("azimuth_range") = py::none(),
             py::arg("renormalize") = false, py::arg("radial_sum") = false, py::arg("context") = py::none())
        .def("integrate", [](const AzimuthalIntegrator& ai, const py::handle& frames) {
            const Array f = to_array(frames);
            py::gil_scoped_release release;
            return ai.integrate(f);
        }, py::arg("frames"), "Integrates a (rows, cols) frame or a (frames, rows, cols) stack.")
        .def("sigma_clip", [](const AzimuthalIntegrator& ai, const py::handle& frames, double kappa, int max_iter,
                              const std::string& threshold) {
            if (threshold != "chauvenet" && threshold != "fixed")
                throw InvalidArgument("threshold must be 'chauvenet' or 'fixed', not '" + threshold + "'");
            const Array f = to_array(frames);
            py::gil_scoped_release release;
            return ai.sigma_clip(f, kappa, max_iter,
                                 threshold == "fixed" ? ClipThreshold::fixed : ClipThreshold::chauvenet);
        }, py::arg("frames"), py::arg("kappa") = 5.0, py::arg("max_iter") = 5, py::arg("threshold") = "chauvenet",
           "pyFAI's sigma_clip_ng: per bin, drop entries more than t std from the mean, t = max(kappa, "
           "Chauvenet's criterion for the bin's count) ('chauvenet') or kappa ('fixed').")
        .def("medfilt1d", [](const AzimuthalIntegrator& ai, const py::handle& frames, double q_lo, double q_hi) {
            const Array f = to_array(frames);
            py::gil_scoped_release release;
            return ai.medfilt1d(f, q_lo, q_hi);
        }, py::arg("frames"), py::arg("q_lo") = 0.5, py::arg("q_hi") = 0.5,
           "pyFAI's medfilt1d_ng: per bin, the mean of the entries between the quantiles q_lo and q_hi of the "
           "normalized values (0.5, 0.5: the median).")
        .def("separate", [](const AzimuthalIntegrator& ai, const py::handle& frames, double q_lo, double q_hi,
                            bool restore_mask) {
            const Array f = to_array(frames);
            AzimuthalSeparation s;
            {
                py::gil_scoped_release release;
                s = ai.separate(f, q_lo, q_hi, restore_mask);
            }
            return py::make_tuple(s.bragg, s.amorphous, s.background);
        }, py::arg("frames"), py::arg("q_lo") = 0.5, py::arg("q_hi") = 0.5, py::arg("restore_mask") = true,
           "pyFAI's separate: (bragg, amorphous, background): medfilt1d's profile expanded to every pixel "
           "(with the corrections undone) is the amorphous part, the rest the Bragg part.")
        .def_property_readonly("bins", &AzimuthalIntegrator::bins)
        .def_property_readonly("pixels", &AzimuthalIntegrator::pixels)
        .def_property_readonly("nnz", [](const AzimuthalIntegrator& ai) { return ai.csr().nnz(); });
}

}  // namespace kiln::python
