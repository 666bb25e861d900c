// The lessons' subcommands: histogram, bincount, primes, kernel (a user
// kernel file run on array files) and tune (workgroup sizes).
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli.hpp"
#include "kiln/histogram.hpp"
#include "kiln/kernel.hpp"
#include "kiln/primes.hpp"
#include "kiln/tune.hpp"

namespace kiln::cli {

namespace {

// The context, with the sizes tuned on this device applied once.
Context& tuned_context(Globals& g) {
    static bool loaded = false;
    Context& ctx = g.context();
    if (!loaded) load_tuning(ctx);
    loaded = true;
    return ctx;
}

template <typename T> std::string json_list(const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>) s += (i ? ", " : "") + json_number(v[i]);
        else s += (i ? ", " : "") + std::to_string(v[i]);
    }
    return s + "]";
}

// "a,b" or "axbxc" -> numbers.
std::vector<double> split_numbers(const std::string& text, const std::string& what) {
    std::vector<double> out;
    std::string field;
    std::stringstream ss(text);
    while (std::getline(ss, field, text.find(',') != std::string::npos ? ',' : 'x')) {
        char* end = nullptr;
        double v = std::strtod(field.c_str(), &end);
        if (field.empty() || *end) throw InvalidArgument(what + ": '" + text + "' is not a list of numbers");
        out.push_back(v);
    }
    return out;
}

// "X[,Y[,Z]]" (or "XxYxZ") -> 1 to 3 whole numbers in [lo, hi].
std::vector<uint64_t> whole_list(const std::string& text, const std::string& what, uint64_t lo, uint64_t hi) {
    std::vector<uint64_t> v;
    std::stringstream ss(text);
    for (std::string f; std::getline(ss, f, text.find(',') != std::string::npos ? ',' : 'x');)
        v.push_back(parse_whole(f, what + " '" + text + "'", lo, hi));
    if (v.empty() || v.size() > 3)
        throw InvalidArgument(what + ": '" + text + "' needs 1 to 3 extents, e.g. 1024 or 64,64");
    return v;
}

// whole_list padded to three with ones.
std::array<uint64_t, 3> extents(const std::string& text, const std::string& what, uint64_t lo, uint64_t hi) {
    const std::vector<uint64_t> v = whole_list(text, what, lo, hi);
    std::array<uint64_t, 3> e{1, 1, 1};
    std::copy(v.begin(), v.end(), e.begin());
    return e;
}

// --- kernel -----------------------------------------------------------------

struct KernelArgs {
    std::string file, entry = "main", name, global, groups;
    std::vector<std::string> defines, ins, outs, pushes;
};

void add_kernel_options(CLI::App* c, KernelArgs& a) {
    c->add_option("FILE", a.file, "GLSL compute shader source")->required();
    c->add_option("--in", a.ins, "Input array file, one per readonly buffer, in binding order");
    c->add_option("--out", a.outs,
                  "Output PATH[:DTYPE[:SHAPE]], one per writeonly or read-write buffer in binding order; "
                  "created as zeros, by default with the first input's dtype and shape (SHAPE e.g. 512x512)");
    c->add_option("--global", a.global, "Global size in invocations: X[,Y[,Z]]");
    c->add_option("--groups", a.groups, "Number of workgroups instead: X[,Y[,Z]]");
    c->add_option("--push", a.pushes, "Push constant NAME=VALUE (or VALUE for the next member in order)");
    c->add_option("--entry", a.entry, "Entry point function")->capture_default_str();
    c->add_option("-D,--define", a.defines, "Preprocessor define NAME or NAME=VALUE");
    c->add_option("--name", a.name, "Kernel name for the profile and tuning (default: the file's stem)");
}

Scalar parse_scalar(const KernelParam& p, const std::string& text) {
    const std::string what = "--push " + p.name + "=" + text + ": ";
    if (!p.scalar) throw InvalidArgument(what + p.name + " is " + p.type + "; only scalar members can be pushed here");
    char* end = nullptr;
    if (p.type == "float" || p.type == "double") {
        if (p.type == "float") {
            float f = std::strtof(text.c_str(), &end);
            if (!text.empty() && !*end) return Scalar(f);
        } else {
            double d = std::strtod(text.c_str(), &end);
            if (!text.empty() && !*end) return Scalar(d);
        }
        throw InvalidArgument(what + "'" + text + "' is not a number (" + p.name + " is " + p.type + ")");
    }
    if (!text.empty() && text[0] == '-') {
        long long v = std::strtoll(text.c_str(), &end, 0);
        if (!*end) return Scalar(static_cast<int64_t>(v));
    } else {
        unsigned long long v = std::strtoull(text.c_str(), &end, 0);
        if (!text.empty() && !*end) return Scalar(static_cast<uint64_t>(v));
    }
    throw InvalidArgument(what + "'" + text + "' is not an integer (" + p.name + " is " + p.type + ")");
}

struct PreparedKernel {
    std::shared_ptr<Kernel> kernel;
    std::vector<Array> arrays;
    std::vector<std::pair<size_t, std::string>> outputs;  // array index, path
    std::function<void()> launch;
};

Array new_output(Globals& g, const std::string& spec, const std::vector<Array>& inputs) {
    std::vector<std::string> parts;
    std::stringstream ss(spec);
    for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
    DType t = inputs.empty() ? DType::float32 : inputs.front().dtype();
    if (parts.size() > 1) t = parse_dtype(parts[1]);
    if (parts.size() > 2) {
        const std::vector<uint64_t> e = whole_list(parts[2], "--out " + spec, 1, Shape::max_elements);
        const std::vector<size_t> d(e.begin(), e.end());
        return Array::zeros(g.context(), Shape::of(d.size(), d.data()), t);
    }
    if (inputs.empty())
        throw InvalidArgument("--out " + spec + ": there is no input to take the shape from; give PATH:DTYPE:SHAPE");
    return Array::zeros(g.context(), inputs.front().shape(), t);
}

PreparedKernel prepare_kernel(Globals& g, const KernelArgs& a) {
    Context& ctx = tuned_context(g);
    PreparedKernel p;
    p.kernel = std::make_shared<Kernel>(Kernel::from_file(ctx, a.file, a.entry, a.defines, a.name));
    const Kernel& k = *p.kernel;
    std::vector<Array> inputs;
    for (const std::string& f : a.ins) inputs.push_back(load(g, f));
    size_t in = 0, out = 0;
    for (const KernelBinding& b : k.bindings()) {
        const std::string label = "binding " + std::to_string(b.binding) + " '" + b.name + "'";
        if (b.readonly) {
            if (in == inputs.size())
                throw InvalidArgument(label + " is readonly and takes an --in file; " + std::to_string(inputs.size()) +
                                      " given (" + k.signature() + ")");
            p.arrays.push_back(inputs[in++]);
        } else {
            if (out == a.outs.size())
                throw InvalidArgument(label + " is written and takes an --out file; " + std::to_string(a.outs.size()) +
                                      " given (" + k.signature() + ")");
            p.outputs.push_back({p.arrays.size(), a.outs[out].substr(0, a.outs[out].find(':'))});
            p.arrays.push_back(new_output(g, a.outs[out++], inputs));
        }
    }
    if (in != inputs.size() || out != a.outs.size())
        throw InvalidArgument("more --in or --out files than the kernel's buffers (" + k.signature() + ")");
    if (a.global.empty() == a.groups.empty())
        throw InvalidArgument("give exactly one of --global (invocations) and --groups (workgroups)");
    // Named members first, the rest in declaration order.
    std::vector<std::pair<std::string, Scalar>> named;
    std::vector<std::string> positional;
    for (const std::string& s : a.pushes) {
        const size_t eq = s.find('=');
        if (eq == std::string::npos) {
            positional.push_back(s);
            continue;
        }
        const std::string name = s.substr(0, eq);
        auto it = std::find_if(k.params().begin(), k.params().end(), [&](auto& m) { return m.name == name; });
        if (it == k.params().end()) throw InvalidArgument("--push " + s + ": no member '" + name + "' (" + k.signature() + ")");
        named.push_back({name, parse_scalar(*it, s.substr(eq + 1))});
    }
    std::vector<std::pair<std::string, Scalar>> all = named;
    size_t next = 0;
    for (const KernelParam& m : k.params()) {
        if (std::any_of(named.begin(), named.end(), [&](auto& n) { return n.first == m.name; })) continue;
        if (next < positional.size()) all.push_back({m.name, parse_scalar(m, positional[next++])});
    }
    if (next < positional.size()) throw InvalidArgument("more --push values than push-constant members (" + k.signature() + ")");
    constexpr uint64_t u32_max = std::numeric_limits<uint32_t>::max();
    const auto global = a.global.empty() ? std::array<uint64_t, 3>{} : extents(a.global, "--global", 1, Shape::max_elements);
    const auto groups = a.groups.empty() ? std::array<uint64_t, 3>{} : extents(a.groups, "--groups", 1, u32_max);
    p.launch = [kernel = p.kernel, arrays = p.arrays, all, global, groups] {
        Kernel::Launch l = (*kernel)(arrays);
        for (auto& [name, v] : all) l.push(name, v);
        if (global[0] || global[1] || global[2]) l.grid(global[0], global[1], global[2]);
        else
            l.groups(static_cast<uint32_t>(groups[0]), static_cast<uint32_t>(groups[1]),
                     static_cast<uint32_t>(groups[2]));
    };
    return p;
}

// --- tune -------------------------------------------------------------------

struct TuneArgs {
    std::string candidates, kernel;
    int repeats = 10;
    bool no_save = false;
};

void add_tune_options(CLI::App* c, TuneArgs& t) {
    c->add_option("--candidates", t.candidates,
                  "Workgroup sizes to try: X sizes '32,64,128' or 3-D sizes '16x16x1;8x8x1' (default powers of two)");
    c->add_option("--kernel", t.kernel, "Kernel name to tune (default: the op's slowest kernel)");
    c->add_option("--repeat", t.repeats, "Timed repetitions per size")->capture_default_str();
    c->add_flag("--no-save", t.no_save, "Do not save the best size for this device");
}

void run_tune(Globals& g, const TuneArgs& t, const std::function<void()>& op) {
    Context& ctx = tuned_context(g);
    std::vector<WorkgroupSize> candidates;
    std::stringstream ss(t.candidates);
    for (std::string item; std::getline(ss, item, t.candidates.find(';') != std::string::npos ? ';' : ',');) {
        auto e = extents(item, "--candidates", 1, std::numeric_limits<uint32_t>::max());
        candidates.push_back({static_cast<uint32_t>(e[0]), static_cast<uint32_t>(e[1]), static_cast<uint32_t>(e[2])});
    }
    std::string kernel = t.kernel;
    if (kernel.empty()) {
        const auto names = kernels_of(ctx, op);
        if (names.empty()) throw Error("tune: the op ran no kernel that the profile saw; name one with --kernel");
        kernel = names.front();
    }
    const TuneResult r = tune(ctx, kernel, op, candidates, t.repeats, !t.no_save);
    if (!g.json) {
        std::cout << r.str();
        if (!t.no_save && !tuning_file(ctx).empty()) std::cout << "saved to " << tuning_file(ctx) << "\n";
        return;
    }
    std::cout << "{\"kernel\": " << json_string(r.kernel) << ", \"best\": " << json_list(std::vector<uint32_t>(r.best.begin(), r.best.end()))
              << ", \"best_ms\": " << json_number(r.best_ms) << ", \"table\": [";
    for (size_t i = 0; i < r.table.size(); ++i) {
        const TuneEntry& e = r.table[i];
        std::cout << (i ? ", " : "") << "{\"size\": " << json_list(std::vector<uint32_t>(e.size.begin(), e.size.end()))
                  << ", \"ok\": " << (e.ok ? "true" : "false") << ", \"gpu_ms\": " << json_number(e.gpu_ms)
                  << ", \"min_ms\": " << json_number(e.min_ms) << ", \"max_ms\": " << json_number(e.max_ms) << "}";
    }
    std::cout << "]}\n";
}

HostArray random_host(size_t n, DType t, double hi) {
    HostArray h(Shape{n}, t);
    uint64_t s = 12345;
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        for (T& x : h.as<T>()) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x = static_cast<T>(static_cast<double>(s >> 11) / 9007199254740992.0 * hi);
        }
    });
    return h;
}

void register_tune(CLI::App& app, Globals& g) {
    CLI::App* tune_app = app.add_subcommand("tune", "Time workgroup sizes of an op's kernel, keep and save the fastest");
    tune_app->require_subcommand(1);
    for (const char* name : {"add", "multiply"}) {
        auto t = std::make_shared<TuneArgs>();
        auto size = std::make_shared<size_t>(64ull << 20);
        auto dtype = std::make_shared<std::string>("float32");
        const bool is_add = std::string(name) == "add";
        auto* c = add_command(*tune_app, g, name, std::string("Tune ") + name + " of two random arrays", [=, &g] {
            Context& ctx = tuned_context(g);
            Array a = Array::from_host(ctx, random_host(*size, parse_dtype(*dtype), 100));
            Array b = Array::from_host(ctx, random_host(*size, parse_dtype(*dtype), 50));
            Array c2;
            run_tune(g, *t, [&] { c2 = is_add ? add(a, b) : multiply(a, b); });
        });
        c->add_option("--size", *size, "Elements per array")
            ->check(whole_number(1, Shape::max_elements))
            ->capture_default_str();
        c->add_option("--dtype", *dtype, "Element type")->capture_default_str();
        add_tune_options(c, *t);
    }
    {
        auto t = std::make_shared<TuneArgs>();
        auto size = std::make_shared<size_t>(64ull << 20);
        auto bins = std::make_shared<int>(256);
        auto dtype = std::make_shared<std::string>("int32");
        auto range = std::make_shared<std::string>();
        auto* c = add_command(*tune_app, g, "histogram", "Tune histogram of random values in [0, bins)", [=, &g] {
            Context& ctx = tuned_context(g);
            Array a = Array::from_host(ctx, random_host(*size, parse_dtype(*dtype), *bins));
            std::optional<std::pair<double, double>> r;
            if (!range->empty()) {
                auto v = split_numbers(*range, "--range");
                if (v.size() != 2) throw InvalidArgument("--range takes LO,HI");
                r = std::pair{v[0], v[1]};
            }
            Histogram h;
            run_tune(g, *t, [&] { h = histogram(a, *bins, r); });
        });
        c->add_option("--size", *size, "Elements")->check(whole_number(1, Shape::max_elements))->capture_default_str();
        c->add_option("--bins", *bins, "Number of bins")->capture_default_str();
        c->add_option("--dtype", *dtype, "Element type")->capture_default_str();
        c->add_option("--range", *range, "LO,HI (default: the data's min and max)");
        add_tune_options(c, *t);
    }
    {
        auto t = std::make_shared<TuneArgs>();
        auto upper = std::make_shared<uint32_t>(100000);
        auto method = std::make_shared<std::string>("trial");
        auto* c = add_command(*tune_app, g, "primes", "Tune the prime flags kernel below --upper", [=, &g] {
            Context& ctx = tuned_context(g);
            Array f;
            run_tune(g, *t, [&] {
                f = *method == "sieve" ? prime_flags_sieve(ctx, *upper) : prime_flags_trial_division(ctx, *upper);
            });
        });
        c->add_option("--upper", *upper, "Numbers below this")
            ->check(whole_number(0, std::numeric_limits<uint32_t>::max()))
            ->capture_default_str();
        c->add_option("--method", *method, "trial or sieve")->check(CLI::IsMember({"trial", "sieve"}))->capture_default_str();
        add_tune_options(c, *t);
    }
    {
        auto t = std::make_shared<TuneArgs>();
        auto a = std::make_shared<KernelArgs>();
        auto* c = add_command(*tune_app, g, "kernel", "Tune a user kernel file (options as for 'kiln kernel')", [=, &g] {
            PreparedKernel p = prepare_kernel(g, *a);
            if (!p.kernel->tunable())
                throw InvalidArgument("kernel '" + p.kernel->name() +
                                      "' has a fixed workgroup size; declare layout(local_size_x_id = 0) in; to tune it");
            TuneArgs named = *t;
            if (named.kernel.empty()) named.kernel = p.kernel->name();
            run_tune(g, named, p.launch);
        });
        add_kernel_options(c, *a);
        add_tune_options(c, *t);
    }
}

// --- histogram, bincount, primes, kernel ---------------------------------------

void register_lessons(CLI::App& app, Globals& g) {
    {
        auto in = std::make_shared<std::string>(), out = std::make_shared<std::string>();
        auto range = std::make_shared<std::string>();
        auto bins = std::make_shared<int>(10);
        auto* c = add_command(app, g, "histogram", "Counts in equal-width bins, as numpy.histogram (--json for JSON)",
                              [=, &g] {
                                  tuned_context(g);
                                  std::optional<std::pair<double, double>> r;
                                  if (!range->empty()) {
                                      auto v = split_numbers(*range, "--range");
                                      if (v.size() != 2) throw InvalidArgument("--range takes LO,HI, e.g. --range 0,256");
                                      r = std::pair{v[0], v[1]};
                                  }
                                  Histogram h = histogram(load(g, *in), *bins, r);
                                  const std::vector<int64_t> counts = h.host_counts();
                                  if (!out->empty()) save(g, h.counts, *out);
                                  if (g.json) {
                                      std::cout << "{\"counts\": " << json_list(counts) << ", \"edges\": " << json_list(h.edges) << "}\n";
                                      return;
                                  }
                                  std::cout << "# bin\tlower\tupper\tcount\n";
                                  for (size_t i = 0; i < counts.size(); ++i)
                                      std::cout << i << '\t' << number(h.edges[i]) << '\t' << number(h.edges[i + 1]) << '\t'
                                                << counts[i] << '\n';
                              });
        c->add_option("A", *in, "Input array file")->required();
        c->add_option("--bins", *bins, "Number of bins")->capture_default_str();
        c->add_option("--range", *range, "LO,HI (default: the finite min and max)");
        add_output(c, g, "-o,--output", *out, "Also write the counts (uint32) to this file");
    }
    {
        auto in = std::make_shared<std::string>(), out = std::make_shared<std::string>();
        auto minlength = std::make_shared<size_t>(0);
        auto* c = add_command(app, g, "bincount", "Occurrences of each value 0..max of an integer array, as numpy.bincount",
                              [=, &g] {
                                  tuned_context(g);
                                  Array counts = bincount(load(g, *in), *minlength);
                                  const std::vector<uint32_t> v = counts.to_vector<uint32_t>();
                                  if (!out->empty()) save(g, counts, *out);
                                  if (g.json) {
                                      std::cout << "{\"counts\": " << json_list(v) << "}\n";
                                      return;
                                  }
                                  std::cout << "# value\tcount\n";
                                  for (size_t i = 0; i < v.size(); ++i) std::cout << i << '\t' << v[i] << '\n';
                              });
        c->add_option("A", *in, "Input array file (integers >= 0)")->required();
        c->add_option("--minlength", *minlength, "At least this many counts")
            ->check(whole_number(0, std::numeric_limits<uint32_t>::max()))
            ->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Also write the counts (uint32) to this file");
    }
    {
        auto upper = std::make_shared<uint32_t>(100000);
        auto method = std::make_shared<std::string>("sieve");
        auto out = std::make_shared<std::string>();
        auto* c = add_command(app, g, "primes", "Count the primes below --upper (and write them with -o)", [=, &g] {
            Context& ctx = tuned_context(g);
            const std::vector<uint32_t> p =
                *method == "trial" ? primes_trial_division(ctx, *upper) : primes_sieve(ctx, *upper);
            if (!out->empty()) {
                if (p.empty()) throw InvalidArgument("primes: there is no prime below " + std::to_string(*upper) + " to write");
                save(g, HostArray::from(Shape{p.size()}, p), *out);
            }
            if (g.json)
                std::cout << "{\"upper\": " << *upper << ", \"method\": " << json_string(*method) << ", \"count\": " << p.size() << "}\n";
            else
                std::cout << p.size() << "\n";
        });
        c->add_option("--upper", *upper, "Primes below this number")
            ->check(whole_number(0, std::numeric_limits<uint32_t>::max()))
            ->capture_default_str();
        c->add_option("--method", *method, "trial (the lessons' one invocation per number) or sieve")
            ->check(CLI::IsMember({"trial", "sieve"}))
            ->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Write the primes (uint32) to this file");
    }
    {
        auto a = std::make_shared<KernelArgs>();
        auto* c = add_command(app, g, "kernel", "Compile a GLSL compute shader and run it on array files", [=, &g] {
            for (const std::string& spec : a->outs) claim_array_output(g, spec.substr(0, spec.find(':')));
            PreparedKernel p = prepare_kernel(g, *a);
            p.launch();
            for (auto& [index, path] : p.outputs) {
                save(g, p.arrays[index], path);
                if (!g.json)
                    std::cout << "wrote " << path << ": " << dtype_name(p.arrays[index].dtype()) << " "
                              << p.arrays[index].shape().str() << "\n";
            }
            if (g.json) {
                std::cout << "{\"kernel\": " << json_string(p.kernel->name()) << ", \"outputs\": [";
                for (size_t i = 0; i < p.outputs.size(); ++i) std::cout << (i ? ", " : "") << json_string(p.outputs[i].second);
                std::cout << "]}\n";
            }
        });
        add_kernel_options(c, *a);
    }
    register_tune(app, g);
}

const CommandFamily lessons_family(register_lessons);

} // namespace

} // namespace kiln::cli
