// Primes: flags by trial division (primes_trial) or by a segmented sieve
// (primes_sieve), and the compaction of flags to a list (primes_compact).
#include "kiln/primes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "ops/kernel.hpp"

namespace kiln {

namespace {

using ops::Dispatcher;

constexpr std::array<uint32_t, 3> linear_local{256, 1, 1};
constexpr uint32_t max_segment_words = 4096;   // 16 KiB of shared memory: 131072 numbers
constexpr uint32_t flags_per_invocation = 16;  // primes_compact's PER

struct Span {
    uint32_t base, count;
};

void check_upper(uint32_t upper, const char* op) {
    if (upper == 0)
        throw InvalidArgument(std::string(op) + ": upper = 0; give upper >= 1 (flags of the numbers 0 .. upper - 1)");
}

// Numbers per binding of the uint8 flags, a multiple of `unit`.
uint64_t piece_numbers(detail::OpServices& ctx, uint64_t unit) {
    return std::max<uint64_t>(unit, ops::max_elements_per_binding(ctx, 1) / unit * unit);
}

void record_trial(const Array& flags, uint32_t base) {
    detail::OpServices& ctx = ops::services(flags);
    const uint64_t n = flags.size(), piece = piece_numbers(ctx, 256);
    for (uint64_t start = 0; start < n; start += piece) {
        const uint64_t count = std::min(piece, n - start);
        const bool split = count != n;
        Dispatcher d(ctx, ops::KernelId::primes_trial, linear_local);
        Span push{static_cast<uint32_t>(base + start), static_cast<uint32_t>(count)};
        d.write(flags, split ? start : 0, split ? count : 0).push(push).stride_grid(count).record();
    }
}

// An upper bound of the number of primes below x (Dusart: pi(x) <
// x / ln x * (1 + 1.2762 / ln x) for x > 1), for sizing the list.
uint64_t prime_count_bound(uint64_t x) {
    if (x < 100) return 25 + 1;
    const double l = std::log(double(x));
    return static_cast<uint64_t>(double(x) / l * (1 + 1.2762 / l)) + 16;
}

// The list of numbers base + i with flags[i] != 0, on the GPU: `list` (at
// least `bound` uint32) and `total` (one uint32).
struct Compacted {
    Array list, total;
};

Compacted compact(const Array& flags, uint32_t base, uint64_t bound) {
    detail::OpServices& ctx = ops::services(flags);
    const Context context = flags.context();
    if (bound * 4 > ctx.info().max_storage_buffer_range)
        throw Unsupported("primes: a list of up to " + std::to_string(bound) + " numbers (" +
                          std::to_string(bound * 4) + " bytes) exceeds the maxStorageBufferRange of '" +
                          ctx.info().name + "' (" + std::to_string(ctx.info().max_storage_buffer_range) +
                          " bytes); use the flags (prime_flags_sieve) of a smaller range");
    Compacted c;
    c.list = Array::empty(context, Shape{std::max<uint64_t>(bound, 1)}, DType::uint32);
    c.total = Array::empty(context, Shape{1}, DType::uint32);
    Dispatcher probe(ctx, ops::KernelId::primes_compact, linear_local);
    const uint64_t tile = uint64_t(probe.local()[0]) * probe.local()[1] * probe.local()[2] * flags_per_invocation;
    const uint64_t n = flags.size();
    const uint64_t tiles = (n + tile - 1) / tile;
    Array tile_counts = Array::empty(context, Shape{tiles}, DType::uint32);
    // Pieces of whole tiles, each within one binding and one dispatch's grid.
    const uint64_t piece = std::min(piece_numbers(ctx, tile), tile * 65535);
    struct Push {
        uint32_t n, tile_base, number_base, tile_count;
    };
    auto pass = [&](uint32_t which) {
        for (uint64_t start = 0; start < n; start += piece) {
            const uint64_t count = std::min(piece, n - start);
            const bool split = count != n;
            Dispatcher d(ctx, ops::KernelId::primes_compact, linear_local);
            d.read(flags, split ? start : 0, split ? count : 0);
            if (which == 0) d.read_write(tile_counts).read(c.list).read(c.total);
            else d.read(tile_counts).write(c.list).read(c.total);
            Push push{static_cast<uint32_t>(count), static_cast<uint32_t>(start / tile),
                      static_cast<uint32_t>(base + start), 0};
            d.spec(which).push(push).groups(static_cast<uint32_t>((count + tile - 1) / tile)).record();
        }
    };
    pass(0);
    {
        Dispatcher d(ctx, ops::KernelId::primes_compact, linear_local);
        const uint64_t first = std::min<uint64_t>(n, piece);
        d.read(flags, 0, first == n ? 0 : first).read_write(tile_counts).read(c.list).write(c.total);
        d.spec(1).push(Push{0, 0, 0, static_cast<uint32_t>(tiles)}).groups(1).record();
    }
    pass(2);
    return c;
}

std::vector<uint32_t> pull_list(const Compacted& c) {
    const uint32_t count = c.total.to_vector<uint32_t>()[0];
    if (count == 0) return {};
    if (count > c.list.size())
        throw Error("primes: the GPU found " + std::to_string(count) + " numbers, more than the " +
                    std::to_string(c.list.size()) + " the list was sized for");
    const Array head(c.list.context().shared_state(), c.list.storage(), Shape{count}, DType::uint32);
    return head.to_vector<uint32_t>();
}

} // namespace

Array prime_flags_trial_division(const Context& ctx, uint32_t upper) {
    check_upper(upper, "prime_flags_trial_division");
    Array flags = Array::empty(ctx, Shape{upper}, DType::uint8);
    record_trial(flags, 0);
    return flags;
}

Array prime_flags_sieve(const Context& ctx, uint32_t upper) {
    check_upper(upper, "prime_flags_sieve");
    // Base primes: every prime up to sqrt(upper - 1), by trial division.
    const auto root = static_cast<uint32_t>(std::sqrt(double(upper - 1)));
    Array base_flags = Array::empty(ctx, Shape{root + 1ull}, DType::uint8);
    record_trial(base_flags, 0);
    const Compacted base = compact(base_flags, 0, prime_count_bound(root + 1ull));

    Array flags = Array::empty(ctx, Shape{upper}, DType::uint8);
    detail::OpServices& st = ops::services(ctx);
    // Segments of a power of two of bitmap words, no more flags than one binding takes.
    const auto words = static_cast<uint32_t>(std::clamp<uint64_t>(
        std::bit_floor(ops::max_elements_per_binding(st, 1) / 32), 1, max_segment_words));
    const uint64_t segment = uint64_t(words) * 32;
    const uint64_t n = upper, piece = std::min(piece_numbers(st, segment), segment * 65535);
    for (uint64_t start = 0; start < n; start += piece) {
        const uint64_t count = std::min(piece, n - start);
        const bool split = count != n;
        Dispatcher d(st, ops::KernelId::primes_sieve, linear_local);
        d.read(base.list).read(base.total).write(flags, split ? start : 0, split ? count : 0);
        Span push{static_cast<uint32_t>(start), static_cast<uint32_t>(count)};
        d.spec(words).push(push).groups(static_cast<uint32_t>((count + segment - 1) / segment)).record();
    }
    return flags;
}

std::vector<uint32_t> primes_trial_division(const Context& ctx, uint32_t upper) {
    if (upper <= 2) return {};
    return pull_list(compact(prime_flags_trial_division(ctx, upper), 0, prime_count_bound(upper)));
}

std::vector<uint32_t> primes_sieve(const Context& ctx, uint32_t upper) {
    if (upper <= 2) return {};
    return pull_list(compact(prime_flags_sieve(ctx, upper), 0, prime_count_bound(upper)));
}

std::vector<uint32_t> flagged_numbers(const Array& flags, uint32_t base) {
    if (!flags) throw InvalidArgument("flagged_numbers: the flags are a null Array");
    if (flags.dtype() != DType::uint8)
        throw InvalidArgument("flagged_numbers: flags are " + std::string(dtype_name(flags.dtype())) +
                              "; give uint8 flags (kiln::cast(flags, DType::uint8) converts)");
    if (flags.size() >= (1ull << 32))
        throw Unsupported("flagged_numbers: at most 2^32 - 1 flags are supported");
    return pull_list(compact(flags, base, flags.size()));
}

} // namespace kiln
