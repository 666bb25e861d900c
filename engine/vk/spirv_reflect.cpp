// SPIR-V reflection: one pass collecting names, decorations, types, constants,
// variables and execution modes, then the entry point's interface from them.
#include "vk/glsl_compiler.hpp"

#include <glslang/SPIRV/spirv.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

namespace kiln::vk {
namespace {

struct Decorations {
    std::optional<uint32_t> binding, set, spec_id, builtin, offset, array_stride, matrix_stride;
    bool non_writable = false, non_readable = false, buffer_block = false;

    void add(uint32_t decoration, std::span<const uint32_t> lit) {
        auto value = [&] { return lit.empty() ? 0u : lit[0]; };
        switch (decoration) {
        case spv::DecorationSpecId: spec_id = value(); break;
        case spv::DecorationBufferBlock: buffer_block = true; break;
        case spv::DecorationArrayStride: array_stride = value(); break;
        case spv::DecorationMatrixStride: matrix_stride = value(); break;
        case spv::DecorationBuiltIn: builtin = value(); break;
        case spv::DecorationNonWritable: non_writable = true; break;
        case spv::DecorationNonReadable: non_readable = true; break;
        case spv::DecorationBinding: binding = value(); break;
        case spv::DecorationDescriptorSet: set = value(); break;
        case spv::DecorationOffset: offset = value(); break;
        default: break;
        }
    }
};

struct Instr {
    uint32_t op = 0;
    std::span<const uint32_t> w; // operands, after the opcode word
};

[[noreturn]] void malformed(const std::string& why) {
    throw InvalidArgument("malformed SPIR-V module: " + why);
}

// A literal string from w[at]; sets `after` to the first word past it.
std::string literal_string(std::span<const uint32_t> w, size_t at, size_t* after = nullptr) {
    std::string s;
    for (size_t i = at; i < w.size(); ++i)
        for (int b = 0; b < 4; ++b) {
            const char c = static_cast<char>((w[i] >> (8 * b)) & 0xff);
            if (c == '\0') {
                if (after) *after = i + 1;
                return s;
            }
            s += c;
        }
    malformed("unterminated string");
}

class Module {
public:
    explicit Module(std::span<const uint32_t> words) {
        if (words.size() < 5 || words[0] != spv::MagicNumber)
            malformed("no SPIR-V header (magic number 0x07230203 and 5 words)");
        version_ = words[1];
        uint32_t last = 0;
        for (size_t i = 5; i < words.size();) {
            const uint32_t count = words[i] >> 16;
            if (count == 0 || count > words.size() - i) malformed("bad instruction length");
            const Instr in{words[i] & 0xffff, words.subspan(i + 1, count - 1)};
            collect(in);
            last = in.op;
            i += count;
        }
        // Functions come last; a module cut at an instruction boundary lacks the end.
        if (last != spv::OpFunctionEnd) malformed("truncated (does not end with OpFunctionEnd)");
    }

    uint32_t version() const { return version_; }
    const std::vector<Instr>& entry_points() const { return entry_points_; }
    const std::vector<Instr>& modes() const { return modes_; }
    const std::vector<Instr>& variables() const { return variables_; }
    const std::unordered_map<uint32_t, Instr>& defs() const { return defs_; }

    std::string name(uint32_t id) const {
        auto it = names_.find(id);
        return it == names_.end() ? "" : it->second;
    }
    std::string member_name(uint32_t id, uint32_t m) const {
        auto it = member_names_.find({id, m});
        return it == member_names_.end() ? "" : it->second;
    }
    Decorations deco(uint32_t id) const {
        auto it = decos_.find(id);
        return it == decos_.end() ? Decorations{} : it->second;
    }
    Decorations member_deco(uint32_t id, uint32_t m) const {
        auto it = member_decos_.find({id, m});
        return it == member_decos_.end() ? Decorations{} : it->second;
    }
    const Instr& def(uint32_t id, size_t min_operands) const {
        auto it = defs_.find(id);
        if (it == defs_.end() || it->second.w.size() < min_operands)
            malformed("id %" + std::to_string(id) + " is undefined or incomplete");
        return it->second;
    }

private:
    void collect(const Instr& in) {
        const auto& w = in.w;
        auto need = [&](size_t n) {
            if (w.size() < n) malformed("opcode " + std::to_string(in.op) + " too short");
        };
        switch (in.op) {
        case spv::OpName: need(2); names_[w[0]] = literal_string(w, 1); break;
        case spv::OpMemberName: need(3); member_names_[{w[0], w[1]}] = literal_string(w, 2); break;
        case spv::OpEntryPoint: need(3); entry_points_.push_back(in); break;
        case spv::OpExecutionMode:
        case spv::OpExecutionModeId: need(2); modes_.push_back(in); break;
        case spv::OpDecorate: need(2); decos_[w[0]].add(w[1], w.subspan(2)); break;
        case spv::OpMemberDecorate:
            need(3);
            member_decos_[{w[0], w[1]}].add(w[2], w.subspan(3));
            break;
        case spv::OpVariable: need(3); variables_.push_back(in); break;
        case spv::OpTypeBool: case spv::OpTypeInt: case spv::OpTypeFloat:
        case spv::OpTypeVector: case spv::OpTypeMatrix: case spv::OpTypeArray:
        case spv::OpTypeRuntimeArray: case spv::OpTypeStruct: case spv::OpTypePointer:
        case spv::OpTypeImage: case spv::OpTypeSampledImage:
            need(1); defs_[w[0]] = in; break;
        case spv::OpConstant: case spv::OpConstantComposite: case spv::OpSpecConstantTrue:
        case spv::OpSpecConstantFalse: case spv::OpSpecConstant: case spv::OpSpecConstantComposite:
            need(2); defs_[w[1]] = in; break;
        default: break;
        }
    }

    uint32_t version_ = 0;
    std::unordered_map<uint32_t, std::string> names_;
    std::map<std::pair<uint32_t, uint32_t>, std::string> member_names_;
    std::unordered_map<uint32_t, Decorations> decos_;
    std::map<std::pair<uint32_t, uint32_t>, Decorations> member_decos_;
    std::unordered_map<uint32_t, Instr> defs_;
    std::vector<Instr> entry_points_, modes_, variables_;
};

struct TypeInfo {
    ScalarType type = ScalarType::other;
    uint32_t components = 0, size = 0;
};

ScalarType scalar_of(const Instr& t) {
    const uint32_t width = t.w[1];
    if (t.op == spv::OpTypeFloat) {
        if (width == 32) return ScalarType::float32;
        return width == 64 ? ScalarType::float64 : ScalarType::other;
    }
    const bool s = t.w.size() > 2 && t.w[2] != 0;
    switch (width) {
    case 8: return s ? ScalarType::int8 : ScalarType::uint8;
    case 16: return s ? ScalarType::int16 : ScalarType::uint16;
    case 32: return s ? ScalarType::int32 : ScalarType::uint32;
    case 64: return s ? ScalarType::int64 : ScalarType::uint64;
    default: return ScalarType::other;
    }
}

// Type and byte size of a block member with explicit layout (offsets, strides).
TypeInfo type_info(const Module& m, uint32_t id, const Decorations& member, int depth = 0) {
    if (depth > 32) malformed("types nested too deeply");
    const Instr& t = m.def(id, 1);
    switch (t.op) {
    case spv::OpTypeInt:
    case spv::OpTypeFloat:
        if (t.w.size() < 2) malformed("scalar type without width");
        return {scalar_of(t), scalar_of(t) == ScalarType::other ? 0u : 1u, t.w[1] / 8};
    case spv::OpTypeBool: return {ScalarType::other, 0, 4};
    case spv::OpTypeVector: {
        if (t.w.size() < 3) malformed("vector type too short");
        const TypeInfo c = type_info(m, t.w[1], {}, depth + 1);
        return {c.type, c.type == ScalarType::other ? 0u : t.w[2], c.size * t.w[2]};
    }
    case spv::OpTypeMatrix: {
        if (t.w.size() < 3) malformed("matrix type too short");
        const uint32_t column =
            member.matrix_stride.value_or(type_info(m, t.w[1], {}, depth + 1).size);
        return {ScalarType::other, 0, column * t.w[2]};
    }
    case spv::OpTypeArray: {
        if (t.w.size() < 3) malformed("array type too short");
        const uint32_t length = m.def(t.w[2], 3).w[2];
        const uint32_t stride =
            m.deco(id).array_stride.value_or(type_info(m, t.w[1], {}, depth + 1).size);
        return {ScalarType::other, 0, length * stride};
    }
    case spv::OpTypeStruct: {
        uint32_t size = 0;
        for (uint32_t i = 0; i + 1 < t.w.size(); ++i) {
            const Decorations d = m.member_deco(id, i);
            const uint32_t member_size = type_info(m, t.w[i + 1], d, depth + 1).size;
            size = std::max(size, d.offset.value_or(0) + member_size);
        }
        return {ScalarType::other, 0, size};
    }
    default: return {}; // runtime arrays and opaque types have no size
    }
}

} // namespace

std::string_view scalar_type_name(ScalarType t) {
    switch (t) {
    case ScalarType::float32: return "float";
    case ScalarType::float64: return "double";
    case ScalarType::int32: return "int";
    case ScalarType::uint32: return "uint";
    case ScalarType::int64: return "int64_t";
    case ScalarType::uint64: return "uint64_t";
    case ScalarType::int16: return "int16_t";
    case ScalarType::uint16: return "uint16_t";
    case ScalarType::int8: return "int8_t";
    case ScalarType::uint8: return "uint8_t";
    case ScalarType::other: break;
    }
    return "other";
}

CompiledShader reflect_spirv(std::vector<uint32_t> spirv, std::string_view entry, bool images) {
    const Module m(spirv);
    CompiledShader out;

    const Instr* ep = nullptr;
    std::string available;
    size_t interface_at = 0;
    for (const Instr& e : m.entry_points()) {
        if (e.w[0] != spv::ExecutionModelGLCompute) continue;
        size_t after = 0;
        const std::string name = literal_string(e.w, 2, &after);
        available += (available.empty() ? "" : ", ") + name;
        if (!ep && (entry.empty() || name == entry)) {
            ep = &e;
            out.entry = name;
            interface_at = after;
        }
    }
    if (!ep)
        throw InvalidArgument("SPIR-V module has no compute entry point" +
                              (entry.empty() ? std::string() : " '" + std::string(entry) + "'") +
                              (available.empty() ? "" : "; it has: " + available));
    const uint32_t entry_id = ep->w[1];

    // Workgroup size: LocalSize literals, LocalSizeId ids, and the WorkgroupSize
    // built-in constant, which overrides both.
    auto size_from = [&](uint32_t dim, uint32_t id) {
        const Instr& c = m.def(id, 3);
        if (c.op != spv::OpConstant && c.op != spv::OpSpecConstant)
            malformed("workgroup size is not a constant");
        out.local_size[dim] = c.w[2];
        const auto spec = m.deco(id).spec_id;
        out.local_size_is_spec[dim] = c.op == spv::OpSpecConstant && spec.has_value();
        out.local_size_spec_id[dim] = out.local_size_is_spec[dim] ? *spec : 0;
    };
    for (const Instr& mode : m.modes()) {
        if (mode.w[0] != entry_id || mode.w.size() < 5) continue;
        const bool literal =
            mode.op == spv::OpExecutionMode && mode.w[1] == spv::ExecutionModeLocalSize;
        const bool by_id =
            mode.op == spv::OpExecutionModeId && mode.w[1] == spv::ExecutionModeLocalSizeId;
        for (uint32_t d = 0; d < 3; ++d) {
            if (literal) out.local_size[d] = mode.w[2 + d];
            if (by_id) size_from(d, mode.w[2 + d]);
        }
    }
    for (const auto& [id, def] : m.defs())
        if ((def.op == spv::OpConstantComposite || def.op == spv::OpSpecConstantComposite) &&
            m.deco(id).builtin == spv::BuiltInWorkgroupSize) {
            if (def.w.size() < 5) malformed("WorkgroupSize has fewer than 3 components");
            for (uint32_t d = 0; d < 3; ++d) size_from(d, def.w[2 + d]);
        }

    // From SPIR-V 1.4 the entry point lists every global it uses; before, all count.
    const bool filter = m.version() >= 0x00010400;
    const std::span<const uint32_t> used = ep->w.subspan(std::min(interface_at, ep->w.size()));
    bool have_push = false;
    for (const Instr& var : m.variables()) {
        const uint32_t id = var.w[1], storage = var.w[2];
        const bool resource = storage == spv::StorageClassStorageBuffer ||
                              storage == spv::StorageClassUniform ||
                              storage == spv::StorageClassUniformConstant ||
                              storage == spv::StorageClassPushConstant;
        if (!resource || (filter && std::find(used.begin(), used.end(), id) == used.end()))
            continue;
        const uint32_t type_id = m.def(var.w[0], 3).w[2];
        const Decorations vd = m.deco(id);
        const std::string label = m.name(id).empty() ? m.name(type_id) : m.name(id);
        const std::string where = " '" + label + "' (set " + std::to_string(vd.set.value_or(0)) +
                                  ", binding " + std::to_string(vd.binding.value_or(0)) + ")";
        if (storage == spv::StorageClassUniformConstant && images) {
            const Instr& t = m.def(type_id, 1);
            const bool sampled = t.op == spv::OpTypeSampledImage;
            // OpTypeImage's Sampled operand: 2, read and written without a sampler.
            if (!sampled && !(t.op == spv::OpTypeImage && t.w.size() > 6 && t.w[6] == 2))
                throw Unsupported("kernel declares a sampler or image kind kiln does not bind" + where);
            out.images.push_back({vd.set.value_or(0), vd.binding.value_or(0), sampled});
            continue;
        }
        if (storage == spv::StorageClassUniformConstant)
            throw Unsupported("kernel declares an image, sampler or other opaque resource" +
                              where + "; kernels take 'buffer' blocks and push constants only");
        const Instr& type = m.def(type_id, 1);
        if (type.op != spv::OpTypeStruct)
            throw Unsupported("kernel declares an array of blocks" + where +
                              "; declare one 'buffer' block per binding");
        if (storage == spv::StorageClassUniform && !m.deco(type_id).buffer_block)
            throw Unsupported("kernel declares a uniform block" + where +
                              "; use a 'buffer' block or the push-constant block instead");
        const uint32_t members = static_cast<uint32_t>(type.w.size() - 1);
        if (storage == spv::StorageClassPushConstant) {
            if (have_push) malformed("two push-constant blocks for one entry point");
            have_push = true;
            for (uint32_t i = 0; i < members; ++i) {
                const Decorations d = m.member_deco(type_id, i);
                const TypeInfo ti = type_info(m, type.w[i + 1], d);
                out.push.push_back({m.member_name(type_id, i), d.offset.value_or(0), ti.size,
                                    ti.type, ti.components});
                out.push_size = std::max(out.push_size, d.offset.value_or(0) + ti.size);
            }
            out.push_size = (out.push_size + 3) / 4 * 4;
            continue;
        }
        BufferBinding b{vd.set.value_or(0), vd.binding.value_or(0), label, vd.non_writable,
                        vd.non_readable};
        bool all_nw = members > 0, all_nr = members > 0;
        for (uint32_t i = 0; i < members; ++i) {
            all_nw = all_nw && m.member_deco(type_id, i).non_writable;
            all_nr = all_nr && m.member_deco(type_id, i).non_readable;
        }
        b.readonly = b.readonly || all_nw;
        b.writeonly = b.writeonly || all_nr;
        out.buffers.push_back(std::move(b));
    }
    std::sort(out.buffers.begin(), out.buffers.end(), [](const auto& a, const auto& b) {
        return std::pair{a.set, a.binding} < std::pair{b.set, b.binding};
    });
    std::sort(out.images.begin(), out.images.end(), [](const auto& a, const auto& b) {
        return std::pair{a.set, a.binding} < std::pair{b.set, b.binding};
    });
    std::stable_sort(out.push.begin(), out.push.end(),
                     [](const auto& a, const auto& b) { return a.offset < b.offset; });

    for (const auto& [id, def] : m.defs()) {
        const auto spec = m.deco(id).spec_id;
        if (!spec || (def.op != spv::OpSpecConstant && def.op != spv::OpSpecConstantTrue &&
                      def.op != spv::OpSpecConstantFalse))
            continue;
        std::string name = m.name(id);
        for (uint32_t d = 0; d < 3 && name.empty(); ++d)
            if (out.local_size_is_spec[d] && out.local_size_spec_id[d] == *spec)
                name = std::string("local_size_") + "xyz"[d];
        out.spec_constants.push_back({*spec, name});
    }
    std::sort(out.spec_constants.begin(), out.spec_constants.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });

    out.spirv = std::move(spirv);
    return out;
}

} // namespace kiln::vk
