// The astronomy pipeline without host round trips: kappa-sigma clipping
// whose statistics stay on the device, a threshold taken from them, labels
// whose count stays on the device, and measurements read back once.
//
//   clip = kiln.kappa_sigma_clip_async(image, 3.0)
//   labels = kiln.label_async(clip.threshold(image, 5.0))
//   table = kiln.measure_async(image, labels).get()   # one read-back
#include "binding.hpp"

namespace kiln::python {

namespace {

// measure_async's result and the rank of its image.
struct PendingMeasurements {
    Measurements m;
    size_t ndim = 0;
};

}  // namespace

void init_pipeline(py::module_& m) {
    py::class_<ClipResultAsync>(m, "ClipAsync", "kappa_sigma_clip_async's result: statistics still on the device.")
        .def_readonly("stats", &ClipResultAsync::stats,
                      "float64 (5,) on the device: median, std, mean, count, iterations")
        .def("get", [](const ClipResultAsync& c) {
            ClipResult r;
            {
                py::gil_scoped_release release;
                r = c.get();
            }
            return clip_result(r);
        }, "Waits and returns the statistics (as kappa_sigma_clip).")
        .def("threshold", [](const ClipResultAsync& c, const py::handle& image, double factor) {
            const Array a = to_array(image);
            py::gil_scoped_release release;
            return threshold(a, c.stats, 1, factor);
        }, py::arg("image"), py::arg("factor") = 5.0,
           "uint8 1 where image > factor * the clipped std, else 0, without reading the std back.");
    m.def("kappa_sigma_clip_async", [](const py::handle& a, double kappa, int max_iters) {
        const Array arr = to_array(a);
        py::gil_scoped_release release;
        return kappa_sigma_clip_async(arr, kappa, max_iters);
    }, py::arg("a"), py::arg("kappa") = 3.0, py::arg("max_iters") = 100);

    py::class_<LabelsAsync>(m, "LabelsAsync", "label_async's result: labels and their count on the device.")
        .def_readonly("labels", &LabelsAsync::labels)
        .def_readonly("count", &LabelsAsync::count, "int32 (1,) on the device");
    m.def("label_async", [](const py::handle& mask, int connectivity) {
        const Array a = to_array(mask);
        py::gil_scoped_release release;
        return label_async(a, connectivity);
    }, py::arg("input"), py::arg("connectivity") = 0);

    py::class_<PendingMeasurements>(m, "MeasureAsync", "measure_async's result: the table still on the device.")
        .def("get", [](const PendingMeasurements& p) {
            std::vector<LabelStats> stats;
            {
                py::gil_scoped_release release;
                stats = p.m.stats();
            }
            return stats_columns(stats, p.ndim);
        }, "Waits and returns the columns (as measure).");
    m.def("measure_async", [](const py::handle& image, const LabelsAsync& labels) {
        const Array img = to_array(image);
        py::gil_scoped_release release;
        return PendingMeasurements{measure_async(img, labels), img.ndim()};
    }, py::arg("image"), py::arg("labels"));
}

}  // namespace kiln::python
