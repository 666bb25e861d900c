// A subcommand for every op in the manifest (kiln/manifest.hpp), made from
// its entry alone: array arguments are positional files (a number where the
// op takes an operand), the others --options checked against the schema
// (a usage error, exit code 2, otherwise), an array result is written to
// -o, a number printed (JSON with --json).
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "cli.hpp"
#include "kiln/manifest.hpp"

namespace kiln::cli {

namespace {

std::string dashed(std::string s) {
    std::replace(s.begin(), s.end(), '_', '-');
    return s;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// The command-line spelling of an argument.
std::string flag(const ArgSpec& a) {
    const bool positional = a.kind == ArgKind::array || a.kind == ArgKind::operand;
    return positional ? upper(a.name) : "--" + dashed(a.name);
}

// One item of a list of whole numbers (given one value per word).
ArgSpec item_of(const ArgSpec& list) {
    ArgSpec item = list;
    item.kind = ArgKind::integer;
    return item;
}

// A CLI11 check of a value's text by the manifest's parser.
CLI::Validator schema_check(const ArgSpec& a) {
    return CLI::Validator(
        [a](std::string& text) -> std::string {
            try {
                parse_arg(a, text);
                return {};
            } catch (const Error& e) {
                return e.what();
            }
        },
        "");
}

const char* type_name(ArgKind k) {
    switch (k) {
    case ArgKind::number: return "FLOAT";
    case ArgKind::integer:
    case ArgKind::integers: return "INT";
    default: return "TEXT";
    }
}

std::string join_flags(const OpEntry& e, const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names)
        for (const ArgSpec& a : e.args)
            if (a.name == n) s += (s.empty() ? "" : "/") + flag(a);
    return s;
}

// One subcommand's values as the parser leaves them.
struct Parsed {
    std::map<std::string, std::string> text;
    std::map<std::string, std::vector<std::string>> lists;
    std::map<std::string, CLI::Option*> options;
    std::string out;
};

void print_result(Globals& g, const std::string& key, const OpResult& r, const std::string& out) {
    if (const Array* a = std::get_if<Array>(&r)) return save(g, *a, out);
    if (const double* v = std::get_if<double>(&r)) {
        if (g.json) std::cout << "{\"" << key << "\": " << json_number(*v) << "}\n";
        else std::cout << number(*v) << "\n";
        return;
    }
    const int64_t v = std::get<int64_t>(r);
    if (g.json) std::cout << "{\"" << key << "\": " << v << "}\n";
    else std::cout << v << "\n";
}

// Before any work: -o where the result is an array, none where it is a
// number, and one group of the alternatives.
void check_usage(const OpEntry& e, const Parsed& p) {
    const std::string name = dashed(e.name);
    if (!e.array_when.empty()) {
        const std::string when = "--" + dashed(e.array_when);
        const bool gives_array = p.options.at(e.array_when)->count() > 0;
        if (gives_array && p.out.empty())
            throw InvalidArgument(name + " " + when + " gives an array: name the output file with -o OUT.npy");
        if (!gives_array && !p.out.empty())
            throw InvalidArgument(name + ": -o is for " + when + "; the whole-array " + name + " is printed");
    }
    if (e.alternatives.empty()) return;
    std::vector<std::string> groups;
    for (const auto& group : e.alternatives) {
        for (const std::string& n : group)
            if (p.options.at(n)->count() > 0) return;
        groups.push_back(join_flags(e, group));
    }
    std::string all;
    for (const std::string& s : groups) all += (all.empty() ? "" : " or ") + s;
    throw CLI::RequiredError(all);  // a usage error, as CLI11's own (exit code 2)
}

OpArgs arguments(Globals& g, const OpEntry& e, const Parsed& p) {
    OpArgs args(g.context());
    for (const ArgSpec& a : e.args) {
        if (p.options.at(a.name)->count() == 0) continue;  // invoke fills its default
        if (a.kind == ArgKind::integers) {
            std::vector<int64_t> v;
            for (const std::string& item : p.lists.at(a.name)) v.push_back(std::get<int64_t>(parse_arg(item_of(a), item)));
            args.set(a.name, std::move(v));
            continue;
        }
        const std::string& t = p.text.at(a.name);
        const Operand operand{t};
        if (a.kind == ArgKind::array || (a.kind == ArgKind::operand && !operand.is_number()))
            args.set(a.name, load(g, t));
        else
            args.set(a.name, parse_arg(a, t));
    }
    return args;
}

void manifest_command(CLI::App& app, Globals& g, const OpEntry& e) {
    auto p = std::make_shared<Parsed>();
    CLI::App* c = add_command(app, g, dashed(e.name), e.doc, [p, &e, &g] {
        check_usage(e, *p);
        print_result(g, dashed(e.name), invoke(e, arguments(g, e, *p)), p->out);
    });
    for (const ArgSpec& a : e.args) {
        CLI::Option* o = nullptr;
        if (a.kind == ArgKind::integers) {
            o = c->add_option(flag(a), p->lists[a.name], a.doc);
            if (a.min >= 0) o->check(whole_number(static_cast<uint64_t>(a.min), static_cast<uint64_t>(a.max)));
            else o->check(schema_check(item_of(a)));
        } else {
            o = c->add_option(flag(a), p->text[a.name], a.doc);
            if (a.kind == ArgKind::choice) o->check(CLI::IsMember(a.choices));
            else if (a.kind != ArgKind::array && a.kind != ArgKind::operand) o->check(schema_check(a));
        }
        o->type_name(type_name(a.kind));
        if (!a.default_value.empty()) o->default_str(a.default_value);
        else if (!a.optional) o->required();
        p->options[a.name] = o;
    }
    for (size_t i = 0; i < e.alternatives.size(); ++i)
        for (size_t j = 0; j < e.alternatives.size(); ++j)
            if (i != j)
                for (const std::string& x : e.alternatives[i])
                    for (const std::string& y : e.alternatives[j]) p->options[x]->excludes(p->options[y]);
    if (e.result == ResultKind::array)
        add_output(c, g, "-o,--output", p->out, "Output file (.npy, .fits, .tif, .png)")->required();
    else if (!e.array_when.empty())
        add_output(c, g, "-o,--output", p->out, "Output file for --" + dashed(e.array_when) + " (.npy, .fits)");
}

void register_manifest(CLI::App& app, Globals& g) {
    for (const OpEntry* e : op_manifest()) manifest_command(app, g, *e);
}

const CommandFamily manifest_family(register_manifest);

}  // namespace

}  // namespace kiln::cli
