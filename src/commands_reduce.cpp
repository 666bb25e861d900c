// Reduction and statistics subcommands: sum, mean, std, var, min, max,
// argmin, argmax, count-nonzero (whole array, or along --axis into -o),
// median, percentile and kappa-sigma-clip. Scalars print as plain numbers,
// or as JSON with --json.
#include <iostream>

#include "cli.hpp"
#include "kiln/reduce.hpp"
#include "kiln/statistics.hpp"

namespace kiln::cli {

namespace {

void print_scalar(const Globals& g, const std::string& key, double v) {
    if (g.json) std::cout << "{\"" << key << "\": " << json_number(v) << "}\n";
    else std::cout << number(v) << "\n";
}

void print_integer(const Globals& g, const std::string& key, int64_t v) {
    if (g.json) std::cout << "{\"" << key << "\": " << v << "}\n";
    else std::cout << v << "\n";
}

// What one reduction subcommand computes, whole-array (a host value) and
// along an axis (an array).
struct Reduction {
    std::string name, help;
    bool has_ddof = false, integer = false;
    std::function<double(const Array&, int ddof)> whole;
    std::function<int64_t(const Array&)> whole_index;
    std::function<Array(const Array&, Axis, int ddof)> along;
};

void reduction_command(CLI::App& app, Globals& g, const Reduction& r) {
    struct Args {
        std::string in, out;
        int axis = 0, ddof = 0;
        CLI::Option* axis_option = nullptr;
    };
    auto args = std::make_shared<Args>();
    const std::string key = r.name;
    auto* c = add_command(app, g, r.name, r.help, [=, &g] {
        Array a = load(g, args->in);
        if (args->axis_option->count() > 0) {
            if (args->out.empty())
                throw InvalidArgument(key + " --axis gives an array: name the output file with -o OUT.npy");
            save(g, r.along(a, Axis{args->axis}, args->ddof), args->out);
            return;
        }
        if (!args->out.empty())
            throw InvalidArgument(key + ": -o is for --axis; the whole-array " + key + " is printed");
        if (r.integer) print_integer(g, key, r.whole_index(a));
        else print_scalar(g, key, r.whole(a, args->ddof));
    });
    c->add_option("A", args->in, "Input array file (.npy, .fits, .png)")->required();
    args->axis_option = c->add_option("--axis", args->axis,
                                      "Reduce along this axis (NumPy order, negative from the end) into -o");
    if (r.has_ddof)
        c->add_option("--ddof", args->ddof, "Delta degrees of freedom: divide by n - ddof")->capture_default_str();
    add_output(c, g, "-o,--output", args->out, "Output file for --axis (.npy, .fits)");
}

} // namespace

void register_reduce(CLI::App& app, Globals& g);
const CommandFamily reduce_family(register_reduce);

void register_reduce(CLI::App& app, Globals& g) {
    const auto no_ddof = [](auto f) { return [f](const Array& a, int) { return f(a); }; };
    const auto axis_no_ddof = [](auto f) { return [f](const Array& a, Axis ax, int) { return f(a, ax); }; };
    const Reduction reductions[] = {
        {"sum", "Sum of all elements in float64 (numpy.sum), or along --axis", false, false,
         no_ddof([](const Array& a) { return sum(a); }), {},
         axis_no_ddof([](const Array& a, Axis ax) { return sum(a, ax); })},
        {"mean", "Mean in float64 (numpy.mean), or along --axis", false, false,
         no_ddof([](const Array& a) { return mean(a); }), {},
         axis_no_ddof([](const Array& a, Axis ax) { return mean(a, ax); })},
        {"var", "Variance (numpy.var with --ddof), or along --axis", true, false,
         [](const Array& a, int ddof) { return var(a, ddof); }, {},
         [](const Array& a, Axis ax, int ddof) { return var(a, ax, ddof); }},
        {"std", "Standard deviation (numpy.std with --ddof), or along --axis", true, false,
         [](const Array& a, int ddof) { return kiln::std(a, ddof); }, {},
         [](const Array& a, Axis ax, int ddof) { return kiln::std(a, ax, ddof); }},
        {"min", "Smallest element (NaN if any is NaN), or along --axis", false, false,
         no_ddof([](const Array& a) { return min(a); }), {},
         axis_no_ddof([](const Array& a, Axis ax) { return min(a, ax); })},
        {"max", "Largest element (NaN if any is NaN), or along --axis", false, false,
         no_ddof([](const Array& a) { return max(a); }), {},
         axis_no_ddof([](const Array& a, Axis ax) { return max(a, ax); })},
        {"argmin", "Flat index of the first minimum (or first NaN), or along --axis", false, true, {},
         [](const Array& a) { return argmin(a); },
         axis_no_ddof([](const Array& a, Axis ax) { return argmin(a, ax); })},
        {"argmax", "Flat index of the first maximum (or first NaN), or along --axis", false, true, {},
         [](const Array& a) { return argmax(a); },
         axis_no_ddof([](const Array& a, Axis ax) { return argmax(a, ax); })},
        {"count-nonzero", "Number of nonzero elements (NaN counts), or along --axis", false, true, {},
         [](const Array& a) { return count_nonzero(a); },
         axis_no_ddof([](const Array& a, Axis ax) { return count_nonzero(a, ax); })},
    };
    for (const Reduction& r : reductions) reduction_command(app, g, r);

    {
        auto in = std::make_shared<std::string>();
        auto* c = add_command(app, g, "median", "Exact median of all elements (numpy.median)",
                              [=, &g] { print_scalar(g, "median", median(load(g, *in))); });
        c->add_option("A", *in, "Input array file")->required();
    }
    {
        auto in = std::make_shared<std::string>(), q = std::make_shared<std::string>();
        auto* c = add_command(app, g, "percentile",
                              "Exact percentiles of all elements (numpy.percentile, linear): one 'q value' line each",
                              [=, &g] {
                                  const std::vector<double> qs = parse_numbers(*q, "--q", "5,50,95");
                                  const std::vector<double> v = percentiles(load(g, *in), qs);
                                  if (g.json) {
                                      std::cout << "{\"q\": [";
                                      for (size_t i = 0; i < qs.size(); ++i) std::cout << (i ? ", " : "") << json_number(qs[i]);
                                      std::cout << "], \"percentile\": [";
                                      for (size_t i = 0; i < v.size(); ++i) std::cout << (i ? ", " : "") << json_number(v[i]);
                                      std::cout << "]}\n";
                                      return;
                                  }
                                  for (size_t i = 0; i < qs.size(); ++i) std::cout << number(qs[i]) << '\t' << number(v[i]) << '\n';
                              });
        c->add_option("A", *in, "Input array file")->required();
        c->add_option("--q", *q, "Percentiles in [0, 100], comma-separated, e.g. 5,50,95")->required();
    }
    {
        struct Args {
            std::string in, out;
            double kappa = 3.0;
            int max_iters = 100;
        };
        auto args = std::make_shared<Args>();
        auto* c = add_command(
            app, g, "kappa-sigma-clip",
            "Clip to median +- kappa*std until nothing more is clipped (NaN/inf ignored); prints median, std, "
            "mean, count, iterations",
            [=, &g] {
                const ClipResult r = kappa_sigma_clip(load(g, args->in), args->kappa, args->max_iters, !args->out.empty());
                if (r.mask) save(g, *r.mask, args->out);
                if (g.json) {
                    std::cout << "{\"median\": " << json_number(r.median) << ", \"std\": " << json_number(r.std)
                              << ", \"mean\": " << json_number(r.mean) << ", \"count\": " << r.count
                              << ", \"iterations\": " << r.iterations << "}\n";
                    return;
                }
                std::cout << "median\t" << number(r.median) << "\nstd\t" << number(r.std) << "\nmean\t" << number(r.mean)
                          << "\ncount\t" << r.count << "\niterations\t" << r.iterations << "\n";
            });
        c->add_option("A", args->in, "Input array file")->required();
        c->add_option("--kappa", args->kappa, "Keep values strictly inside median +- kappa * std")->capture_default_str();
        c->add_option("--max-iters", args->max_iters, "Most passes to run")->capture_default_str();
        add_output(c, g, "-o,--output", args->out, "Write the uint8 mask of kept elements to this file");
    }
}

} // namespace kiln::cli
