// Build-time generator of the kernel table: reads every built-in kernel's
// SPIR-V from the embedded registry, reflects it, and writes a C++ table in
// registry order (the order of shaders::Kernel): each kernel's name, the
// workgroup size the shader declares, the size of its push-constant block,
// its number of set-0 storage bindings and which of them it may write, and
// the images bound after them.
//   kiln_kernel_table_gen OUTPUT.cpp
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <string_view>

#include "ops/shader_registry.hpp"
#include "vk/glsl_compiler.hpp"


int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: kiln_kernel_table_gen OUTPUT.cpp\n");
        return 2;
    }
    std::ofstream out(argv[1]);
    out << "// Generated at build time by shaders/table/kernel_table.cpp from the built SPIR-V.\n"
           "#include \"ops/kernel_table.hpp\"\n\n"
           "namespace kiln::shaders {\n\n"
           "const KernelInfo kernel_info[] = {\n";
    for (size_t i = 0; i < kiln::shaders::registry_size; ++i) {
        const auto& e = kiln::shaders::registry[i];
        try {
            const kiln::vk::CompiledShader s = kiln::vk::reflect_spirv({e.code.begin(), e.code.end()}, {}, true);
            uint32_t bindings = 0;
            uint64_t writable = 0;
            for (const kiln::vk::BufferBinding& b : s.buffers) {
                if (b.set != 0) continue;
                if (b.binding >= 64) throw kiln::Error("binding " + std::to_string(b.binding) + " beyond 63");
                bindings = std::max(bindings, b.binding + 1);
                if (!b.readonly) writable |= uint64_t(1) << b.binding;
            }
            // Images follow the buffers: bindings, bindings + 1, ...
            std::string images;
            for (const kiln::vk::ImageBinding& b : s.images) {
                if (b.set != 0) continue;
                if (b.binding != bindings + images.size())
                    throw kiln::Error("image binding " + std::to_string(b.binding) +
                                      " does not follow the storage buffers and images before it");
                images += b.sampled ? 't' : 's';
            }
            out << "    {\"" << e.name << "\", {" << s.local_size[0] << ", " << s.local_size[1] << ", "
                << s.local_size[2] << "}, " << s.push_size << ", " << bindings << ", 0x" << std::hex << writable
                << std::dec << "ull, \"" << images << "\"},\n";
        } catch (const std::exception& ex) {
            std::fprintf(stderr, "kiln_kernel_table_gen: %.*s: %s\n", int(e.name.size()), e.name.data(), ex.what());
            return 1;
        }
    }
    out << "};\n\nstatic_assert(sizeof(kernel_info) / sizeof(kernel_info[0]) == kernel_count,\n"
           "              \"the kernel table and kernel_ids.hpp disagree\");\n\n"
           "}  // namespace kiln::shaders\n";
    return out ? 0 : 1;
}
