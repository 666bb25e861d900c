#include "graph/context_impl.hpp"
#include "support.hpp"

using namespace kiln;

// The suite relies on validation messages failing tests: prove that misuse is
// reported (this context's messages go to a local list, not the global one).
TEST_CASE("the validation layer reports API misuse", "[context][validation]") {
    std::vector<std::string> seen;
    ContextOptions o;
    o.validation = true;
    o.on_validation_message = [&](const std::string& m) { seen.push_back(m); };
    Context ctx(o);
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = 0;  // invalid: size must be greater than 0
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkResult r = vkCreateBuffer(ctx.state().resources.device().handle(), &bci, nullptr, &buffer);
    if (r == VK_SUCCESS && buffer) vkDestroyBuffer(ctx.state().resources.device().handle(), buffer, nullptr);
    CHECK(ctx.validation_message_count() >= 1);
    REQUIRE(!seen.empty());
    CHECK(seen[0].find("validation") != std::string::npos);
}
