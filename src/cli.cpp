#include "cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "job.hpp"
#include "kiln/io.hpp"

namespace kiln::cli {

Context open_device(const std::string& spec, const std::string& option, uint64_t most_index) {
    ContextOptions o;
    if (!spec.empty()) {
        if (spec.find_first_not_of("0123456789") == std::string::npos)
            o.device_index = static_cast<uint32_t>(
                parse_whole(spec, option + " (a device index; `kiln devices` lists them)", 0, most_index));
        else
            o.device_name = spec;
    }
    Context c(o);
    load_tuning(c);  // workgroup sizes `kiln tune` chose on this device
    return c;
}

Context& Globals::context() {
    if (!ctx) ctx.emplace(open_device(device, "--device", std::numeric_limits<uint32_t>::max()));
    return *ctx;
}

bool Globals::speaks() const { return !job || job->root(); }

void Globals::report() {
    if (!ctx) return;
    std::vector<Context> all = contexts.empty() ? std::vector<Context>{*ctx} : contexts;
    for (Context& c : all) c.sync();
    if (!profile && trace.empty()) return;
    // A row per device (tid) and rank (pid), named where there are several.
    const int rank = job ? job->rank() : 0;
    const bool several = all.size() > 1 || (job && job->size() > 1);
    std::vector<TraceTrack> tracks;
    for (size_t k = 0; k < all.size(); ++k) {
        TraceTrack t{rank + 1, int(k) + 1, "", "", all[k].profile().events()};
        if (several) {
            t.process = job ? "rank " + std::to_string(rank) : "kiln";
            t.thread = "device " + std::to_string(k) + ": " + all[k].device().name;
        }
        tracks.push_back(std::move(t));
    }
    if (job) tracks = job->gather_tracks(std::move(tracks));
    if (!speaks()) return;
    if (profile) {
        if (tracks.size() == 1) {
            std::cerr << ctx->profile().table();
        } else {
            // Every row's kept events in one table (each context's own keeps
            // its statistics over all of its runs).
            size_t events = 0;
            for (const TraceTrack& t : tracks) events += t.events.size();
            Profile merged(std::max<size_t>(events, 1));
            for (const TraceTrack& t : tracks)
                for (const TraceEvent& e : t.events) merged.add(e.name, e.start_us, e.duration_us, e.submission);
            std::cerr << merged.table();
        }
    }
    if (!trace.empty()) save_text(*this, trace, chrome_trace(tracks));
}

std::vector<Registrar>& command_families() {
    static std::vector<Registrar> families;
    return families;
}

Array load(Globals& g, const std::string& path) { return Array::from_host(g.context(), io::read_array(path)); }

void save(Globals& g, const Array& a, const std::string& path) { save(g, a.to_host(), path); }

namespace {

// The writers' messages name the file they write, the temporary; the user
// knows the output by its own name.
std::string renamed(std::string message, const std::string& temporary, const std::string& path) {
    for (size_t at = message.find(temporary); at != std::string::npos; at = message.find(temporary, at + path.size()))
        message.replace(at, temporary.size(), path);
    return message;
}

// The file an output names: an HDF5 dataset's path ("out.h5:/entry/x") names its file.
std::string output_file(const std::string& path) {
    const auto h5 = io::split_h5_path(path);
    return h5 ? h5->file : path;
}

}  // namespace

void save(Globals& g, const HostArray& a, const std::string& path) {
    const std::string file = output_file(path);
    const std::string temporary = g.outputs.write_to(file);
    try {
        io::write_array(temporary + path.substr(file.size()), a);
    } catch (const IoError& e) {
        throw IoError(renamed(e.what(), temporary, file));
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(renamed(e.what(), temporary, file));
    }
}

void save_text(Globals& g, const std::string& path, const std::string& text) {
    const std::string temporary = g.outputs.write_to(path);
    std::ofstream f(temporary, std::ios::binary | std::ios::trunc);
    if (f) f << text;
    if (f) f.close();
    if (!f) throw IoError("output '" + path + "': writing failed: " + std::strerror(errno));
}

CLI::Option* add_output(CLI::App* c, Globals& g, const std::string& flags, std::string& path,
                        const std::string& help, bool array_file) {
    g.output_options.push_back({c, &path, array_file});
    return c->add_option(flags, path, help);
}

void claim_array_output(Globals& g, const std::string& path) {
    if (!io::known_array_extension(path))
        throw IoError("output '" + path + "': unknown file type; kiln writes .npy, .fits (.fit, .fts), .tif (.tiff), "
                      ".png and HDF5 datasets (out.h5:/path/to/dataset)");
    g.outputs.claim(output_file(path));
}

bool Operand::is_number() const {
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return !text.empty() && end && *end == '\0';
}

double Operand::number() const { return std::strtod(text.c_str(), nullptr); }

std::vector<double> parse_numbers(const std::string& text, const std::string& option,
                                  const std::string& example) {
    std::vector<double> v;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char* end = nullptr;
        const double x = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0')
            throw InvalidArgument(option + ": '" + item +
                                  "' is not a number; give a comma-separated list such as " + example);
        v.push_back(x);
    }
    if (v.empty()) throw InvalidArgument(option + " needs at least one number, e.g. " + example);
    return v;
}

CLI::App* add_command(CLI::App& app, Globals& g, const std::string& name, const std::string& help,
                      std::function<void()> action) {
    CLI::App* sub = app.add_subcommand(name, help);
    sub->callback([&g, sub, action] {
        if (g.job && g.job->size() > 1 && sub->get_name() != "integrate-azimuthal")
            throw InvalidArgument(sub->get_name() + " runs as one process; under mpirun (" +
                                  std::to_string(g.job->size()) +
                                  " ranks here) only integrate-azimuthal splits its work; run it without mpirun");
        // Every output is checked writable before any work is done (by
        // rank 0 alone under mpirun: it writes them).
        if (!g.trace.empty() && g.speaks()) g.outputs.claim(g.trace);
        for (const OutputOption& o : g.output_options) {
            if (o.command != sub || o.path->empty() || !g.speaks()) continue;
            if (o.array_file) claim_array_output(g, *o.path);
            else g.outputs.claim(*o.path);
        }
        action();
        g.report();
        g.outputs.commit();
    });
    return sub;
}

} // namespace kiln::cli
