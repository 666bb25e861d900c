// kiln._kiln: the module, kiln's errors as Python exceptions, and the
// default context.
#include <mutex>

#include <kiln/version.hpp>

#include "binding.hpp"

namespace kiln::python {

namespace {

std::mutex default_mutex;
std::optional<Context> default_ctx;

// The exception types, made once at import (owned by the module).
PyObject* error_type = nullptr;
PyObject* invalid_argument_type = nullptr;
PyObject* unsupported_type = nullptr;
PyObject* out_of_memory_type = nullptr;
PyObject* io_error_type = nullptr;
PyObject* vulkan_error_type = nullptr;
PyObject* compile_error_type = nullptr;

PyObject* new_exception(py::module_& m, const char* name, const char* doc, std::initializer_list<PyObject*> bases) {
    py::tuple b(bases.size());
    size_t i = 0;
    for (PyObject* base : bases) b[i++] = py::reinterpret_borrow<py::object>(base);
    const std::string qualified = std::string("kiln.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, b.ptr(), nullptr);
    if (!type) throw py::error_already_set();
    m.attr(name) = py::reinterpret_borrow<py::object>(type);
    return type;
}

}  // namespace

Context default_context() {
    {
        std::lock_guard lock(default_mutex);
        if (default_ctx) return *default_ctx;
    }
    // Opening a device takes a while: without the GIL, and without the
    // mutex (a thread holding the GIL may be waiting for it).
    std::optional<Context> made;
    {
        py::gil_scoped_release release;
        made.emplace(ContextOptions{});
    }
    std::lock_guard lock(default_mutex);
    if (!default_ctx) default_ctx = std::move(made);  // else another thread's won
    return *default_ctx;
}

void set_default_context(std::optional<Context> ctx) {
    std::optional<Context> old;
    {
        std::lock_guard lock(default_mutex);
        old = std::move(default_ctx);
        default_ctx = std::move(ctx);
    }
    py::gil_scoped_release release;  // the old context may wait for its work
    old.reset();
}

Context context_of(const py::handle& ctx) {
    if (ctx.is_none()) return default_context();
    if (!py::isinstance<Context>(ctx))
        throw py::type_error("context must be a kiln.Context or None (the default context), not " +
                             std::string(py::str(py::type::of(ctx).attr("__name__"))));
    return ctx.cast<Context>();
}

void init_errors(py::module_& m) {
    error_type = new_exception(m, "Error", "Base of every error kiln raises.", {PyExc_Exception});
    invalid_argument_type = new_exception(
        m, "InvalidArgument", "An argument kiln cannot accept (shape, dtype, value...); a ValueError.",
        {error_type, PyExc_ValueError});
    unsupported_type = new_exception(m, "Unsupported",
                                     "The device lacks a feature or limit the call needs; a RuntimeError.",
                                     {error_type, PyExc_RuntimeError});
    out_of_memory_type = new_exception(m, "OutOfMemory",
                                       "Host or device memory for an array could not be had; a MemoryError.",
                                       {error_type, PyExc_MemoryError});
    io_error_type = new_exception(m, "IoError", "A file could not be read or written, or is malformed; an OSError.",
                                  {error_type, PyExc_OSError});
    vulkan_error_type = new_exception(m, "VulkanError", "A Vulkan call failed (device lost...); a RuntimeError.",
                                      {error_type, PyExc_RuntimeError});
    compile_error_type = new_exception(
        m, "CompileError", "GLSL that glslang rejected; .log holds glslang's log. A ValueError.",
        {error_type, PyExc_ValueError});

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const CompileError& e) {
            py::object exc = py::reinterpret_steal<py::object>(
                PyObject_CallFunction(compile_error_type, "s", e.what()));
            if (!exc) throw py::error_already_set();
            exc.attr("log") = e.log();
            PyErr_SetObject(compile_error_type, exc.ptr());
        } catch (const InvalidArgument& e) {
            PyErr_SetString(invalid_argument_type, e.what());
        } catch (const Unsupported& e) {
            PyErr_SetString(unsupported_type, e.what());
        } catch (const OutOfMemory& e) {
            PyErr_SetString(out_of_memory_type, e.what());
        } catch (const IoError& e) {
            PyErr_SetString(io_error_type, e.what());
        } catch (const VulkanError& e) {
            PyErr_SetString(vulkan_error_type, e.what());
        } catch (const Error& e) {
            PyErr_SetString(error_type, e.what());
        }
    });
}

}  // namespace kiln::python

PYBIND11_MODULE(_kiln, m) {
    using namespace kiln::python;
    m.doc() = "kiln's C++ library for Python (use the kiln package, not this module)";
    m.attr("__version__") = KILN_VERSION;
    init_errors(m);
    init_runtime(m);
    init_arrays(m);
    init_ops(m);
    init_kernels(m);
    init_diffraction(m);
    init_pipeline(m);
    m.def("_release_default_context", [] { set_default_context(std::nullopt); },
          "Drops the default context (at interpreter exit, before the driver unloads).");
}
