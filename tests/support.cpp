#include "support.hpp"

#include <cmath>
#include <cstring>
#include <mutex>
#include <sstream>

namespace kiln::test {

namespace {
std::mutex mutex;
std::vector<std::string> messages;

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
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

HostArray random(Shape shape, DType t, uint64_t seed, double lo, double hi) {
    HostArray a(shape, t);
    uint64_t s = seed;
    visit_dtype(t, [&](auto z) {
        using T = decltype(z);
        auto v = a.as<T>();
        for (auto& x : v) {
            double u = (splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
            if constexpr (std::is_floating_point_v<T>) {
                x = static_cast<T>(lo + u * (hi - lo));
            } else {
                double l = std::max<double>(lo, std::numeric_limits<T>::min());
                double h = std::min<double>(hi, std::numeric_limits<T>::max());
                x = static_cast<T>(std::floor(l + u * (h - l + 1)));
                if (x > h) x = static_cast<T>(h);
            }
        }
    });
    return a;
}

Array poisoned(const Context& ctx, Shape shape, DType t) {
    std::vector<std::byte> bytes(shape.size() * dtype_size(t), std::byte{0xCD});
    return Array::from_host(ctx, shape, t, bytes.data(), bytes.size());
}

void require_close(const HostArray& got, const HostArray& want, double rtol, double atol) {
    REQUIRE(got.shape == want.shape);
    REQUIRE(got.dtype == want.dtype);
    size_t bad = 0, first = 0;
    std::ostringstream detail;
    for (size_t i = 0; i < got.size(); ++i) {
        double g = got.at(i), w = want.at(i);
        bool ok;
        if (std::isnan(w)) ok = std::isnan(g);
        else if (std::isinf(w)) ok = g == w;
        else if (dtype_is_float(want.dtype)) ok = std::abs(g - w) <= atol + rtol * std::abs(w);
        else ok = g == w;
        if (!ok) {
            if (bad < 8) detail << "  [" << i << "] got " << g << " want " << w << "\n";
            if (!bad) first = i;
            ++bad;
        }
    }
    INFO(bad << " of " << got.size() << " elements differ (first at " << first << "):\n" << detail.str());
    REQUIRE(bad == 0);
}

} // namespace kiln::test
