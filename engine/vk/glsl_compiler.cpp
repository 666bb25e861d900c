#include "vk/glsl_compiler.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/build_info.h>

#include <cctype>
#include <climits>
#include <cstdio>
#include <fstream>
#include <random>
#include <system_error>

namespace kiln::vk {
namespace {

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

} // namespace

void ensure_glslang() {
    static const bool initialized = glslang::InitializeProcess();
    if (!initialized) throw Error("glslang::InitializeProcess failed; cannot compile GLSL");
}

namespace {

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
