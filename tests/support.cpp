#include "support.hpp"

#include <mutex>

namespace kiln::test {

namespace {
std::mutex mutex;
std::vector<std::string> messages;
} // namespace

Context context(ContextOptions options) {
    options.validation = true;
    options.on_validation_message = [](const std::string& m) {
        std::lock_guard lock(mutex);
        messages.push_back(m);
    };
    return Context(options);
}

std::vector<std::string> validation_messages() {
    std::lock_guard lock(mutex);
    return messages;
}

Array poisoned(const Context& ctx, Shape shape, DType t) {
    std::vector<std::byte> bytes(shape.size() * dtype_size(t), std::byte{0xCD});
    return Array::from_host(ctx, shape, t, bytes.data(), bytes.size());
}

void poison_pool(const Context& ctx, Shape shape, DType t) {
    { Array p = poisoned(ctx, shape, t); }
    Context(ctx).sync();
}

} // namespace kiln::test
