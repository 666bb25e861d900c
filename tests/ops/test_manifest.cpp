// The op manifest (kiln/manifest.hpp): every entry well formed, invoke's
// checks name the op, the argument and what is accepted, and an invoked op
// gives what the op's own function gives.
#include <set>

#include "kiln/manifest.hpp"
#include "support.hpp"

using namespace kiln;

TEST_CASE("every manifest entry is well formed", "[manifest]") {
    const auto ops = op_manifest();
    REQUIRE(ops.size() >= 30);
    std::set<std::string> names;
    for (const OpEntry* e : ops) {
        INFO(e->name);
        CHECK(names.insert(e->name).second);
        CHECK_FALSE(e->doc.empty());
        CHECK_FALSE(e->family.empty());
        CHECK(e->run);
        CHECK(find_op(e->name) == e);
        std::set<std::string> args;
        for (const ArgSpec& a : e->args) {
            INFO(a.name);
            CHECK(args.insert(a.name).second);
            CHECK_FALSE(a.doc.empty());
            CHECK(a.name.find('-') == std::string::npos);
            if (a.kind == ArgKind::choice) CHECK_FALSE(a.choices.empty());
            if (!a.default_value.empty()) CHECK_NOTHROW(parse_arg(a, a.default_value));
        }
        if (!e->array_when.empty()) CHECK(args.count(e->array_when) == 1);
        for (const auto& group : e->alternatives)
            for (const std::string& n : group) CHECK(args.count(n) == 1);
    }
    CHECK(find_op("count-nonzero") == find_op("count_nonzero"));
    CHECK(find_op("no_such_op") == nullptr);
}

TEST_CASE("invoke checks arguments against the schema", "[manifest]") {
    Context ctx = test::context();
    const Array a = Array::full(ctx, Shape{4, 6}, 2.0);
    const auto fails = [&](const char* op, OpArgs args, const std::string& says) {
        INFO(op << ": " << says);
        CHECK_THROWS_WITH(invoke(op, std::move(args)), Catch::Contains(says));
    };
    fails("sum", OpArgs(ctx).set("a", a).set("axes", int64_t{0}), "no argument 'axes'; its arguments are a, axis");
    fails("sum", OpArgs(ctx).set("a", 1.5), "'a' must be an array");
    fails("sum", OpArgs(ctx), "argument 'a' (an array) is required");
    fails("convolve1d", OpArgs(ctx).set("input", a).set("weights", std::vector<double>{1, 2}).set("mode", std::string("edge")),
          "is 'edge'; accepted: reflect, constant, nearest, mirror, wrap");
    fails("full", OpArgs(ctx).set("shape", std::vector<int64_t>{4, 0}), "is 0; accepted: a whole number in [1, ");
    fails("gaussian_filter", OpArgs(ctx).set("input", a), "give one of sigma or sigma_x/sigma_y/sigma_z");
    fails("gaussian_filter", OpArgs(ctx).set("input", a).set("sigma", 1.0).set("sigma_y", 2.0),
          "give only one of sigma or sigma_x/sigma_y/sigma_z (given: sigma and sigma_x/sigma_y/sigma_z)");
    fails("add", OpArgs(ctx).set("a", 1.0).set("b", 2.0), "at least one of A and B must be an array");
    CHECK_THROWS_WITH(invoke("no_such_op", OpArgs(ctx)), Catch::Contains("no op named 'no_such_op'"));
    CHECK_THROWS_WITH(parse_arg(find_op("sum")->args[1], "1.5"), Catch::Contains("'1.5' is not a whole number"));
}

TEST_CASE("an invoked op gives what its function gives", "[manifest]") {
    Context ctx = test::context();
    const HostArray h = test::random(Shape{9, 17}, DType::float32, 5);
    const Array a = Array::from_host(ctx, h);
    CHECK(std::get<double>(invoke("sum", OpArgs(ctx).set("a", a))) == sum(a));
    CHECK(std::get<int64_t>(invoke("argmax", OpArgs(ctx).set("a", a))) == argmax(a));
    test::require_close(std::get<Array>(invoke("sum", OpArgs(ctx).set("a", a).set("axis", int64_t{-1}))).to_host(),
                        sum(a, Axis{-1}).to_host(), 0);
    test::require_close(std::get<Array>(invoke("var", OpArgs(ctx).set("a", a).set("axis", int64_t{0}).set("ddof", int64_t{1})))
                            .to_host(),
                        var(a, Axis{0}, 1).to_host(), 0);
    // Defaults filled from the schema: mode reflect, truncate 4.
    test::require_close(std::get<Array>(invoke("gaussian_filter", OpArgs(ctx).set("input", a).set("sigma_x", 1.5))).to_host(),
                        gaussian_filter(a, {0, 0, 1.5}).to_host(), 0);
    test::require_close(std::get<Array>(invoke("subtract", OpArgs(ctx).set("a", 10.0).set("b", a))).to_host(),
                        subtract(10.0, a).to_host(), 0);
}
