#include "vk/float_controls.hpp"

#include <cstring>
#include <set>
#include <string>
#include <tuple>

#include "kiln/error.hpp"

namespace kiln::vk {

namespace {

// SPIR-V numbers (the unified specification's tables).
constexpr uint32_t magic = 0x07230203;
constexpr uint32_t op_extension = 10, op_capability = 17, op_entry_point = 15, op_execution_mode = 16;
constexpr uint32_t cap_float64 = 10, cap_denorm_preserve = 4464, cap_nan_preserve = 4466;
constexpr uint32_t mode_denorm_preserve = 4459, mode_nan_preserve = 4461;
constexpr uint32_t model_gl_compute = 5;
constexpr const char* extension = "SPV_KHR_float_controls";

uint32_t opcode(uint32_t w) { return w & 0xffff; }
uint32_t word_count(uint32_t w) { return w >> 16; }
uint32_t head(uint32_t op, uint32_t words) { return words << 16 | op; }

// A literal string as SPIR-V words: UTF-8, nul-terminated, zero-padded.
std::vector<uint32_t> literal(const char* s) {
    const size_t n = std::strlen(s) + 1;
    std::vector<uint32_t> w((n + 3) / 4, 0);
    std::memcpy(w.data(), s, n);
    return w;
}

} // namespace

std::vector<uint32_t> with_float_controls(std::span<const uint32_t> spirv, const FloatControls& fc) {
    if (spirv.size() < 5 || spirv[0] != magic)
        throw InvalidArgument("with_float_controls: the words are not a SPIR-V module (no magic number)");
    // First pass: what the module has.
    std::set<uint32_t> caps;
    bool has_extension = false;
    std::vector<uint32_t> entries;
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> modes;  // entry, mode, width
    const std::vector<uint32_t> ext_words = literal(extension);
    for (size_t i = 5; i < spirv.size();) {
        const uint32_t n = word_count(spirv[i]);
        if (n == 0 || i + n > spirv.size())
            throw InvalidArgument("with_float_controls: a malformed instruction at word " + std::to_string(i));
        const uint32_t op = opcode(spirv[i]);
        if (op == op_capability && n == 2) caps.insert(spirv[i + 1]);
        if (op == op_extension && n - 1 == ext_words.size() &&
            std::equal(ext_words.begin(), ext_words.end(), spirv.begin() + i + 1))
            has_extension = true;
        if (op == op_entry_point && n >= 3 && spirv[i + 1] == model_gl_compute) entries.push_back(spirv[i + 2]);
        if (op == op_execution_mode && n == 4) modes.insert({spirv[i + 1], spirv[i + 2], spirv[i + 3]});
        i += n;
    }
    const bool f64 = caps.count(cap_float64) != 0;
    std::vector<std::pair<uint32_t, uint32_t>> wanted;  // mode, width
    if (fc.denorm_preserve32) wanted.push_back({mode_denorm_preserve, 32});
    if (fc.denorm_preserve64 && f64) wanted.push_back({mode_denorm_preserve, 64});
    if (fc.nan_preserve32) wanted.push_back({mode_nan_preserve, 32});
    if (fc.nan_preserve64 && f64) wanted.push_back({mode_nan_preserve, 64});
    std::vector<uint32_t> new_caps;
    for (auto [mode, width] : wanted) {
        const uint32_t cap = mode == mode_denorm_preserve ? cap_denorm_preserve : cap_nan_preserve;
        if (!caps.count(cap)) {
            caps.insert(cap);
            new_caps.push_back(cap);
        }
    }
    const bool needs_extension = !wanted.empty() && !has_extension && spirv[1] < 0x00010400;

    // Second pass: capabilities and the extension go where the capability
    // section ends, execution modes where the entry points end.
    std::vector<uint32_t> out(spirv.begin(), spirv.begin() + 5);
    out.reserve(spirv.size() + 8 + 4 * wanted.size() * entries.size());
    bool caps_done = false, modes_done = false, seen_entry = false;
    for (size_t i = 5; i < spirv.size();) {
        const uint32_t n = word_count(spirv[i]), op = opcode(spirv[i]);
        if (!caps_done && op != op_capability) {
            for (uint32_t c : new_caps) out.insert(out.end(), {head(op_capability, 2), c});
            if (needs_extension) {
                out.push_back(head(op_extension, static_cast<uint32_t>(1 + ext_words.size())));
                out.insert(out.end(), ext_words.begin(), ext_words.end());
            }
            caps_done = true;
        }
        if (seen_entry && !modes_done && op != op_entry_point) {
            for (uint32_t e : entries)
                for (auto [mode, width] : wanted)
                    if (!modes.count({e, mode, width}))
                        out.insert(out.end(), {head(op_execution_mode, 4), e, mode, width});
            modes_done = true;
        }
        seen_entry = seen_entry || op == op_entry_point;
        out.insert(out.end(), spirv.begin() + i, spirv.begin() + i + n);
        i += n;
    }
    return out;
}

} // namespace kiln::vk
