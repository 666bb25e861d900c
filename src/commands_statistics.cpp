// Statistics subcommands whose results are more than one number:
// percentile and kappa-sigma-clip (the reductions and the median come from
// the manifest: commands_manifest.cpp). Plain text, or JSON with --json.
#include <iostream>

#include "cli.hpp"
#include "kiln/statistics.hpp"

namespace kiln::cli {

void register_statistics(CLI::App& app, Globals& g);
const CommandFamily statistics_family(register_statistics);

void register_statistics(CLI::App& app, Globals& g) {
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
