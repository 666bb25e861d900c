#include "cli.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "io/array_file.hpp"

namespace kiln::cli {

Context& Globals::context() {
    if (!ctx) {
        ContextOptions o;
        if (!device.empty()) {
            if (device.find_first_not_of("0123456789") == std::string::npos)
                o.device_index = static_cast<uint32_t>(std::stoul(device));
            else
                o.device_name = device;
        }
        ctx.emplace(o);
        load_tuning(*ctx);  // workgroup sizes `kiln tune` chose on this device
    }
    return *ctx;
}

void Globals::report() {
    if (!ctx) return;
    ctx->sync();
    if (profile) std::cerr << ctx->profile().table();
    if (!trace.empty()) ctx->profile().write_chrome_trace(trace);
}

std::vector<Registrar>& command_families() {
    static std::vector<Registrar> families;
    return families;
}

Array load(Globals& g, const std::string& path) { return Array::from_host(g.context(), io::read_array(path)); }

void save(const Array& a, const std::string& path) { io::write_array(path, a.to_host()); }

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
    sub->callback([&g, action] {
        action();
        g.report();
    });
    return sub;
}

} // namespace kiln::cli
