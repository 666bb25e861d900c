// Element-wise subcommands: add, subtract, multiply, divide, minimum,
// maximum, the comparisons, where, threshold, cast, copy, full.
#include <sstream>

#include "cli.hpp"

namespace kiln::cli {

namespace {


void binary_command(CLI::App& app, Globals& g, const std::string& name, BinaryOp op) {
    auto a = std::make_shared<Operand>(), b = std::make_shared<Operand>();
    auto out = std::make_shared<std::string>();
    auto* c = add_command(app, g, name, name + " element-wise: A and B are arrays (.npy/.fits) or numbers", [=, &g] {
        if (a->is_number() && b->is_number())
            throw InvalidArgument(name + ": at least one of A and B must be an array file");
        Array r;
        if (b->is_number()) r = binary(op, load(g, a->text), b->number());
        else if (a->is_number()) r = binary(op, load(g, b->text), a->number(), true);
        else r = binary(op, load(g, a->text), load(g, b->text));
        save(g, r, *out);
    });
    c->add_option("A", a->text, "First operand: array file or number")->required();
    c->add_option("B", b->text, "Second operand: array file or number")->required();
    add_output(c, g, "-o,--output", *out, "Output file (.npy, .fits, .png)")->required();
}

void compare_command(CLI::App& app, Globals& g, const std::string& name, CompareOp op) {
    auto a = std::make_shared<std::string>();
    auto b = std::make_shared<Operand>();
    auto out = std::make_shared<std::string>();
    auto* c = add_command(app, g, name, name + ": uint8 0/1 of A " + name + " B (B an array file or a number)",
                          [=, &g] {
                              Array x = load(g, *a);
                              save(g, b->is_number() ? compare(op, x, b->number()) : compare(op, x, load(g, b->text)),
                                   *out);
                          });
    c->add_option("A", *a, "Array file")->required();
    c->add_option("B", b->text, "Array file or number")->required();
    add_output(c, g, "-o,--output", *out, "Output file")->required();
}

} // namespace

void register_elementwise(CLI::App& app, Globals& g);
const CommandFamily elementwise_family(register_elementwise);

void register_elementwise(CLI::App& app, Globals& g) {
    binary_command(app, g, "add", BinaryOp::add);
    binary_command(app, g, "subtract", BinaryOp::subtract);
    binary_command(app, g, "multiply", BinaryOp::multiply);
    binary_command(app, g, "divide", BinaryOp::divide);
    binary_command(app, g, "minimum", BinaryOp::minimum);
    binary_command(app, g, "maximum", BinaryOp::maximum);
    compare_command(app, g, "equal", CompareOp::equal);
    compare_command(app, g, "not-equal", CompareOp::not_equal);
    compare_command(app, g, "less", CompareOp::less);
    compare_command(app, g, "less-equal", CompareOp::less_equal);
    compare_command(app, g, "greater", CompareOp::greater);
    compare_command(app, g, "greater-equal", CompareOp::greater_equal);

    {
        auto cond = std::make_shared<std::string>();
        auto a = std::make_shared<Operand>(), b = std::make_shared<Operand>();
        auto out = std::make_shared<std::string>();
        auto dtype = std::make_shared<std::string>("float32");
        auto* c = add_command(app, g, "where", "COND ? A : B element-wise (A, B array files or numbers)", [=, &g] {
            Array k = load(g, *cond);
            Array r;
            if (a->is_number() && b->is_number()) r = where(k, a->number(), b->number(), parse_dtype(*dtype));
            else if (a->is_number()) r = where(k, a->number(), load(g, b->text));
            else if (b->is_number()) r = where(k, load(g, a->text), b->number());
            else r = where(k, load(g, a->text), load(g, b->text));
            save(g, r, *out);
        });
        c->add_option("COND", *cond, "Condition array (nonzero is true)")->required();
        c->add_option("A", a->text, "Value where true: array file or number")->required();
        c->add_option("B", b->text, "Value where false: array file or number")->required();
        c->add_option("--dtype", *dtype, "Output dtype when A and B are both numbers")->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
    {
        auto in = std::make_shared<std::string>();
        auto above = std::make_shared<double>(0);
        auto out = std::make_shared<std::string>();
        auto* c = add_command(app, g, "threshold", "uint8 1 where IMAGE > --above, else 0 (NaN gives 0)", [=, &g] {
            save(g, threshold(load(g, *in), *above), *out);
        });
        c->add_option("IMAGE", *in, "Input array file")->required();
        c->add_option("--above", *above, "Threshold t: output is image > t")->required();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
    {
        auto in = std::make_shared<std::string>();
        auto dtype = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto* c = add_command(app, g, "cast", "Convert to another dtype (float->int saturates, NaN->0)", [=, &g] {
            save(g, cast(load(g, *in), parse_dtype(*dtype)), *out);
        });
        c->add_option("A", *in, "Input array file")->required();
        c->add_option("--dtype", *dtype,
                      "float32, float64, int8, uint8, int16, uint16, int32 or uint32")->required();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
    {
        auto in = std::make_shared<std::string>();
        auto out = std::make_shared<std::string>();
        auto* c = add_command(app, g, "copy", "Copy an array through the GPU (converts file formats)",
                              [=, &g] { save(g, copy(load(g, *in)), *out); });
        c->add_option("A", *in, "Input array file")->required();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
    {
        auto shape = std::make_shared<std::vector<size_t>>();
        auto value = std::make_shared<double>(0);
        auto dtype = std::make_shared<std::string>("float32");
        auto out = std::make_shared<std::string>();
        auto* c = add_command(app, g, "full", "A new array of one value", [=, &g] {
            save(g, Array::full(g.context(), Shape::of(shape->size(), shape->data()), *value, parse_dtype(*dtype)),
                 *out);
        });
        c->add_option("--shape", *shape, "1 to 3 extents in (z, y, x) order, e.g. --shape 512 512")
            ->check(whole_number(1, Shape::max_elements))
            ->required();
        c->add_option("--value", *value, "Fill value")->capture_default_str();
        c->add_option("--dtype", *dtype, "Element type")->capture_default_str();
        add_output(c, g, "-o,--output", *out, "Output file")->required();
    }
}

} // namespace kiln::cli
