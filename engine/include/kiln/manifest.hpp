#pragma once
// The op manifest: one entry per op with its name, a one-line doc, its
// arguments (names, kinds, defaults, accepted values) and the function that
// runs it. Each op file declares its entries beside its code (OpFamily); the
// `kiln` command line makes a subcommand of every entry, and a binding to
// another language can make a function of every entry, from this table alone.
//
//   kiln::OpArgs args(ctx);
//   args.set("image", img).set("sigma", 2.0);
//   kiln::Array smooth = std::get<kiln::Array>(kiln::invoke("gaussian_filter", args));
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/array.hpp"
#include "kiln/context.hpp"
#include "kiln/dtype.hpp"

#pragma GCC visibility push(default)  // exported by libkiln.so (docs/ARCHITECTURE.md, The library)
namespace kiln {

/// What an argument holds.
enum class ArgKind {
    array,     ///< an Array (command line: a positional array file)
    operand,   ///< an Array or a number (command line: a positional file or number)
    number,    ///< a double
    integer,   ///< a whole number in [ArgSpec::min, ArgSpec::max]
    choice,    ///< one of ArgSpec::choices
    numbers,   ///< a list of doubles (command line: comma-separated, "1,2,1")
    integers,  ///< a list of whole numbers in [min, max] (command line: "--shape 512 512")
};

/// One argument of an op.
struct ArgSpec {
    std::string name;  ///< snake_case; the command line spells arrays NAME, the rest --name-with-dashes
    ArgKind kind = ArgKind::array;
    std::string doc;
    /// The value when not given, as the command line writes it ("reflect",
    /// "4.0", "-1"); empty: the argument must be given unless `optional`.
    std::string default_value;
    bool optional = false;             ///< may be absent with no default (the op asks OpArgs::has)
    std::vector<std::string> choices;  ///< the accepted values of a choice
    int64_t min = INT64_MIN, max = INT64_MAX;  ///< the accepted range of integer kinds
};

/// An argument's value.
using OpValue = std::variant<Array, double, int64_t, std::string, std::vector<double>, std::vector<int64_t>>;
/// An op's result: an array, a number or a whole number.
using OpResult = std::variant<Array, double, int64_t>;

/// The arguments of one call, by name, and the context an op with no array
/// argument creates its result in.
class OpArgs {
public:
    explicit OpArgs(Context ctx) : ctx_(std::move(ctx)) {}
    OpArgs& set(const std::string& name, OpValue v) {
        values_.insert_or_assign(name, std::move(v));
        return *this;
    }
    bool has(const std::string& name) const { return values_.count(name) > 0; }
    const Context& context() const { return ctx_; }
    /// The value of `name` as this type (invoke has checked kinds and filled
    /// defaults, so an op asks only for what its schema declares).
    const Array& array(const std::string& name) const;
    bool is_array(const std::string& name) const;
    double number(const std::string& name) const;
    int64_t integer(const std::string& name) const;
    const std::string& text(const std::string& name) const;
    const std::vector<double>& numbers(const std::string& name) const;
    const std::vector<int64_t>& integers(const std::string& name) const;
    const std::map<std::string, OpValue>& values() const { return values_; }

private:
    const OpValue& at(const std::string& name) const;
    Context ctx_;
    std::map<std::string, OpValue> values_;
};

/// What an op returns.
enum class ResultKind {
    array,    ///< always an Array
    number,   ///< always a double
    integer,  ///< always a whole number
    /// A double, or an Array when the argument OpEntry::array_when is given
    /// (the reductions: whole array, or along an axis).
    number_or_array,
    integer_or_array,  ///< the same with a whole number
};

/// One op: what the command line and a binding need to expose it.
struct OpEntry {
    std::string name;  ///< snake_case; the command line spells it with dashes
    std::string doc;   ///< one line
    std::vector<ArgSpec> args;
    ResultKind result = ResultKind::array;
    std::string array_when;  ///< for number_or_array and integer_or_array
    /// Groups of arguments of which exactly one group may be given (and one
    /// must be): gaussian_filter's sigma, or sigma_z/sigma_y/sigma_x.
    std::vector<std::vector<std::string>> alternatives;
    std::function<OpResult(const OpArgs&)> run;
    std::string family;  ///< set by OpFamily
};

/// Declares a family of ops at namespace scope in its op file:
///   const OpFamily filters("filters", {{...entry...}, ...});
struct OpFamily {
    OpFamily(std::string family, std::vector<OpEntry> entries);
};

/// Every op in the manifest, family by family (families by name), entries in
/// the order their file declares them.
std::vector<const OpEntry*> op_manifest();
/// The entry named `name` (snake_case, or with dashes), or null.
const OpEntry* find_op(std::string_view name);

/// The names of every dtype, for a choice of element type.
inline std::vector<std::string> dtype_choices() {
    std::vector<std::string> v;
    for (DType t : all_dtypes) v.emplace_back(dtype_name(t));
    return v;
}

/// Parses a command-line text into a value of `spec`'s kind: InvalidArgument
/// naming the argument, the text and what is accepted. Not for arrays.
OpValue parse_arg(const ArgSpec& spec, const std::string& text);

/// Runs an op: checks `args` against its schema (unknown names, missing
/// arguments, wrong kinds, values not accepted, alternatives) with an
/// InvalidArgument that names the op, the argument and what is accepted,
/// fills defaults, and calls the op.
OpResult invoke(const OpEntry& op, OpArgs args);
OpResult invoke(std::string_view name, OpArgs args);

}  // namespace kiln
#pragma GCC visibility pop
