// kiln.Array: device arrays from and to NumPy, their properties and
// operators, and the creation functions.
#include <cmath>

#include "binding.hpp"

namespace kiln::python {

namespace {


const std::string& accepted_dtypes() {
    static const std::string text = [] {
        std::string s;
        for (DType t : array_dtypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
        for (DType t : complex_dtypes) s += ", " + std::string(dtype_name(t));
        return s;
    }();
    return text;
}

// The kiln dtype a NumPy array of dtype `dt` is stored as: its own where kiln
// has it (int64, NumPy's default integer, included); bool as uint8, float16
// as float32; nullopt for anything else.
std::optional<DType> storage_dtype(const py::handle& dt) {
    const std::string name = py::str(dt.attr("name"));
    for (DType t : array_dtypes)
        if (name == dtype_name(t)) return t;
    for (DType t : complex_dtypes)
        if (name == dtype_name(t)) return t;
    if (name == "bool") return DType::uint8;
    if (name == "float16") return DType::float32;
    return std::nullopt;
}

// Writes `bytes` from the host into a new array of ctx (GIL released).
Array push_buffer(const Context& ctx, const py::object& contiguous, Shape shape, DType dtype) {
    py::buffer_info info = py::buffer(contiguous).request();
    const size_t bytes = shape.size() * dtype_size(dtype);
    if (static_cast<size_t>(info.size * info.itemsize) != bytes)
        throw InvalidArgument("internal: buffer of " + std::to_string(info.size * info.itemsize) +
                              " bytes for " + std::to_string(bytes));
    py::gil_scoped_release release;
    return Array::from_host(ctx, shape, dtype, info.ptr, bytes);
}

// A C-contiguous NumPy array of the kiln dtype `to`, from any NumPy array.
py::object host_as(const py::object& a, DType to) {
    return numpy().attr("ascontiguousarray")(a, py::arg("dtype") = std::string(dtype_name(to)));
}


Shape shape_of_numpy(const py::object& a) {
    const py::tuple s = a.attr("shape");
    if (s.size() < 1 || s.size() > 3)
        throw InvalidArgument("kiln arrays have 1 to 3 dimensions; this one has " + std::to_string(s.size()) +
                              (s.size() == 0 ? " (a scalar: wrap it in a list, or use kiln.full)" : ""));
    std::vector<size_t> dims;
    for (auto d : s) dims.push_back(d.cast<size_t>());
    return Shape::of(dims.size(), dims.data());
}

// A C-contiguous NumPy array of the dtype kiln stores obj as (or `want`).
std::pair<py::object, DType> host_numpy(const py::handle& obj, const std::optional<DType>& want) {
    py::object a = numpy().attr("asarray")(obj);
    (void)shape_of_numpy(a);  // 1 to 3 dimensions (before ascontiguousarray makes a scalar 1-D)
    const py::object dt = a.attr("dtype");
    std::optional<DType> to = want;
    if (!to) to = storage_dtype(dt);
    if (!to)
        throw py::type_error("kiln arrays hold " + accepted_dtypes() + " (bool is stored as uint8, float16 as "
                             "float32); not " +
                             std::string(py::str(dt.attr("name"))));
    return {host_as(a, *to), *to};
}

Array push_numpy(const py::handle& obj, const std::optional<DType>& want, const Context& ctx) {
    const auto [host, dtype] = host_numpy(obj, want);
    return push_buffer(ctx, host, shape_of_numpy(host), dtype);
}

// The other operand of an arithmetic operator: an Array, a number, or
// anything NumPy takes (pushed to a's context); nullopt: not ours.
enum class Operand { array, number, none };
Operand operand(const py::handle& other) {
    if (py::isinstance<Array>(other)) return Operand::array;
    if (is_number(other)) return Operand::number;
    if (py::isinstance(other, numpy().attr("ndarray")) || py::isinstance<py::list>(other) ||
        py::isinstance<py::tuple>(other))
        return Operand::array;
    return Operand::none;
}

// f()'s Array, computed without the GIL, as a Python object made with it
// (creating one without the GIL crashes Python 3.12).
template <typename F> py::object array_without_gil(F f) {
    Array r;
    {
        py::gil_scoped_release release;
        r = f();
    }
    return py::cast(std::move(r));
}

py::object binary_operator(BinaryOp op, const Array& a, const py::handle& other, bool reflected) {
    switch (operand(other)) {
    case Operand::none: return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    case Operand::number: {
        const double s = other.cast<double>();
        return array_without_gil([&] { return binary(op, a, s, reflected); });
    }
    case Operand::array: {
        const Array b = to_array(other, a.context());
        return array_without_gil([&] { return reflected ? binary(op, b, a) : binary(op, a, b); });
    }
    }
    return py::none();
}

py::object compare_operator(CompareOp op, const Array& a, const py::handle& other) {
    switch (operand(other)) {
    case Operand::none: return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    case Operand::number: {
        const double s = other.cast<double>();
        return array_without_gil([&] { return compare(op, a, s); });
    }
    case Operand::array: {
        const Array b = to_array(other, a.context());
        return array_without_gil([&] { return compare(op, a, b); });
    }
    }
    return py::none();
}

// The one value of a one-element array.
double item(const Array& a, const char* what) {
    if (a.size() != 1)
        throw py::type_error(std::string("only one-element arrays convert to ") + what + "; this one has shape " +
                             a.shape().str());
    double v = 0;
    {
        py::gil_scoped_release release;
        const Array d = cast(a, DType::float64);
        d.pull(&v, sizeof v);
    }
    return v;
}

std::string repr(const Array& a) {
    if (!a.valid()) return "kiln.Array(null)";
    std::string shape = "(";
    for (size_t i = 0; i < a.ndim(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape()[i]);
    shape += a.ndim() == 1 ? ",)" : ")";
    return "kiln.Array(shape=" + shape + ", dtype=" + std::string(dtype_name(a.dtype())) + ", device='" +
           a.context().device().name + "')";
}

Shape reshape_arg(const Array& a, const py::args& args) {
    std::vector<int64_t> dims;
    const py::handle src = args.size() == 1 && !py::isinstance<py::int_>(args[0]) ? args[0] : py::handle(args);
    for (auto d : src) dims.push_back(d.cast<int64_t>());
    int unknown = -1;
    size_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == -1 && unknown < 0) unknown = static_cast<int>(i);
        else if (dims[i] <= 0)
            throw InvalidArgument("reshape: extents must be positive (one may be -1), got " +
                                  std::string(py::str(src)));
        else known *= static_cast<size_t>(dims[i]);
    }
    if (unknown >= 0) {
        if (known == 0 || a.size() % known != 0)
            throw InvalidArgument("reshape: cannot reshape an array of " + std::to_string(a.size()) +
                                  " elements into " + std::string(py::str(src)));
        dims[unknown] = static_cast<int64_t>(a.size() / known);
    }
    std::vector<size_t> extents(dims.begin(), dims.end());
    return Shape::of(extents.size(), extents.data());
}

}  // namespace

// Python objects kept for the life of the process are leaked on purpose:
// destroying them after the interpreter has finalized would crash.
py::module_& numpy() {
    static auto* np = new py::module_(py::module_::import("numpy"));
    return *np;
}

bool is_integer(const py::handle& obj) {
    return !py::isinstance<py::bool_>(obj) &&
           (py::isinstance<py::int_>(obj) || py::isinstance(obj, numpy().attr("integer")));
}

std::pair<py::object, void*> numpy_empty(const py::tuple& shape, const char* dtype) {
    py::object a = numpy().attr("empty")(shape, py::arg("dtype") = dtype);
    py::buffer_info info = py::buffer(a).request(true);
    return {a, info.ptr};
}

bool is_number(const py::handle& obj) {
    if (py::isinstance<py::bool_>(obj) || py::isinstance<py::int_>(obj) || py::isinstance<py::float_>(obj))
        return true;
    return py::isinstance(obj, numpy().attr("number")) || py::isinstance(obj, numpy().attr("bool_"));
}

DType dtype_from(const py::handle& dtype) {
    py::object dt;
    try {
        dt = numpy().attr("dtype")(dtype);
    } catch (py::error_already_set&) {
        throw py::type_error("not a dtype: " + std::string(py::repr(dtype)) + "; kiln arrays hold " +
                             accepted_dtypes());
    }
    const std::string name = py::str(dt.attr("name"));
    for (DType t : array_dtypes)
        if (name == dtype_name(t)) return t;
    for (DType t : complex_dtypes)
        if (name == dtype_name(t)) return t;
    throw py::type_error("kiln arrays hold " + accepted_dtypes() + "; not " + name);
}

py::object numpy_dtype(DType t) {
    static auto* cache = new py::object[std::size(array_dtypes) + std::size(complex_dtypes)];  // leaked, as numpy()
    py::object& d = cache[static_cast<size_t>(t)];
    if (!d) d = numpy().attr("dtype")(std::string(dtype_name(t)));
    return d;
}

Shape shape_from(const py::handle& shape) {
    std::vector<size_t> dims;
    // As NumPy's shapes, True counts as the extent 1.
    auto whole = [](const py::handle& d) { return is_integer(d) || py::isinstance<py::bool_>(d); };
    auto extent = [&](const py::handle& d) {
        if (!whole(d))
            throw py::type_error("shape extents must be whole numbers, not " + std::string(py::repr(d)));
        const int64_t v = d.cast<int64_t>();
        if (v <= 0) throw InvalidArgument("shape extents must be positive, got " + std::to_string(v));
        return static_cast<size_t>(v);
    };
    if (whole(shape)) {
        dims.push_back(extent(shape));
    } else {
        for (auto d : shape) dims.push_back(extent(d));
    }
    if (dims.empty() || dims.size() > 3)
        throw InvalidArgument("kiln arrays have 1 to 3 dimensions in (z, y, x) order; got shape " +
                              std::string(py::str(shape)));
    return Shape::of(dims.size(), dims.data());
}

py::tuple shape_tuple(const Shape& s) {
    py::tuple t(s.ndim());
    for (size_t i = 0; i < s.ndim(); ++i) t[i] = py::int_(s[i]);
    return t;
}

Array to_array(const py::handle& obj, const std::optional<Context>& ctx) {
    if (py::isinstance<Array>(obj)) {
        const Array& a = obj.cast<const Array&>();
        if (!a.valid()) throw InvalidArgument("a null kiln.Array");
        return a;
    }
    if (obj.is_none()) throw py::type_error("expected an array, got None");
    return push_numpy(obj, std::nullopt, ctx ? *ctx : default_context());
}

HostArray to_host_array(const py::handle& obj) {
    const auto [host, dtype] = host_numpy(obj, std::nullopt);
    HostArray h(shape_of_numpy(host), dtype);
    py::buffer_info info = py::buffer(host).request();
    std::memcpy(h.data(), info.ptr, h.nbytes());
    return h;
}

py::object host_to_numpy(const HostArray& a) {
    auto [out, data] = numpy_empty(shape_tuple(a.shape), std::string(dtype_name(a.dtype)).c_str());
    std::memcpy(data, a.data(), a.nbytes());
    return out;
}

py::object to_numpy(const Array& a) {
    if (!a.valid()) throw InvalidArgument("a null kiln.Array");
    auto [out, data] = numpy_empty(shape_tuple(a.shape()), std::string(dtype_name(a.dtype())).c_str());
    {
        py::gil_scoped_release release;
        a.pull(data, a.nbytes());
    }
    return out;  // copied (a structured binding): with the GIL
}

void init_arrays(py::module_& m) {
    py::class_<Array> array(m, "Array", R"(An array in device memory: 1 to 3 dimensions in (z, y, x) order.

Copies are handles to the same memory (as CuPy arrays). Operations record
GPU work and return at once; get() (or numpy.asarray) waits for it.)");
    array.def_property_readonly("shape", [](const Array& a) { return shape_tuple(a.shape()); })
        .def_property_readonly("dtype", [](const Array& a) { return numpy_dtype(a.dtype()); })
        .def_property_readonly("ndim", &Array::ndim)
        .def_property_readonly("size", &Array::size)
        .def_property_readonly("nbytes", &Array::nbytes)
        .def_property_readonly("context", &Array::context, "The kiln.Context the array lives in.")
        .def(
            "get",
            [](const Array& a, const py::object& out) -> py::object {
                if (out.is_none()) return to_numpy(a);
                // Into the caller's array (as CuPy's get(out=)): C-contiguous,
                // writable, of the array's shape and dtype.
                const py::object np_out = numpy().attr("asarray")(out);
                if (!shape_tuple(a.shape()).equal(py::object(np_out.attr("shape"))) ||
                    !py::object(np_out.attr("dtype")).equal(numpy_dtype(a.dtype())) ||
                    !np_out.attr("flags").attr("c_contiguous").cast<bool>())
                    throw InvalidArgument("get(out=): out must be a C-contiguous NumPy array of shape " +
                                          a.shape().str() + " and dtype " + std::string(dtype_name(a.dtype())) +
                                          ", not " + std::string(py::str(np_out.attr("shape"))) + " " +
                                          std::string(py::str(np_out.attr("dtype"))));
                py::buffer_info info = py::buffer(np_out).request(true);
                {
                    py::gil_scoped_release release;
                    a.pull(info.ptr, a.nbytes());
                }
                return out;
            },
            py::arg("out") = py::none(),
            "Waits for the GPU and returns the values as a NumPy array: a new one, or `out`.")
        .def(
            "__array__",
            [](const Array& a, const py::object& dtype, const py::object&) {
                py::object out = to_numpy(a);
                return dtype.is_none() ? out : out.attr("astype")(dtype);
            },
            py::arg("dtype") = py::none(), py::arg("copy") = py::none())
        .def(
            "set",
            [](Array& a, const py::handle& values) {
                const py::object host = numpy().attr("ascontiguousarray")(
                    numpy().attr("asarray")(values), py::arg("dtype") = std::string(dtype_name(a.dtype())));
                if (!shape_tuple(a.shape()).equal(host.attr("shape")))
                    throw InvalidArgument("set: values of shape " + std::string(py::str(host.attr("shape"))) +
                                          " for an array of shape " + a.shape().str());
                py::buffer_info info = py::buffer(host).request();
                py::gil_scoped_release release;
                a.push(info.ptr, a.nbytes());
            },
            py::arg("values"), "Replaces the contents with host values of the array's shape (converted to its dtype).")
        .def(
            "astype",
            [](const Array& a, const py::handle& dtype) {
                const DType t = dtype_from(dtype);
                py::gil_scoped_release release;
                return t == a.dtype() ? copy(a) : cast(a, t);
            },
            py::arg("dtype"), "A converted copy (float->int saturates, NaN->0, as kiln's cast).")
        .def(
            "reshape", [](const Array& a, const py::args& shape) { return a.reshape(reshape_arg(a, shape)); },
            "The same memory with a new shape of the same size (one extent may be -1).")
        .def(
            "copy",
            [](const Array& a) {
                py::gil_scoped_release release;
                return copy(a);
            },
            "A copy in new device memory.")
        .def("__repr__", &repr)
        .def("__len__", [](const Array& a) { return a.shape()[0]; })
        .def("__float__", [](const Array& a) { return item(a, "float"); })
        .def("__int__", [](const Array& a) { return static_cast<int64_t>(item(a, "int")); })
        .def("__bool__",
             [](const Array& a) {
                 if (a.size() != 1)
                     throw InvalidArgument("the truth value of an array of more than one element is ambiguous "
                                           "(as NumPy's); compare with kiln.count_nonzero or kiln.max");
                 return item(a, "bool") != 0;
             })
        .def("__getitem__",
             [](const Array&, const py::handle&) -> py::object {
                 throw py::type_error("kiln arrays have no indexing or slicing; pull with a.get() and index the "
                                      "NumPy array, or reshape");
             });

    const std::pair<const char*, BinaryOp> binaries[] = {
        {"add", BinaryOp::add},         {"sub", BinaryOp::subtract}, {"mul", BinaryOp::multiply},
        {"truediv", BinaryOp::divide}};
    for (auto [name, op] : binaries) {
        array.def(("__" + std::string(name) + "__").c_str(),
                  [op = op](const Array& a, const py::object& b) { return binary_operator(op, a, b, false); });
        array.def(("__r" + std::string(name) + "__").c_str(),
                  [op = op](const Array& a, const py::object& b) { return binary_operator(op, a, b, true); });
    }
    const std::pair<const char*, CompareOp> compares[] = {
        {"__eq__", CompareOp::equal}, {"__ne__", CompareOp::not_equal},     {"__lt__", CompareOp::less},
        {"__le__", CompareOp::less_equal}, {"__gt__", CompareOp::greater}, {"__ge__", CompareOp::greater_equal}};
    for (auto [name, op] : compares)
        array.def(name, [op = op](const Array& a, const py::object& b) { return compare_operator(op, a, b); });
    array.attr("__hash__") = py::none();
    array.def("__neg__", [](const Array& a) {
        py::gil_scoped_release release;
        return binary(BinaryOp::subtract, a, 0.0, true);
    });
    array.def("__pos__", [](const Array& a) { return a; });
    // NumPy defers to Array's reflected operators (ndarray + kiln.Array).
    array.attr("__array_ufunc__") = py::none();

    // Host memory the device reads and writes directly (kiln::PinnedBuffer):
    // pushes from it and pulls into it are single DMA copies, as from
    // cupyx.empty_pinned's arrays. The NumPy array keeps the buffer alive.
    py::class_<PinnedBuffer>(m, "_PinnedBuffer", py::buffer_protocol())
        .def_buffer([](PinnedBuffer& b) {
            return py::buffer_info(b.data(), 1, py::format_descriptor<uint8_t>::format(), 1, {b.size()}, {1});
        });
    m.def(
        "empty_pinned",
        [](const py::handle& shape, const py::handle& dtype, const py::object& context) {
            const Context ctx = context_of(context);
            const Shape s = shape_from(shape);
            const DType t = dtype.is_none() ? DType::float32 : dtype_from(dtype);
            auto buffer = std::make_unique<PinnedBuffer>(ctx, s.size() * dtype_size(t));
            py::object owner = py::cast(std::move(buffer));
            return numpy()
                .attr("frombuffer")(owner, py::arg("dtype") = std::string(dtype_name(t)))
                .attr("reshape")(shape_tuple(s));
        },
        py::arg("shape"), py::arg("dtype") = py::none(), py::arg("context") = py::none(),
        "An uninitialised NumPy array in pinned host memory of the context's device: pushes from it "
        "and pulls into it (get(out=)) are one DMA copy, as with cupyx.empty_pinned.");

    m.def(
        "_push",
        [](const py::handle& obj, const py::object& dtype, const py::object& context) {
            const Context ctx = context_of(context);
            if (py::isinstance<Array>(obj)) {
                const Array a = obj.cast<Array>();
                if (!(a.context() == ctx)) throw InvalidArgument("the array lives in another context");
                if (dtype.is_none()) return a;
                const DType t = dtype_from(dtype);
                py::gil_scoped_release release;
                return t == a.dtype() ? a : cast(a, t);
            }
            return push_numpy(obj, dtype.is_none() ? std::nullopt : std::optional<DType>(dtype_from(dtype)), ctx);
        },
        py::arg("obj"), py::arg("dtype") = py::none(), py::arg("context") = py::none());
    m.def(
        "_create",
        [](const py::handle& shape, const py::handle& dtype, const std::string& how, double value,
           const py::object& context) {
            const Context ctx = context_of(context);
            const Shape s = shape_from(shape);
            const DType t = dtype.is_none() ? DType::float32 : dtype_from(dtype);
            py::gil_scoped_release release;
            if (how == "empty") return Array::empty(ctx, s, t);
            if (how == "zeros") return Array::zeros(ctx, s, t);
            return Array::full(ctx, s, value, t);
        },
        py::arg("shape"), py::arg("dtype"), py::arg("how"), py::arg("value") = 0.0, py::arg("context") = py::none());
}

}  // namespace kiln::python
