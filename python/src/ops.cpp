// The ops: every entry of kiln's op manifest through one call (invoke; the
// Python package makes a function of each entry from manifest()), and the
// ops whose results are not a single array or number (label, measure,
// histogram, percentile, kappa-sigma clipping, primes).
#include <cmath>

#include "binding.hpp"

namespace kiln::python {

using namespace py::literals;

namespace {

const char* kind_name(ArgKind k) {
    switch (k) {
    case ArgKind::array: return "array";
    case ArgKind::operand: return "operand";
    case ArgKind::number: return "number";
    case ArgKind::integer: return "integer";
    case ArgKind::choice: return "choice";
    case ArgKind::numbers: return "numbers";
    case ArgKind::integers: return "integers";
    }
    return "?";
}

const char* result_name(ResultKind k) {
    switch (k) {
    case ResultKind::array: return "array";
    case ResultKind::number: return "number";
    case ResultKind::integer: return "integer";
    case ResultKind::number_or_array: return "number_or_array";
    case ResultKind::integer_or_array: return "integer_or_array";
    }
    return "?";
}

py::list manifest() {
    py::list ops;
    for (const OpEntry* e : op_manifest()) {
        py::list args;
        for (const ArgSpec& a : e->args) {
            py::dict d("name"_a = a.name, "kind"_a = kind_name(a.kind), "doc"_a = a.doc,
                         "default"_a = a.default_value, "optional"_a = a.optional, "choices"_a = a.choices,
                         "min"_a = a.min, "max"_a = a.max);
            args.append(d);
        }
        py::dict d("name"_a = e->name, "doc"_a = e->doc, "family"_a = e->family, "args"_a = args,
                     "result"_a = result_name(e->result), "array_when"_a = e->array_when,
                     "alternatives"_a = e->alternatives);
        ops.append(d);
    }
    return ops;
}

// The primes' method: true for "sieve", false for "trial_division" (the
// CUDA lesson's), InvalidArgument naming `what` for anything else.
bool is_sieve(const char* what, const std::string& method) {
    if (method != "sieve" && method != "trial_division")
        throw InvalidArgument(std::string(what) + ": method must be 'sieve' or 'trial_division', not '" + method +
                              "'");
    return method == "sieve";
}

std::string what(const OpEntry& op, const ArgSpec& spec) { return op.name + ": " + spec.name; }

int64_t whole_number(const OpEntry& op, const ArgSpec& spec, const py::handle& v) {
    if (!is_integer(v))
        throw py::type_error(what(op, spec) + " must be a whole number, not " + std::string(py::repr(v)));
    return v.cast<int64_t>();
}

double real_number(const OpEntry& op, const ArgSpec& spec, const py::handle& v) {
    if (!is_number(v)) throw py::type_error(what(op, spec) + " must be a number, not " + std::string(py::repr(v)));
    return v.cast<double>();
}

// A list argument's items: a NumPy array's in row-major order (a matrix such
// as affine_transform's is given as SciPy takes it, 2-D), else the value's own.
py::object flat(const py::handle& v) {
    if (py::isinstance(v, numpy().attr("ndarray"))) return v.attr("ravel")();
    return py::reinterpret_borrow<py::object>(v);
}

// A Python value as the OpValue of spec's kind; arrays pushed into ctx when
// they are not kiln arrays yet.
OpValue convert(const OpEntry& op, const ArgSpec& spec, const py::handle& v, const std::optional<Context>& ctx) {
    switch (spec.kind) {
    case ArgKind::array: return to_array(v, ctx);
    case ArgKind::operand:
        if (is_number(v)) return v.cast<double>();
        return to_array(v, ctx);
    case ArgKind::number: return real_number(op, spec, v);
    case ArgKind::integer:
        // A 0/1 flag (SciPy's booleans: reshape, grid_mode, prefilter) takes True and False.
        if (py::isinstance<py::bool_>(v) && spec.min == 0 && spec.max == 1) return int64_t(v.cast<bool>());
        return whole_number(op, spec, v);
    case ArgKind::choice: {
        if (py::isinstance<py::str>(v)) return v.cast<std::string>();
        // dtype choices also take numpy dtypes and types.
        if (spec.name == "dtype") return std::string(dtype_name(dtype_from(v)));
        throw py::type_error(what(op, spec) + " must be a string, not " + std::string(py::repr(v)));
    }
    case ArgKind::numbers: {
        std::vector<double> out;
        if (is_number(v)) out.push_back(v.cast<double>());
        else
            for (auto x : flat(v)) out.push_back(real_number(op, spec, x));
        return out;
    }
    case ArgKind::integers: {
        std::vector<int64_t> out;
        if (is_number(v)) out.push_back(whole_number(op, spec, v));
        else
            for (auto x : flat(v)) out.push_back(whole_number(op, spec, x));
        return out;
    }
    }
    throw InvalidArgument("unknown argument kind");
}

py::object result_object(const OpResult& r) {
    if (auto a = std::get_if<Array>(&r)) return py::cast(*a);
    if (auto d = std::get_if<double>(&r)) return py::float_(*d);
    return py::int_(std::get<int64_t>(r));
}

// invoke(name, kwargs, context): arguments by name (None values are left
// out: their defaults apply); the context of ops without an array argument.
py::object invoke_op(const std::string& name, const py::dict& kwargs, const py::object& context) {
    const OpEntry* op = find_op(name);
    if (!op) throw InvalidArgument("no op named '" + name + "'");
    // The context: the given one, else the first kiln array's, else the default.
    std::optional<Context> ctx;
    if (!context.is_none()) ctx = context_of(context);
    if (!ctx)
        for (auto [k, v] : kwargs)
            if (py::isinstance<Array>(v)) {
                ctx = v.cast<const Array&>().context();
                break;
            }
    if (!ctx) ctx = default_context();
    OpArgs args(*ctx);
    for (auto [k, v] : kwargs) {
        if (v.is_none()) continue;
        const std::string key = py::str(k);
        auto spec = std::find_if(op->args.begin(), op->args.end(), [&](const ArgSpec& s) { return s.name == key; });
        if (spec == op->args.end()) {
            std::string names;
            for (const ArgSpec& s : op->args) names += (names.empty() ? "" : ", ") + s.name;
            throw py::type_error(op->name + "() got an unexpected keyword argument '" + key + "'; it takes " + names);
        }
        args.set(key, convert(*op, *spec, v, ctx));
    }
    OpResult r;
    {
        py::gil_scoped_release release;
        r = invoke(*op, std::move(args));
    }
    return result_object(r);
}

}  // namespace

py::dict stats_columns(const std::vector<LabelStats>& stats, size_t ndim) {
    const size_t n = stats.size();
    // One value per label: shape (n,).
    auto column = [&](auto member, const char* dtype) {
        std::vector<std::remove_cvref_t<decltype(stats[0].*member)>> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = stats[i].*member;
        return numpy_of(v, dtype);
    };
    // Positions with one column per axis of the image: shape (n, ndim).
    auto positions = [&](auto member, const char* dtype) {
        std::vector<std::remove_cvref_t<decltype((stats[0].*member)[0])>> v(n * ndim);
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < ndim; ++k) v[i * ndim + k] = (stats[i].*member)[3 - ndim + k];
        return numpy_of(v, dtype).attr("reshape")(n, ndim);
    };
    using S = LabelStats;
    return py::dict("label"_a = column(&S::label, "int32"), "count"_a = column(&S::count, "int64"),
                    "sum"_a = column(&S::sum, "float64"), "mean"_a = column(&S::mean, "float64"),
                    "variance"_a = column(&S::variance, "float64"), "std"_a = column(&S::std, "float64"),
                    "min"_a = column(&S::min, "float64"), "max"_a = column(&S::max, "float64"),
                    "min_pos"_a = positions(&S::min_pos, "int64"), "max_pos"_a = positions(&S::max_pos, "int64"),
                    "center_of_mass"_a = positions(&S::center_of_mass, "float64"),
                    "bbox_start"_a = positions(&S::bbox_start, "int64"),
                    "bbox_stop"_a = positions(&S::bbox_stop, "int64"));
}

py::object clip_result(const ClipResult& r) {
    py::dict d("median"_a = r.median, "std"_a = r.std, "mean"_a = r.mean, "count"_a = r.count,
                 "iterations"_a = r.iterations, "mask"_a = r.mask ? py::cast(*r.mask) : py::none());
    return d;
}


void init_ops(py::module_& m) {
    m.def("manifest", &manifest, "Every op of kiln's manifest: name, doc, family, args, result.");
    m.def("invoke", &invoke_op, py::arg("name"), py::arg("kwargs"), py::arg("context") = py::none(),
          "Runs the manifest op `name` with arguments by name.");

    m.def(
        "label",
        [](const py::handle& mask, int connectivity) {
            const Array a = to_array(mask);
            Labels l;
            {
                py::gil_scoped_release release;
                l = label(a, connectivity);
            }
            return py::make_tuple(l.labels, l.count);
        },
        py::arg("input"), py::arg("connectivity") = 0);
    m.def(
        "measure",
        [](const py::handle& image, const py::handle& labels, const py::object& index, const py::object& n) {
            const Array img = to_array(image);
            const Array lab = to_array(labels, img.context());
            if (!n.is_none()) {
                // The count known (label's n): no search for the largest label.
                if (!index.is_none()) throw InvalidArgument("measure: give index or n, not both");
                const int64_t count = n.cast<int64_t>();
                if (count < 0 || count > INT32_MAX)
                    throw InvalidArgument("measure: n must be a label count in [0, 2^31), got " + std::to_string(count));
                std::vector<LabelStats> stats;
                {
                    py::gil_scoped_release release;
                    stats = measure_async(img, lab, static_cast<int32_t>(count)).stats();
                }
                return stats_columns(stats, img.ndim());
            }
            std::vector<int32_t> idx;
            if (!index.is_none())
                for (auto v : numpy().attr("ravel")(index)) {
                    const int64_t x = v.cast<int64_t>();
                    if (x < INT32_MIN || x > INT32_MAX)
                        throw InvalidArgument("measure: index holds " + std::to_string(x) +
                                              ", beyond the int32 labels kiln measures");
                    idx.push_back(static_cast<int32_t>(x));
                }
            std::vector<LabelStats> stats;
            {
                py::gil_scoped_release release;
                stats = measure(img, lab, idx);
            }
            return stats_columns(stats, img.ndim());
        },
        py::arg("image"), py::arg("labels"), py::arg("index") = py::none(), py::arg("n") = py::none());
    m.def(
        "histogram",
        [](const py::handle& a, int bins, const std::optional<std::pair<double, double>>& range) {
            const Array arr = to_array(a);
            Histogram h;
            {
                py::gil_scoped_release release;
                h = histogram(arr, bins, range);
            }
            return py::make_tuple(h.counts, numpy_of(h.edges, "float64"));
        },
        py::arg("a"), py::arg("bins") = 10, py::arg("range") = py::none());
    m.def(
        "bincount",
        [](const py::handle& a, size_t minlength) {
            const Array arr = to_array(a);
            py::gil_scoped_release release;
            return bincount(arr, minlength);
        },
        py::arg("x"), py::arg("minlength") = 0);
    m.def(
        "percentiles",
        [](const py::handle& a, const std::vector<double>& q) {
            const Array arr = to_array(a);
            std::vector<double> r;
            {
                py::gil_scoped_release release;
                r = percentiles(arr, q);
            }
            return numpy_of(r, "float64");
        },
        py::arg("a"), py::arg("q"));
    m.def(
        "kappa_sigma_clip",
        [](const py::handle& a, double kappa, int max_iters, bool return_mask) {
            const Array arr = to_array(a);
            ClipResult r;
            {
                py::gil_scoped_release release;
                r = kappa_sigma_clip(arr, kappa, max_iters, return_mask);
            }
            return clip_result(r);
        },
        py::arg("a"), py::arg("kappa") = 3.0, py::arg("max_iters") = 100, py::arg("return_mask") = false);
    m.def(
        "primes",
        [](uint32_t upper, const std::string& method, const py::object& context) {
            const Context ctx = context_of(context);
            const bool sieve = is_sieve("primes", method);
            std::vector<uint32_t> p;
            {
                py::gil_scoped_release release;
                p = sieve ? primes_sieve(ctx, upper) : primes_trial_division(ctx, upper);
            }
            return numpy_of(p, "uint32");
        },
        py::arg("upper"), py::arg("method") = "sieve", py::arg("context") = py::none());
    m.def(
        "prime_flags",
        [](uint32_t upper, const std::string& method, const py::object& context) {
            const Context ctx = context_of(context);
            const bool sieve = is_sieve("prime_flags", method);
            py::gil_scoped_release release;
            return sieve ? prime_flags_sieve(ctx, upper) : prime_flags_trial_division(ctx, upper);
        },
        py::arg("upper"), py::arg("method") = "sieve", py::arg("context") = py::none());
}

}  // namespace kiln::python
