// kiln::Kernel: run-time GLSL compiled with glslang (vk/glsl_compiler), its
// interface checked at launch, dispatched through ops::Dispatcher so it joins
// the graph like any built-in op.
#include "kiln/kernel.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>

#include "ops/kernel.hpp"
#include "vk/glsl_compiler.hpp"

namespace kiln {

struct Kernel::Impl {
    Context ctx;
    std::string name, profile_name;
    std::shared_ptr<const vk::CompiledShader> shader;
    std::vector<KernelBinding> bindings;  // one per binding number, sorted
    std::vector<KernelParam> params;
    std::array<bool, 3> tunable_dim{false, false, false};

    std::string where() const { return "kernel '" + name + "'"; }
    // The source's size, with a tuned one for the dimensions it takes from
    // specialization constants 0-2.
    std::array<uint32_t, 3> local_size() const {
        std::array<uint32_t, 3> l = shader->local_size;
        if (auto tuned = ctx.workgroup_size(name))
            for (int d = 0; d < 3; ++d)
                if (tunable_dim[d]) l[d] = (*tuned)[d];
        return l;
    }
};

struct Kernel::Launch::State {
    std::shared_ptr<const Impl> k;
    std::vector<Array> arrays;
    std::vector<std::byte> push;
    std::vector<bool> set;
};

namespace {

constexpr uint32_t max_push_bytes = 128;  // Vulkan's guaranteed maxPushConstantsSize

// Dispatches are cached (pipelines, shader modules) by name, so distinct code
// under one name gets a distinct profile name: the first keeps the name, later
// ones get "#2", "#3"... The same code keeps its name in every context.
std::string profile_name_for(const std::string& name, const std::vector<uint32_t>& spirv) {
    static std::mutex mutex;
    static std::map<std::string, std::vector<uint64_t>> seen;
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t w : spirv)
        for (int b = 0; b < 4; ++b) h = (h ^ ((w >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    std::lock_guard lock(mutex);
    auto& hashes = seen[name];
    size_t i = 0;
    while (i < hashes.size() && hashes[i] != h) ++i;
    if (i == hashes.size()) hashes.push_back(h);
    return i == 0 ? name : name + "#" + std::to_string(i + 1);
}

void check_name(const std::string& name) {
    if (name.empty() || name.find_first_of(" \t\r\n#") != std::string::npos)
        throw InvalidArgument("kernel name '" + name + "' is not accepted: give a non-empty name without spaces or '#'");
    if (ops::is_builtin_kernel(name))
        throw InvalidArgument("kernel name '" + name + "' is the name of a built-in kernel; choose another name");
}

// GLSL's spelling of a member's type: "uint", "vec4", "i64vec2", ...
std::string type_name(const vk::PushMember& m) {
    using vk::ScalarType;
    if (m.components <= 1 || m.type == ScalarType::other) return std::string(vk::scalar_type_name(m.type));
    const char* prefix = "";
    switch (m.type) {
    case ScalarType::float64: prefix = "d"; break;
    case ScalarType::int32: prefix = "i"; break;
    case ScalarType::uint32: prefix = "u"; break;
    case ScalarType::int64: prefix = "i64"; break;
    case ScalarType::uint64: prefix = "u64"; break;
    case ScalarType::int16: prefix = "i16"; break;
    case ScalarType::uint16: prefix = "u16"; break;
    case ScalarType::int8: prefix = "i8"; break;
    case ScalarType::uint8: prefix = "u8"; break;
    default: break;
    }
    return prefix + std::string("vec") + std::to_string(m.components);
}

bool is_integer(vk::ScalarType t) { return t != vk::ScalarType::float32 && t != vk::ScalarType::float64; }

// Writes v as member m's type into dst, or throws saying why it cannot.
void put(const std::string& where, const vk::PushMember& m, const Scalar& v, std::byte* dst) {
    const std::string what = where + ": push constant '" + m.name + "' is " + type_name(m) + "; ";
    using vk::ScalarType;
    if (m.components != 1 || m.type == ScalarType::other)
        throw InvalidArgument(what + "set it with push_bytes (a Scalar sets int, uint, float and double members)");
    if (is_integer(m.type)) {
        if (!v.is_integer())
            throw InvalidArgument(what + v.str() + " is not an integer; pass an integer of a type that fits");
        // The member's range, and whether v lies in it.
        auto fits = [&](int64_t lo, uint64_t hi) {
            if (v.kind() == Scalar::Kind::signed_integer)
                return v.signed_value() >= lo && (v.signed_value() < 0 || uint64_t(v.signed_value()) <= hi);
            return v.unsigned_value() <= hi;
        };
        const uint64_t bits = v.kind() == Scalar::Kind::signed_integer ? uint64_t(v.signed_value()) : v.unsigned_value();
        bool ok = false;
        switch (m.type) {
        case ScalarType::int8: ok = fits(INT8_MIN, INT8_MAX); break;
        case ScalarType::uint8: ok = fits(0, UINT8_MAX); break;
        case ScalarType::int16: ok = fits(INT16_MIN, INT16_MAX); break;
        case ScalarType::uint16: ok = fits(0, UINT16_MAX); break;
        case ScalarType::int32: ok = fits(INT32_MIN, INT32_MAX); break;
        case ScalarType::uint32: ok = fits(0, UINT32_MAX); break;
        case ScalarType::int64: ok = fits(INT64_MIN, INT64_MAX); break;
        default: ok = fits(0, UINT64_MAX); break;
        }
        if (!ok) throw InvalidArgument(what + v.str() + " is outside its range");
        // Little-endian: the low bytes of the two's complement value are the member's.
        std::memcpy(dst, &bits, m.size);
        return;
    }
    if (v.is_integer())
        throw InvalidArgument(what + v.str() + " is an integer; pass a " + type_name(m) +
                              (m.type == ScalarType::float32 ? " (e.g. 2.0f)" : " (e.g. 2.0)"));
    const double x = v.float_value();
    if (m.type == ScalarType::float64) {
        std::memcpy(dst, &x, sizeof x);
        return;
    }
    const auto f = static_cast<float>(x);
    if (v.kind() == Scalar::Kind::float64 && static_cast<double>(f) != x && !std::isnan(x))
        throw InvalidArgument(what + v.str() + " is not exactly a float; pass a float (" + std::to_string(x) + "f)");
    std::memcpy(dst, &f, sizeof f);
}

} // namespace

std::string Scalar::str() const {
    std::ostringstream s;
    s.precision(17);
    switch (kind_) {
    case Kind::signed_integer: s << i_ << " (signed integer)"; break;
    case Kind::unsigned_integer: s << u_ << " (unsigned integer)"; break;
    case Kind::float32: s << f_ << " (float)"; break;
    case Kind::float64: s << f_ << " (double)"; break;
    }
    return s.str();
}

std::string cache_directory(const Context& ctx) {
    const std::string& o = ops::services(ctx).options().cache_dir;
    if (!o.empty()) return o;
    if (const char* d = std::getenv("KILN_CACHE_DIR"); d && *d) return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return (std::filesystem::path(d) / "kiln").string();
    if (const char* d = std::getenv("HOME"); d && *d) return (std::filesystem::path(d) / ".cache" / "kiln").string();
    return {};
}

Kernel::Kernel(const Context& ctx, std::string_view source, std::string_view entry)
    : Kernel(ctx, source, entry, {}, {}) {}

Kernel::Kernel(const Context& ctx, std::string_view source, std::string_view entry,
               const std::vector<std::string>& defines, std::string name) {
    if (name.empty()) name = entry == "main" ? "kernel" : std::string(entry);
    check_name(name);
    const std::string dir = cache_directory(ctx);
    vk::CompiledShader compiled;
    try {
        compiled = vk::compile_glsl_cached(source, entry, defines,
                                           dir.empty() ? std::filesystem::path() : std::filesystem::path(dir) / "kernels",
                                           name);
    } catch (const vk::CompileError& e) {
        throw CompileError(e.what(), e.log());
    }
    auto impl = std::make_shared<Impl>(Impl{ctx, name, {}, {}, {}, {}, {}});
    const std::string where = impl->where();

    for (const vk::BufferBinding& b : compiled.buffers) {
        if (b.set != 0)
            throw Unsupported(where + ": buffer '" + b.name + "' is in descriptor set " + std::to_string(b.set) +
                              "; kiln binds set 0 only (drop the set qualifier)");
        // Blocks aliasing one binding share it: read-only only if all are.
        if (!impl->bindings.empty() && impl->bindings.back().binding == b.binding) {
            impl->bindings.back().readonly &= b.readonly;
            impl->bindings.back().writeonly &= b.writeonly;
            continue;
        }
        impl->bindings.push_back({b.binding, b.name, b.readonly, b.writeonly});
    }
    if (compiled.push_size > max_push_bytes)
        throw Unsupported(where + ": its push-constant block takes " + std::to_string(compiled.push_size) +
                          " bytes; kiln passes at most " + std::to_string(max_push_bytes) +
                          " (put larger data in a buffer)");
    for (const vk::PushMember& m : compiled.push)
        impl->params.push_back({m.name, type_name(m), m.offset, m.size,
                                m.components == 1 && m.type != vk::ScalarType::other});
    for (uint32_t d = 0; d < 3; ++d)
        impl->tunable_dim[d] = compiled.local_size_is_spec[d] && compiled.local_size_spec_id[d] == d;
    for (const vk::SpecConstant& s : compiled.spec_constants)
        if (s.id <= 2 && !impl->tunable_dim[s.id])
            throw Unsupported(where + ": specialization constant " + std::to_string(s.id) + " ('" + s.name +
                              "') is not the workgroup size; kiln sets constant_id 0-2 to the workgroup size "
                              "(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2): use ids from 3 on");
    impl->profile_name = profile_name_for(name, compiled.spirv);
    impl->shader = std::make_shared<const vk::CompiledShader>(std::move(compiled));
    impl_ = std::move(impl);
}

Kernel Kernel::from_file(const Context& ctx, const std::string& path, std::string_view entry,
                         const std::vector<std::string>& defines, std::string name) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("kernel source '" + path + "' cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    if (name.empty()) name = entry == "main" ? std::filesystem::path(path).stem().string() : std::string(entry);
    return Kernel(ctx, text.str(), entry, defines, name);
}

const std::string& Kernel::name() const { return impl_->name; }
const std::string& Kernel::profile_name() const { return impl_->profile_name; }
const std::vector<KernelBinding>& Kernel::bindings() const { return impl_->bindings; }
const std::vector<KernelParam>& Kernel::params() const { return impl_->params; }

std::array<uint32_t, 3> Kernel::local_size() const { return impl_->local_size(); }

bool Kernel::tunable() const {
    return impl_->tunable_dim[0] || impl_->tunable_dim[1] || impl_->tunable_dim[2];
}

std::string Kernel::signature() const {
    std::string s = impl_->name + ": buffers";
    for (const KernelBinding& b : impl_->bindings)
        s += " " + std::to_string(b.binding) + ":" + b.name +
             (b.readonly ? " (readonly)" : b.writeonly ? " (writeonly)" : " (read-write)") + ",";
    if (impl_->bindings.empty()) s += " none,";
    s.back() = ';';
    s += " push constants";
    for (const KernelParam& p : impl_->params) s += " " + p.type + " " + p.name + ",";
    if (impl_->params.empty()) s += " none,";
    s.back() = ';';
    const auto l = local_size();
    s += " workgroup " + std::to_string(l[0]) + "x" + std::to_string(l[1]) + "x" + std::to_string(l[2]) +
         (tunable() ? " (tunable)" : "");
    return s;
}

Kernel::Launch Kernel::operator()(const std::vector<Array>& arrays) const {
    const Impl& k = *impl_;
    if (arrays.size() != k.bindings.size()) {
        std::string list;
        for (const KernelBinding& b : k.bindings) list += (list.empty() ? "" : ", ") + std::to_string(b.binding) + " '" + b.name + "'";
        throw InvalidArgument(k.where() + " has " + std::to_string(k.bindings.size()) + " storage buffer(s) (" +
                              (list.empty() ? "none" : list) + ") but " + std::to_string(arrays.size()) +
                              " array(s) were given; pass one array per buffer, in binding order");
    }
    for (size_t i = 0; i < arrays.size(); ++i) {
        if (!arrays[i])
            throw InvalidArgument(k.where() + ": the array for binding " + std::to_string(k.bindings[i].binding) +
                                  " '" + k.bindings[i].name + "' is a null Array");
        if (!(arrays[i].context() == k.ctx))
            throw InvalidArgument(k.where() + ": the array for binding " + std::to_string(k.bindings[i].binding) +
                                  " belongs to another context than the kernel");
    }
    auto s = std::make_shared<Launch::State>();
    s->k = impl_;
    s->arrays = arrays;
    s->push.assign(k.shader->push_size, std::byte{0});
    s->set.assign(k.shader->push.size(), false);
    return Launch(std::move(s));
}

Kernel::Launch& Kernel::Launch::push(std::string_view member, Scalar value) {
    const auto& members = s_->k->shader->push;
    for (size_t i = 0; i < members.size(); ++i)
        if (members[i].name == member) {
            put(s_->k->where(), members[i], value, s_->push.data() + members[i].offset);
            s_->set[i] = true;
            return *this;
        }
    std::string names;
    for (const auto& m : members) names += (names.empty() ? "" : ", ") + m.name;
    throw InvalidArgument(s_->k->where() + " has no push constant '" + std::string(member) + "'; it has: " +
                          (names.empty() ? "none" : names));
}

Kernel::Launch& Kernel::Launch::push(Scalar value) {
    const auto& members = s_->k->shader->push;
    for (size_t i = 0; i < members.size(); ++i)
        if (!s_->set[i]) return push(members[i].name, value);
    throw InvalidArgument(s_->k->where() + " takes " + std::to_string(members.size()) +
                          " push constant(s) and all are set; " + value.str() + " is one too many");
}

Kernel::Launch& Kernel::Launch::push_bytes(std::string_view member, const void* data, size_t bytes) {
    const auto& members = s_->k->shader->push;
    for (size_t i = 0; i < members.size(); ++i)
        if (members[i].name == member) {
            if (bytes != members[i].size)
                throw InvalidArgument(s_->k->where() + ": push constant '" + members[i].name + "' (" +
                                      type_name(members[i]) + ") takes " + std::to_string(members[i].size) +
                                      " bytes; " + std::to_string(bytes) + " were given");
            std::memcpy(s_->push.data() + members[i].offset, data, bytes);
            s_->set[i] = true;
            return *this;
        }
    throw InvalidArgument(s_->k->where() + " has no push constant '" + std::string(member) + "'");
}

void Kernel::Launch::grid(uint64_t x, uint64_t y, uint64_t z) {
    if (x == 0 || y == 0 || z == 0)
        throw InvalidArgument(s_->k->where() + ": global size " + std::to_string(x) + "x" + std::to_string(y) + "x" +
                              std::to_string(z) + " has a zero extent; give at least 1 invocation per dimension");
    const auto l = s_->k->local_size();
    auto g = [](uint64_t n, uint32_t local) {
        return static_cast<uint32_t>(std::min<uint64_t>((n + local - 1) / local, UINT32_MAX));
    };
    groups(g(x, l[0]), g(y, l[1]), g(z, l[2]));
}

void Kernel::Launch::groups(uint32_t x, uint32_t y, uint32_t z) {
    const Impl& k = *s_->k;
    if (x == 0 || y == 0 || z == 0)
        throw InvalidArgument(k.where() + ": " + std::to_string(x) + "x" + std::to_string(y) + "x" +
                              std::to_string(z) + " workgroups has a zero extent; give at least 1 per dimension");
    std::string missing;
    for (size_t i = 0; i < s_->set.size(); ++i)
        if (!s_->set[i]) missing += (missing.empty() ? "'" : ", '") + k.shader->push[i].name + "' (" + type_name(k.shader->push[i]) + ")";
    if (!missing.empty())
        throw InvalidArgument(k.where() + ": push constant " + missing +
                              " not set; set every member of the push-constant block before launching");
    ops::Dispatcher d(ops::services(k.ctx), k.profile_name, k.shader->spirv, k.shader, k.shader->entry,
                      k.local_size());
    // Bindings 0..max in order; a number the source skips gets a placeholder.
    Array placeholder;
    size_t next = 0;
    const uint32_t slots = k.bindings.empty() ? 0 : k.bindings.back().binding + 1;
    for (uint32_t b = 0; b < slots; ++b) {
        if (k.bindings[next].binding != b) {
            if (!placeholder) placeholder = Array::zeros(k.ctx, Shape{1}, DType::uint32);
            d.read(placeholder);
            continue;
        }
        const KernelBinding& kb = k.bindings[next];
        const Array& a = s_->arrays[next++];
        if (kb.readonly) d.read(a);
        else if (kb.writeonly) d.write(a);
        else d.read_write(a);
    }
    if (!s_->push.empty()) d.push_raw(s_->push.data(), s_->push.size());
    d.groups(x, y, z).record();
}

void Kernel::launch(const std::vector<Array>& arrays, const std::vector<Scalar>& scalars,
                    std::array<uint64_t, 3> global) const {
    Launch l = (*this)(arrays);
    for (const Scalar& s : scalars) l.push(s);
    l.grid(global[0], global[1], global[2]);
}

} // namespace kiln
