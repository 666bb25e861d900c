// Devices and contexts, memory statistics, the profile and trace,
// benchmark, graph capture and workgroup tuning.
#include "binding.hpp"

namespace kiln::python {

using namespace py::literals;

namespace {

ContextOptions options_of(const py::object& device, const py::object& validation, const std::string& timing,
                          const py::object& emulate_discrete, const py::object& cache_dir) {
    ContextOptions o;
    if (py::isinstance<py::int_>(device)) {
        const int64_t i = device.cast<int64_t>();
        if (i < 0) throw InvalidArgument("device index must be >= 0, got " + std::to_string(i));
        o.device_index = static_cast<uint32_t>(i);
    } else if (py::isinstance<py::str>(device)) {
        o.device_name = device.cast<std::string>();
    } else if (!device.is_none()) {
        throw py::type_error("device must be an index, a part of a device's name, or None (KILN_DEVICE, else "
                             "the best GPU); not " + std::string(py::repr(device)));
    }
    if (!validation.is_none()) o.validation = validation.cast<bool>();
    if (!emulate_discrete.is_none()) o.emulate_discrete = emulate_discrete.cast<bool>();
    if (!cache_dir.is_none()) o.cache_dir = cache_dir.cast<std::string>();
    if (timing == "off") o.timing = Timing::off;
    else if (timing == "submission") o.timing = Timing::submission;
    else if (timing == "nodes") o.timing = Timing::nodes;
    else throw InvalidArgument("timing must be 'off', 'submission' or 'nodes', not '" + timing + "'");
    return o;
}

py::dict memory_dict(const MemoryStats& s) {
    py::list heaps;
    for (const HeapStats& h : s.heaps) {
        py::dict d("size"_a = h.size, "in_use"_a = h.in_use, "peak"_a = h.peak, "reserved"_a = h.reserved,
                     "blocks"_a = h.blocks, "budget"_a = h.budget, "driver_usage"_a = h.driver_usage);
        heaps.append(d);
    }
    py::dict d("in_use"_a = s.in_use, "peak"_a = s.peak, "reserved"_a = s.reserved, "blocks"_a = s.blocks,
                 "allocations"_a = s.allocations, "budget_available"_a = s.budget_available, "heaps"_a = heaps);
    return d;
}

py::list stats_list(const std::vector<KernelStats>& stats) {
    py::list l;
    for (const KernelStats& k : stats) {
        py::dict d("name"_a = k.name, "count"_a = k.count, "min"_a = k.min, "median"_a = k.median,
                     "max"_a = k.max, "mean"_a = k.mean, "std"_a = k.std, "total"_a = k.total);
        l.append(d);
    }
    return l;
}

// A capture in progress, for `with graph.capture():`.
struct PyCapture {
    std::optional<Graph::Capture> capture;
    // Ends the capture as an exception would (so Graph::run refuses the
    // incomplete graph): the capture is destroyed during unwinding.
    void abandon() {
        struct Drop {
            std::optional<Graph::Capture>& c;
            ~Drop() { c.reset(); }
        };
        try {
            Drop d{capture};
            throw std::runtime_error("capture abandoned");
        } catch (const std::runtime_error&) {
        }
    }
};

}  // namespace

void init_runtime(py::module_& m) {
    py::class_<DeviceInfo>(m, "DeviceInfo", "A Vulkan device: what kiln.devices() lists.")
        .def_readonly("index", &DeviceInfo::index)
        .def_readonly("name", &DeviceInfo::name)
        .def_readonly("type", &DeviceInfo::type)
        .def_readonly("driver", &DeviceInfo::driver)
        .def_readonly("api_version", &DeviceInfo::api_version)
        .def_readonly("vendor_id", &DeviceInfo::vendor_id)
        .def_readonly("device_id", &DeviceInfo::device_id)
        .def_readonly("max_storage_buffer_range", &DeviceInfo::max_storage_buffer_range)
        .def_readonly("max_memory_allocation", &DeviceInfo::max_memory_allocation)
        .def_readonly("max_shared_memory", &DeviceInfo::max_shared_memory)
        .def_readonly("max_workgroup_invocations", &DeviceInfo::max_workgroup_invocations)
        .def_readonly("subgroup_size", &DeviceInfo::subgroup_size)
        .def_readonly("timestamps", &DeviceInfo::timestamps)
        .def_readonly("float64", &DeviceInfo::float64)
        .def_readonly("float16", &DeviceInfo::float16)
        .def_readonly("int64", &DeviceInfo::int64)
        .def_property_readonly("memory", [](const DeviceInfo& d) {
            uint64_t bytes = 0;
            for (const HeapInfo& h : d.heaps)
                if (h.device_local) bytes = std::max(bytes, h.size);
            return bytes;
        }, "Bytes of the largest device-local heap.")
        .def("__str__", &DeviceInfo::summary)
        .def("__repr__", [](const DeviceInfo& d) {
            return "kiln.DeviceInfo(index=" + std::to_string(d.index) + ", name='" + d.name + "', type='" + d.type +
                   "')";
        });

    py::class_<BenchmarkResult>(m, "BenchmarkResult",
                                "CPU and GPU times of repeated runs, as cupyx.profiler.benchmark reports them.")
        .def_readonly("name", &BenchmarkResult::name)
        .def_property_readonly("cpu_times", [](const BenchmarkResult& r) {
            std::vector<double> s(r.cpu_ms.size());
            for (size_t i = 0; i < s.size(); ++i) s[i] = r.cpu_ms[i] / 1e3;
            return numpy_of(s, "float64");
        }, "Wall time of each repetition (record, submit, wait), seconds.")
        .def_property_readonly("gpu_times", [](const BenchmarkResult& r) {
            std::vector<double> s(r.gpu_ms.size());
            for (size_t i = 0; i < s.size(); ++i) s[i] = r.gpu_ms[i] / 1e3;
            return numpy_of(s, "float64");
        }, "GPU time of each repetition from timestamp queries, seconds.")
        .def_property_readonly("cpu_median_ms", &BenchmarkResult::cpu_median)
        .def_property_readonly("gpu_median_ms", &BenchmarkResult::gpu_median)
        .def("__str__", &BenchmarkResult::str)
        .def("__repr__", &BenchmarkResult::str);

    py::class_<Context>(m, "Context", R"(A Vulkan device and everything kiln does on it.

Arrays live in one context; ops run in their arrays' context. Several
contexts may live in one process. Calls from several threads are safe (each
takes the context's lock); use one Array from one thread at a time.)")
        .def(py::init([](const py::object& device, const py::object& validation, const std::string& timing,
                         const py::object& emulate_discrete, const py::object& cache_dir) {
                 ContextOptions o = options_of(device, validation, timing, emulate_discrete, cache_dir);
                 py::gil_scoped_release release;
                 return Context(o);
             }),
             py::arg("device") = py::none(), py::arg("validation") = py::none(), py::arg("timing") = "nodes",
             py::arg("emulate_discrete") = py::none(), py::arg("cache_dir") = py::none())
        .def_property_readonly("device", &Context::device, py::return_value_policy::copy)
        .def("memory_stats", [](const Context& c) { return memory_dict(c.memory_stats()); })
        .def("sync", [](Context& c) {
            py::gil_scoped_release release;
            c.sync();
        }, "Submits pending work and waits for all of it.")
        .def("flush", [](Context& c) {
            py::gil_scoped_release release;
            c.flush();
        }, "Submits pending work without waiting.")
        .def("profile_table", [](Context& c) { return c.profile().table(); })
        .def("profile_stats", [](Context& c) { return stats_list(c.profile().stats()); })
        .def("clear_profile", [](Context& c) { c.profile().clear(); })
        .def("chrome_trace", [](Context& c) { return c.profile().chrome_trace(); })
        .def("write_trace", [](Context& c, const std::string& path) { c.profile().write_chrome_trace(path); },
             py::arg("path"))
        .def("set_workgroup_size", [](Context& c, const std::string& kernel, std::array<uint32_t, 3> size) {
            c.set_workgroup_size(kernel, size);
        }, py::arg("kernel"), py::arg("size"))
        .def("workgroup_size", &Context::workgroup_size, py::arg("kernel"))
        .def("validation_message_count", &Context::validation_message_count)
        .def("validation_messages", &Context::validation_messages)
        .def("__eq__", [](const Context& a, const Context& b) { return a == b; }, py::is_operator())
        .def("__hash__", [](const Context& c) { return std::hash<const void*>()(c.shared_state().get()); })
        .def("__repr__", [](const Context& c) { return "kiln.Context(device='" + c.device().name + "')"; });

    m.def("devices", [] {
        py::gil_scoped_release release;
        return Context::devices();
    }, "Every Vulkan device of the system.");
    m.def("default_context", &default_context, "The context arrays are made in when none is named.");
    m.def(
        "select_device",
        [](const py::object& device, const py::object& validation) {
            ContextOptions o = options_of(device, validation, "nodes", py::none(), py::none());
            std::optional<Context> ctx;
            {
                py::gil_scoped_release release;
                ctx.emplace(o);
            }
            set_default_context(ctx);
            return *ctx;
        },
        py::arg("device") = py::none(), py::arg("validation") = py::none());

    m.def(
        "benchmark",
        [](const py::function& fn, int n_repeat, int n_warmup, const std::string& name, const py::object& context) {
            Context ctx = context_of(context);
            std::optional<py::error_already_set> failure;
            auto call = [&] {
                py::gil_scoped_acquire acquire;
                try {
                    fn();
                } catch (py::error_already_set& e) {
                    failure.emplace(std::move(e));
                    throw Error("the benchmarked function raised");
                }
            };
            try {
                py::gil_scoped_release release;
                return benchmark(ctx, call, n_repeat, n_warmup, name);
            } catch (const Error&) {
                if (failure) throw std::move(*failure);
                throw;
            }
        },
        py::arg("fn"), py::arg("n_repeat") = 10, py::arg("n_warmup") = 3, py::arg("name") = "",
        py::arg("context") = py::none());

    py::class_<PyCapture>(m, "GraphCapture")
        .def("__enter__", [](PyCapture& c) -> PyCapture& { return c; }, py::return_value_policy::reference)
        .def("__exit__", [](PyCapture& c, const py::object& type, const py::object&, const py::object&) {
            if (!c.capture) return false;
            if (type.is_none()) c.capture->end(), c.capture.reset();
            else c.abandon();
            return false;
        })
        .def("end", [](PyCapture& c) {
            if (c.capture) c.capture->end(), c.capture.reset();
        });

    py::class_<Graph>(m, "Graph", R"(Ops captured once and run many times as one submission.

    g = kiln.Graph()
    with g.capture():
        y = kiln.gaussian_filter(x, sigma=2)
    g.run()          # runs the captured work again, into the same arrays)")
        .def(py::init([](const py::object& context) { return new Graph(context_of(context)); }),
             py::arg("context") = py::none())
        .def("capture", [](Graph& g) {
            auto c = std::make_unique<PyCapture>();
            c->capture.emplace(g.capture());
            return c;
        }, py::keep_alive<0, 1>())
        .def("run", [](Graph& g) {
            py::gil_scoped_release release;
            g.run();
        })
        .def("launch", [](Graph& g) {
            py::gil_scoped_release release;
            g.launch();
        })
        .def_property_readonly("stats", [](const Graph& g) {
            const GraphStats s = g.stats();
            py::dict d("nodes"_a = s.nodes, "levels"_a = s.levels, "transient_bytes"_a = s.transient_bytes,
                         "arena_bytes"_a = s.arena_bytes);
            return d;
        });

    m.def(
        "tune",
        [](const std::string& kernel, const py::function& fn, const std::optional<std::vector<WorkgroupSize>>& sizes,
           int repeats, bool persist, const py::object& context) {
            Context ctx = context_of(context);
            auto call = [&] {
                py::gil_scoped_acquire acquire;
                fn();
            };
            TuneResult r;
            {
                py::gil_scoped_release release;
                r = tune(ctx, kernel, call, sizes.value_or(std::vector<WorkgroupSize>{}), repeats, persist);
            }
            py::list table;
            for (const TuneEntry& e : r.table) {
                py::dict d("size"_a = e.size, "gpu_ms"_a = e.gpu_ms, "min_ms"_a = e.min_ms, "max_ms"_a = e.max_ms,
                             "ok"_a = e.ok, "error"_a = e.error);
                table.append(d);
            }
            py::dict d("kernel"_a = r.kernel, "device"_a = r.device, "best"_a = r.best, "best_ms"_a = r.best_ms,
                         "table"_a = table);
            return d;
        },
        py::arg("kernel"), py::arg("fn"), py::arg("sizes") = py::none(), py::arg("repeats") = 10,
        py::arg("persist") = true, py::arg("context") = py::none());
}

}  // namespace kiln::python
