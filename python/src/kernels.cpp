// kiln.Kernel: GLSL compute shaders written by the user, compiled at run
// time and launched on arrays, as cupy.RawKernel.
#include <limits>

#include "binding.hpp"

namespace kiln::python {

using namespace py::literals;

namespace {

// A Python number as the push-constant value of member `p`: Python has one
// float type, so floats are rounded to the member's own type (float or
// double); integers stay integers, and kiln checks the member's range.
Scalar scalar_for(const KernelParam& p, const py::handle& v) {
    if (!is_number(v))
        throw py::type_error("push-constant member '" + p.name + "' (" + p.type + ") takes a number, not " +
                             std::string(py::repr(v)));
    if (is_integer(v)) {
        const py::int_ i(py::reinterpret_borrow<py::object>(v));
        if (i < py::int_(std::numeric_limits<int64_t>::min()) ||
            i > py::int_(std::numeric_limits<uint64_t>::max()))
            throw InvalidArgument("push-constant member '" + p.name + "' (" + p.type + ") takes " +
                                  std::string(py::repr(v)) + ", beyond 64-bit integers");
        if (p.type == "float") return Scalar(static_cast<float>(i.cast<int64_t>()));
        if (p.type == "double") return Scalar(static_cast<double>(i.cast<int64_t>()));
        if (i < py::int_(0)) return Scalar(i.cast<int64_t>());
        return Scalar(i.cast<uint64_t>());
    }
    const double d = v.cast<double>();
    if (p.type == "float") return Scalar(static_cast<float>(d));
    return Scalar(d);  // double members; integer members refuse it, naming the member
}

// grid= or groups=: 1 to 3 whole numbers from 1 to `max` (x, y, z).
std::array<uint64_t, 3> extent3(const py::handle& g, const char* what, uint64_t max) {
    std::array<uint64_t, 3> e{1, 1, 1};
    auto extent = [&](const py::handle& v) {
        if (!is_integer(v))
            throw py::type_error(std::string(what) + " extents must be whole numbers, not " +
                                 std::string(py::repr(v)));
        const py::int_ i(py::reinterpret_borrow<py::object>(v));
        if (i < py::int_(1) || i > py::int_(max))
            throw InvalidArgument(std::string(what) + " extent " + std::string(py::repr(v)) +
                                  " is outside 1.." + std::to_string(max));
        return i.cast<uint64_t>();
    };
    if (!py::isinstance<py::iterable>(g)) {
        e[0] = extent(g);
        return e;
    }
    size_t i = 0;
    for (auto v : g) {
        if (i == 3) throw InvalidArgument(std::string(what) + " has at most 3 extents (x, y, z)");
        e[i++] = extent(v);
    }
    if (i == 0) throw InvalidArgument(std::string(what) + " needs 1 to 3 extents (x, y, z)");
    return e;
}

void launch(const Kernel& k, const py::args& args, const py::object& grid, const py::object& groups) {
    const size_t nb = k.bindings().size();
    if (args.size() < nb)
        throw InvalidArgument("kernel '" + k.name() + "' takes " + std::to_string(nb) + " arrays (" + k.signature() +
                              "), got " + std::to_string(args.size()) + " arguments");
    std::vector<Array> arrays;
    std::optional<Context> ctx;
    for (size_t i = 0; i < nb; ++i) {
        if (!py::isinstance<Array>(args[i]))
            throw py::type_error("kernel '" + k.name() + "': argument " + std::to_string(i) + " (binding '" +
                                 k.bindings()[i].name + "') must be a kiln.Array, not " +
                                 std::string(py::str(py::type::of(args[i]).attr("__name__"))));
        arrays.push_back(args[i].cast<Array>());
    }
    const auto& params = k.params();
    std::vector<std::pair<const KernelParam*, Scalar>> scalars;
    size_t next = 0;
    for (size_t i = nb; i < args.size(); ++i) {
        while (next < params.size() && !params[next].scalar) ++next;
        if (next == params.size())
            throw InvalidArgument("kernel '" + k.name() + "' takes " + std::to_string(nb) + " arrays and " +
                                  "fewer scalars than the " + std::to_string(args.size() - nb) + " given (" +
                                  k.signature() + ")");
        scalars.emplace_back(&params[next], scalar_for(params[next], args[i]));
        ++next;
    }
    if (grid.is_none() == groups.is_none())
        throw InvalidArgument("kernel '" + k.name() + "': give grid= (invocations, x[, y[, z]]) or groups= "
                              "(workgroups), one of them");
    const auto g = grid.is_none() ? extent3(groups, "groups", std::numeric_limits<uint32_t>::max())
                                  : extent3(grid, "grid", std::numeric_limits<uint64_t>::max());
    py::gil_scoped_release release;
    Kernel::Launch l = k(arrays);
    for (auto& [p, s] : scalars) l.push(p->name, s);
    if (!grid.is_none()) l.grid(g[0], g[1], g[2]);
    else l.groups(static_cast<uint32_t>(g[0]), static_cast<uint32_t>(g[1]), static_cast<uint32_t>(g[2]));
}

}  // namespace

void init_kernels(py::module_& m) {
    py::class_<Kernel>(m, "Kernel", R"(A GLSL compute shader compiled at run time, as cupy.RawKernel.

    k = kiln.Kernel(source)            # GLSL 450; storage buffers in set 0
    k(x, y, out, n, grid=n)            # arrays in binding order, then the
                                       # push-constant members in order

Python floats are rounded to a float member's type; integers set integer
members whose range holds them. grid= counts invocations (x[, y[, z]]),
groups= workgroups.)")
        .def(py::init([](const std::string& source, const std::string& entry, const std::vector<std::string>& defines,
                         const std::string& name, const py::object& context) {
                 const Context ctx = context_of(context);
                 py::gil_scoped_release release;  // glslang takes a while
                 return Kernel(ctx, source, entry, defines, name);
             }),
             py::arg("source"), py::arg("entry") = "main", py::arg("defines") = std::vector<std::string>{},
             py::arg("name") = "", py::arg("context") = py::none())
        .def_static("from_file", [](const std::string& path, const std::string& entry,
                                    const std::vector<std::string>& defines, const std::string& name,
                                    const py::object& context) {
            const Context ctx = context_of(context);
            py::gil_scoped_release release;
            return Kernel::from_file(ctx, path, entry, defines, name);
        }, py::arg("path"), py::arg("entry") = "main", py::arg("defines") = std::vector<std::string>{},
           py::arg("name") = "", py::arg("context") = py::none())
        .def_property_readonly("name", &Kernel::name)
        .def_property_readonly("bindings", [](const Kernel& k) {
            py::list l;
            for (const KernelBinding& b : k.bindings()) {
                py::dict d("binding"_a = b.binding, "name"_a = b.name, "readonly"_a = b.readonly,
                             "writeonly"_a = b.writeonly);
                l.append(d);
            }
            return l;
        })
        .def_property_readonly("params", [](const Kernel& k) {
            py::list l;
            for (const KernelParam& p : k.params()) {
                py::dict d("name"_a = p.name, "type"_a = p.type, "offset"_a = p.offset, "size"_a = p.size);
                l.append(d);
            }
            return l;
        })
        .def_property_readonly("local_size", &Kernel::local_size)
        .def_property_readonly("tunable", &Kernel::tunable)
        .def_property_readonly("signature", &Kernel::signature)
        .def("__call__", &launch, py::kw_only(), py::arg("grid") = py::none(), py::arg("groups") = py::none())
        .def("__repr__", [](const Kernel& k) { return "kiln.Kernel(" + k.signature() + ")"; });
}

}  // namespace kiln::python
