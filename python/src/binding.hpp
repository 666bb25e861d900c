#pragma once
// The Python module kiln._kiln: shared helpers of its parts. The module uses
// libkiln's public API alone (kiln/kiln.hpp), as any application does.
//
// NumPy is reached through Python-level calls and the buffer protocol only
// (never NumPy's C API), so one build works with NumPy 1.x and 2.x.
//
// The GIL: every call that records GPU work or waits for the GPU releases it
// once its Python arguments are converted (gil_scoped_release), so other
// Python threads run meanwhile; kiln's own context lock orders the calls.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <kiln/kiln.hpp>

namespace py = pybind11;

namespace kiln::python {

/// The context new arrays are created in when none is named: made at first
/// use (ContextOptions' defaults: KILN_DEVICE, else the best GPU), replaced by
/// select_device().
Context default_context();
void set_default_context(std::optional<Context> ctx);
/// `ctx` when it is a kiln Context, the default context for None.
Context context_of(const py::handle& ctx);

/// A dtype from anything numpy.dtype() takes ("float32", numpy.uint16,
/// numpy.dtype("i4")...): TypeError naming the dtypes kiln has otherwise.
DType dtype_from(const py::handle& dtype);
/// numpy.dtype of a kiln dtype.
py::object numpy_dtype(DType t);
/// A shape from an int or a sequence of 1 to 3 ints.
Shape shape_from(const py::handle& shape);
py::tuple shape_tuple(const Shape& s);

/// An Array from a kiln Array (as it is) or from anything NumPy turns into
/// an array (pushed into ctx, or the default context): see arrays.cpp.
Array to_array(const py::handle& obj, const std::optional<Context>& ctx = std::nullopt);
/// The numpy module (imported once, kept for the life of the process).
py::module_& numpy();
/// Whether obj is a Python or NumPy number (not an array, not a bool array).
bool is_number(const py::handle& obj);
/// Whether obj is a Python int or a NumPy integer; bool is not one.
bool is_integer(const py::handle& obj);
/// The array pulled into a new NumPy array of its shape and dtype.
py::object to_numpy(const Array& a);
/// A HostArray from anything NumPy turns into an array (converted as
/// to_array converts), and a new NumPy array holding a HostArray's values.
HostArray to_host_array(const py::handle& obj);
py::object host_to_numpy(const HostArray& a);
/// A new, uninitialised NumPy array of this shape and NumPy dtype name, and
/// its data pointer (written through the buffer protocol).
std::pair<py::object, void*> numpy_empty(const py::tuple& shape, const char* dtype);
/// A new 1-D NumPy array holding a copy of values (T: a NumPy number type).
template <typename T> py::object numpy_of(const std::vector<T>& values, const char* dtype) {
    auto [array, data] = numpy_empty(py::make_tuple(values.size()), dtype);
    if (!values.empty()) std::memcpy(data, values.data(), values.size() * sizeof(T));
    return array;
}

/// measure's columns (NumPy arrays by name) and kappa_sigma_clip's dict.
py::dict stats_columns(const std::vector<LabelStats>& stats, size_t ndim);
py::object clip_result(const ClipResult& r);

void init_errors(py::module_& m);
void init_arrays(py::module_& m);
void init_ops(py::module_& m);
void init_runtime(py::module_& m);
void init_kernels(py::module_& m);
void init_diffraction(py::module_& m);
void init_pipeline(py::module_& m);

}  // namespace kiln::python
