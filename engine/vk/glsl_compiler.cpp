#include "vk/glsl_compiler.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/SPIRV/spirv.hpp>
#include <glslang/build_info.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <system_error>
#include <unordered_map>

namespace kiln::vk {
namespace {

// glslang keeps process-wide tables: initialize them once, on first use, and
// never finalize, since another thread or context may still be compiling.
void ensure_glslang() {
    static const bool initialized = glslang::InitializeProcess();
    if (!initialized) throw Error("glslang::InitializeProcess failed; cannot compile GLSL");
}

bool is_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
        return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

std::string preamble_of(const std::vector<std::string>& defines) {
    std::string out;
    for (const std::string& d : defines) {
        const size_t eq = d.find('=');
        const std::string name = d.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : d.substr(eq + 1);
        if (!is_identifier(name) || value.find_first_of("\r\n") != std::string::npos)
            throw InvalidArgument("define '" + d +
                                  "' is malformed; give NAME or NAME=VALUE with NAME an "
                                  "identifier and VALUE on one line");
        out += "#define " + name + " " + value + "\n";
    }
    return out;
}

constexpr auto glslang_messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);

} // namespace

CompiledShader compile_glsl(std::string_view source, std::string_view entry,
                            const std::vector<std::string>& defines,
                            const std::string& name_for_errors) {
    if (!is_identifier(entry))
        throw InvalidArgument("entry point '" + std::string(entry) +
                              "' is not a GLSL function name (letters, digits, '_')");
    if (source.size() > static_cast<size_t>(INT_MAX))
        throw InvalidArgument(name_for_errors + ": source of " + std::to_string(source.size()) +
                              " bytes is too long for glslang (at most 2^31 - 1)");
    const std::string preamble = preamble_of(defines);
    const std::string entry_name(entry);
    ensure_glslang();

    glslang::TShader shader(EShLangCompute);
    const char* strings[] = {source.data()};
    const int lengths[] = {static_cast<int>(source.size())};
    const char* names[] = {name_for_errors.c_str()};
    shader.setStringsWithLengthsAndNames(strings, lengths, names, 1);
    shader.setPreamble(preamble.c_str());
    shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
    shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
    shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
    // GLSL's entry point is main; glslang can promote another function instead,
    // which keeps its own name in the SPIR-V.
    shader.setEntryPoint(entry_name.c_str());
    if (entry_name != "main") shader.setSourceEntryPoint(entry_name.c_str());

    if (!shader.parse(GetDefaultResources(), 450, false, glslang_messages)) {
        std::string log = shader.getInfoLog();
        // glslang notes this for any entry other than main, yet renames the
        // function as asked; the note would only mislead.
        const std::string note = "ERROR: Source entry point must be \"main\"\n";
        if (const size_t at = log.find(note); at != std::string::npos) log.erase(at, note.size());
        throw CompileError(name_for_errors + ": GLSL compilation failed:\n" + log, log);
    }
    glslang::TProgram program;
    program.addShader(&shader);
    if (!program.link(glslang_messages)) {
        const std::string log = program.getInfoLog();
        if (log.find("Missing entry point") != std::string::npos)
            throw InvalidArgument(name_for_errors + ": entry point '" + entry_name +
                                  "' not found; the source needs a function 'void " +
                                  entry_name + "()'");
        throw CompileError(name_for_errors + ": GLSL link failed:\n" + log, log);
    }
    std::vector<uint32_t> spirv;
    spv::SpvBuildLogger logger;
    glslang::SpvOptions options;
    glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &logger, &options);
    if (spirv.empty()) {
        const std::string log = logger.getAllMessages();
        throw CompileError(name_for_errors + ": SPIR-V generation failed:\n" + log, log);
    }
    return reflect_spirv(std::move(spirv), entry_name);
}

namespace {

// FNV-1a, 64 bits: a cache key, not a defence against collisions crafted on purpose.
struct Fnv1a {
    uint64_t h = 0xcbf29ce484222325ull;
    void bytes(std::string_view s) {
        for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
    }
    // Length first, so ("ab", "c") and ("a", "bc") differ.
    void field(std::string_view s) {
        bytes(std::to_string(s.size()) + ":");
        bytes(s);
    }
};

std::string cache_key(std::string_view source, std::string_view entry,
                      const std::vector<std::string>& defines) {
    Fnv1a f;
    // Bump the first field when the compile options above change.
    f.field("kiln-glsl-1 vulkan1.2 spv1.5");
    f.field(std::to_string(GLSLANG_VERSION_MAJOR) + "." + std::to_string(GLSLANG_VERSION_MINOR) +
            "." + std::to_string(GLSLANG_VERSION_PATCH) + GLSLANG_VERSION_FLAVOR);
    f.field(source);
    f.field(entry);
    f.field(std::to_string(defines.size()));
    for (const std::string& d : defines) f.field(d);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f.h));
    return hex;
}

bool read_words(const std::filesystem::path& path, std::vector<uint32_t>& words) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return false;
    const std::streamoff size = in.tellg();
    if (size <= 0 || size % 4 != 0) return false;
    words.resize(static_cast<size_t>(size) / 4);
    in.seekg(0);
    return static_cast<bool>(in.read(reinterpret_cast<char*>(words.data()), size));
}

void write_atomically(const std::filesystem::path& path, const std::vector<uint32_t>& words) {
    std::filesystem::create_directories(path.parent_path());
    std::random_device rd;
    const std::filesystem::path tmp =
        path.string() + ".tmp" + std::to_string(rd()) + std::to_string(rd());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(words.data()),
                  static_cast<std::streamsize>(words.size() * 4));
        if (!out.flush()) {
            out.close();
            std::filesystem::remove(tmp);
            return;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

} // namespace

CompiledShader compile_glsl_cached(std::string_view source, std::string_view entry,
                                   const std::vector<std::string>& defines,
                                   const std::filesystem::path& cache_dir,
                                   const std::string& name_for_errors) {
    if (cache_dir.empty()) return compile_glsl(source, entry, defines, name_for_errors);
    const std::filesystem::path path = cache_dir / (cache_key(source, entry, defines) + ".spv");
    std::vector<uint32_t> words;
    try {
        if (read_words(path, words)) return reflect_spirv(std::move(words), entry);
    } catch (const Error&) {
        // A damaged cache file is replaced below, never reported.
    }
    CompiledShader shader = compile_glsl(source, entry, defines, name_for_errors);
    try {
        write_atomically(path, shader.spirv);
    } catch (const std::exception&) {
        // Read-only or full disk: the shader is compiled, only the cache is lost.
    }
    return shader;
}

} // namespace kiln::vk

// SPIR-V reflection: one pass collecting names, decorations, types, constants,
// variables and execution modes, then the entry point's interface from them.
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

CompiledShader reflect_spirv(std::vector<uint32_t> spirv, std::string_view entry) {
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
