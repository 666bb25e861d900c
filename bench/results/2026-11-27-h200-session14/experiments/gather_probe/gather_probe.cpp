// W74 experiment: a bilinear gather of 4M random points from a G x G float32
// image, through a storage buffer (in a 256 MiB block, in an allocation of its
// own, at an offset off any 2 MiB boundary), a uniform texel buffer, and a
// VkImage of optimal tiling (texelFetch x4, textureGather). Raw Vulkan, GPU
// times from timestamp queries (median of 30 back-to-back dispatches).
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                  \
    do {                                                                       \
        VkResult r_ = (x);                                                     \
        if (r_ != VK_SUCCESS) {                                                \
            std::fprintf(stderr, "%s failed: %d (line %d)\n", #x, r_, __LINE__); \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

static VkDevice dev;
static VkPhysicalDevice phys;
static VkPhysicalDeviceMemoryProperties mp;
static VkQueue queue;
static uint32_t qfam;
static VkCommandPool pool;
static float ts_period;

static uint32_t mem_type(uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
    std::fprintf(stderr, "no memory type\n");
    std::exit(1);
}

struct Buf {
    VkBuffer b = VK_NULL_HANDLE;
    VkDeviceMemory m = VK_NULL_HANDLE;
    VkDeviceSize off = 0, size = 0;
    void* map = nullptr;
};

static VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;

// A buffer of `size` bytes bound at `off` in an allocation of `alloc` bytes.
static Buf make_buf(VkDeviceSize size, VkDeviceSize alloc, VkDeviceSize off, bool host) {
    Buf r;
    r.size = size;
    r.off = off;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = kUsage;
    CK(vkCreateBuffer(dev, &bci, nullptr, &r.b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, r.b, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = std::max(alloc, off + req.size);
    ai.memoryTypeIndex = mem_type(req.memoryTypeBits, host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                           : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CK(vkAllocateMemory(dev, &ai, nullptr, &r.m));
    CK(vkBindBufferMemory(dev, r.b, r.m, off));
    if (host) CK(vkMapMemory(dev, r.m, off, size, 0, &r.map));
    return r;
}

static VkCommandBuffer begin() {
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cb;
    CK(vkAllocateCommandBuffers(dev, &cai, &cb));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CK(vkBeginCommandBuffer(cb, &bi));
    return cb;
}
static void submit(VkCommandBuffer cb) {
    CK(vkEndCommandBuffer(cb));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    CK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
    CK(vkQueueWaitIdle(queue));
    vkFreeCommandBuffers(dev, pool, 1, &cb);
}
static void barrier(VkCommandBuffer cb) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                         nullptr, 0, nullptr);
}
static void copy(const Buf& s, const Buf& d, VkDeviceSize n) {
    VkCommandBuffer cb = begin();
    VkBufferCopy c{0, 0, n};
    vkCmdCopyBuffer(cb, s.b, d.b, 1, &c);
    submit(cb);
}

static std::vector<uint32_t> load_spv(const std::string& path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) {
        std::fprintf(stderr, "no %s\n", path.c_str());
        std::exit(1);
    }
    size_t n = f.tellg();
    std::vector<uint32_t> v(n / 4);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(v.data()), n);
    return v;
}

struct Pipe {
    VkDescriptorSetLayout dsl;
    VkPipelineLayout pl;
    VkPipeline p;
};

static Pipe make_pipe(const std::string& spv, VkDescriptorType t0, VkDescriptorType t2 = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, int lx = -1, int ly = -1) {
    Pipe r;
    VkDescriptorSetLayoutBinding b[3] = {};
    for (int i = 0; i < 3; ++i) {
        b[i].binding = i;
        b[i].descriptorCount = 1;
        b[i].descriptorType = i == 0 ? t0 : i == 2 ? t2 : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dci.bindingCount = 3;
    dci.pBindings = b;
    CK(vkCreateDescriptorSetLayout(dev, &dci, nullptr, &r.dsl));
    VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, 12};
    VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pci.setLayoutCount = 1;
    pci.pSetLayouts = &r.dsl;
    pci.pushConstantRangeCount = 1;
    pci.pPushConstantRanges = &pcr;
    CK(vkCreatePipelineLayout(dev, &pci, nullptr, &r.pl));
    auto code = load_spv(spv);
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = code.size() * 4;
    smci.pCode = code.data();
    VkShaderModule sm;
    CK(vkCreateShaderModule(dev, &smci, nullptr, &sm));
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = sm;
    cpci.stage.pName = "main";
    cpci.layout = r.pl;
    int32_t spec[2] = {lx, ly};
    VkSpecializationMapEntry me[2] = {{0, 0, 4}, {1, 4, 4}};
    VkSpecializationInfo si{2, me, 8, spec};
    if (lx >= 0) cpci.stage.pSpecializationInfo = &si;
    CK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &r.p));
    return r;
}

static VkDescriptorPool dpool;

static VkDescriptorSet make_set(const Pipe& p, VkDescriptorType t0, const Buf* src, VkBufferView view,
                                VkImageView iv, VkSampler smp, const Buf& co, const Buf& out,
                                VkImageLayout lay = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                VkImageView out_image = VK_NULL_HANDLE) {
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = dpool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &p.dsl;
    VkDescriptorSet s;
    CK(vkAllocateDescriptorSets(dev, &ai, &s));
    VkDescriptorBufferInfo bi[3] = {};
    if (src) bi[0] = {src->b, 0, src->size};
    bi[1] = {co.b, 0, co.size};
    bi[2] = {out.b, 0, out.size};
    VkDescriptorImageInfo ii{smp, iv, lay}, oi{VK_NULL_HANDLE, out_image, VK_IMAGE_LAYOUT_GENERAL};
    VkWriteDescriptorSet w[3] = {};
    for (int i = 0; i < 3; ++i) {
        w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w[i].dstSet = s;
        w[i].dstBinding = i;
        w[i].descriptorCount = 1;
        w[i].descriptorType = i == 0 ? t0 : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &bi[i];
    }
    if (t0 == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER) {
        w[0].pBufferInfo = nullptr;
        w[0].pTexelBufferView = &view;
    } else if (t0 == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) {
        w[0].pBufferInfo = nullptr;
        w[0].pImageInfo = &ii;
    }
    if (out_image) {
        w[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        w[2].pBufferInfo = nullptr;
        w[2].pImageInfo = &oi;
    }
    vkUpdateDescriptorSets(dev, 3, w, 0, nullptr);
    return s;
}

static VkQueryPool qp;
static const int kRep = 30;

// GPU ms of one dispatch of (gx, gy) workgroups.
static double once(const Pipe& p, VkDescriptorSet s, int G, uint32_t n, uint32_t gx, uint32_t gy) {
    VkCommandBuffer cb = begin();
    vkCmdResetQueryPool(cb, qp, 0, 2);
    int32_t pc[3] = {G, G, int32_t(n)};
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.p);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pl, 0, 1, &s, 0, nullptr);
    vkCmdPushConstants(cb, p.pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 12, pc);
    for (int r = 0; r < 4; ++r) {  // the last of 4
        vkCmdResetQueryPool(cb, qp, 0, 2);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
        vkCmdDispatch(cb, gx, gy, 1);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
        barrier(cb);
    }
    submit(cb);
    uint64_t t[2];
    CK(vkGetQueryPoolResults(dev, qp, 0, 2, 16, t, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    return (t[1] - t[0]) * ts_period * 1e-6;
}

// Median GPU ms of kRep dispatches recorded back to back (a barrier between).
static double time_it(const Pipe& p, VkDescriptorSet s, int G, uint32_t n) {
    VkCommandBuffer cb = begin();
    vkCmdResetQueryPool(cb, qp, 0, 2 * (kRep + 3));
    int32_t pc[3] = {G, G, int32_t(n)};
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.p);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pl, 0, 1, &s, 0, nullptr);
    vkCmdPushConstants(cb, p.pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 12, pc);
    for (int r = 0; r < kRep + 3; ++r) {
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 2 * r);
        vkCmdDispatch(cb, (n + 255) / 256, 1, 1);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 2 * r + 1);
        barrier(cb);
    }
    submit(cb);
    std::vector<uint64_t> t(2 * (kRep + 3));
    CK(vkGetQueryPoolResults(dev, qp, 0, 2 * (kRep + 3), t.size() * 8, t.data(), 8,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    std::vector<double> ms;
    for (int r = 3; r < kRep + 3; ++r) ms.push_back((t[2 * r + 1] - t[2 * r]) * ts_period * 1e-6);
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

int main(int argc, char** argv) {
    std::string dir = argc > 1 ? argv[1] : ".";
    std::vector<int> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty()) sizes = {1024, 1448, 2048, 2896, 4096};

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance inst;
    CK(vkCreateInstance(&ici, nullptr, &inst));
    uint32_t np = 0;
    vkEnumeratePhysicalDevices(inst, &np, nullptr);
    std::vector<VkPhysicalDevice> pds(np);
    vkEnumeratePhysicalDevices(inst, &np, pds.data());
    phys = pds[0];
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    ts_period = props.limits.timestampPeriod;
    std::printf("device %s, maxTexelBufferElements %u\n", props.deviceName, props.limits.maxTexelBufferElements);
    vkGetPhysicalDeviceMemoryProperties(phys, &mp);
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf.data());
    for (qfam = 0; qfam < nq; ++qfam)
        if (qf[qfam].queueFlags & VK_QUEUE_COMPUTE_BIT) break;
    float prio = 1;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = qfam;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    CK(vkCreateDevice(phys, &dci, nullptr, &dev));
    vkGetDeviceQueue(dev, qfam, 0, &queue);
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = qfam;
    CK(vkCreateCommandPool(dev, &cpi, nullptr, &pool));
    VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = 2 * (kRep + 3);
    CK(vkCreateQueryPool(dev, &qpci, nullptr, &qp));
    VkDescriptorPoolSize ps[4] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 400},
                                  {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 100},
                                  {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 100},
                                  {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 100}};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 200;
    dpci.poolSizeCount = 4;
    dpci.pPoolSizes = ps;
    CK(vkCreateDescriptorPool(dev, &dpci, nullptr, &dpool));

    Pipe p_ssbo = make_pipe(dir + "/ssbo.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    Pipe p_restrict = make_pipe(dir + "/restrict.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    Pipe p_texbuf = make_pipe(dir + "/texbuf.spv", VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER);
    Pipe p_img = make_pipe(dir + "/img.spv", VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);
    Pipe p_gather = make_pipe(dir + "/gather.spv", VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);

    Pipe p_imgfill = make_pipe(dir + "/imgfill.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
    const int tiles[][2] = {{2, 2}};
    std::vector<Pipe> p_tiled, p_tilefill;
    for (auto& t : tiles) {
        p_tiled.push_back(make_pipe(dir + "/tiled.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t[0], t[1]));
        p_tilefill.push_back(make_pipe(dir + "/tilefill.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t[0], t[1]));
    }
    VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sci.magFilter = sci.minFilter = VK_FILTER_NEAREST;
    sci.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    VkSampler smp;
    CK(vkCreateSampler(dev, &sci, nullptr, &smp));

    const uint32_t n = 1u << 22;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> U(0.f, 1.f);
    std::vector<float> u(2 * size_t(n));
    for (auto& v : u) v = U(rng);

    Buf co_host = make_buf(8ull * n, 0, 0, true), co = make_buf(8ull * n, 0, 0, false);
    Buf out = make_buf(4ull * n, 0, 0, false), out_host = make_buf(4ull * n, 0, 0, true);
    const VkDeviceSize kBlock = 256ull << 20;

    for (int G : sizes) {
        size_t bytes = size_t(G) * G * 4;
        std::vector<float> img(size_t(G) * G);
        for (auto& v : img) v = U(rng);
        Buf img_host = make_buf(bytes, 0, 0, true);
        std::memcpy(img_host.map, img.data(), bytes);
        std::vector<float> c(2 * size_t(n));
        for (size_t i = 0; i < c.size(); ++i) c[i] = u[i] * float(G - 1);
        std::memcpy(co_host.map, c.data(), 8ull * n);
        copy(co_host, co, 8ull * n);

        struct V {
            const char* name;
            Buf buf;
        };
        std::vector<V> bufs = {{"block", make_buf(bytes, kBlock, 0, false)},
                               {"own", make_buf(bytes, 0, 0, false)},
                               {"offset", make_buf(bytes, kBlock, (1ull << 20) + 65536 + 256, false)}};
        for (auto& v : bufs) copy(img_host, v.buf, bytes);

        // The image of optimal tiling.
        VkImageCreateInfo imci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        imci.imageType = VK_IMAGE_TYPE_2D;
        imci.format = VK_FORMAT_R32_SFLOAT;
        imci.extent = {uint32_t(G), uint32_t(G), 1};
        imci.mipLevels = imci.arrayLayers = 1;
        imci.samples = VK_SAMPLE_COUNT_1_BIT;
        imci.tiling = VK_IMAGE_TILING_OPTIMAL;
        imci.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        VkImage im;
        CK(vkCreateImage(dev, &imci, nullptr, &im));
        VkMemoryRequirements ir;
        vkGetImageMemoryRequirements(dev, im, &ir);
        VkMemoryAllocateInfo iai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        iai.allocationSize = ir.size;
        iai.memoryTypeIndex = mem_type(ir.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        VkDeviceMemory imem;
        CK(vkAllocateMemory(dev, &iai, nullptr, &imem));
        CK(vkBindImageMemory(dev, im, imem, 0));
        double copy_ms = 0;
        {
            VkCommandBuffer cb = begin();
            vkCmdResetQueryPool(cb, qp, 0, 2);
            VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
            ib.srcAccessMask = 0;
            ib.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
            ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
            ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
            ib.image = im;
            ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                                 nullptr, 0, nullptr, 1, &ib);
            VkBufferImageCopy bic{};
            bic.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
            bic.imageExtent = {uint32_t(G), uint32_t(G), 1};
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
            vkCmdCopyBufferToImage(cb, bufs[0].buf.b, im, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &bic);
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
            ib.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            ib.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
            ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
            ib.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                 nullptr, 0, nullptr, 1, &ib);
            submit(cb);
            uint64_t t[2];
            CK(vkGetQueryPoolResults(dev, qp, 0, 2, 16, t, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            copy_ms = (t[1] - t[0]) * ts_period * 1e-6;
        }
        VkImageViewCreateInfo ivci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        ivci.image = im;
        ivci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        ivci.format = VK_FORMAT_R32_SFLOAT;
        ivci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView iv;
        CK(vkCreateImageView(dev, &ivci, nullptr, &iv));
        VkBufferViewCreateInfo bvci{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
        bvci.buffer = bufs[0].buf.b;
        bvci.format = VK_FORMAT_R32_SFLOAT;
        bvci.range = VK_WHOLE_SIZE;
        VkBufferView bv;
        CK(vkCreateBufferView(dev, &bvci, nullptr, &bv));

        // CPU reference on the first 4096 points.
        std::vector<float> ref(4096);
        for (int i = 0; i < 4096; ++i) {
            float y = c[i], x = c[n + i];
            float fy = std::floor(y), fx = std::floor(x), ty = y - fy, tx = x - fx;
            int iy = int(fy), ix = int(fx);
            int iy1 = iy + 1 < G ? iy + 1 : G - 2, ix1 = ix + 1 < G ? ix + 1 : G - 2;
            float a0 = (1 - tx) * img[size_t(iy) * G + ix] + tx * img[size_t(iy) * G + ix1];
            float a1 = (1 - tx) * img[size_t(iy1) * G + ix] + tx * img[size_t(iy1) * G + ix1];
            ref[i] = (1 - ty) * a0 + ty * a1;
        }
        auto check = [&]() {
            copy(out, out_host, 4ull * n);
            const float* o = static_cast<const float*>(out_host.map);
            double e = 0;
            for (int i = 0; i < 4096; ++i) e = std::max(e, double(std::fabs(o[i] - ref[i])));
            return e;
        };
        std::printf("G=%5d (%6.1f MiB) copy-to-image %.4f ms (image %llu bytes, alignment %llu)\n", G,
                    bytes / 1048576.0, copy_ms, (unsigned long long)ir.size, (unsigned long long)ir.alignment);
        auto row = [&](const char* what, const Pipe& p, VkDescriptorSet s) {
            double t = time_it(p, s, G, n);
            std::printf("  %-16s %.4f ms  max err %.2e\n", what, t, check());
            std::fflush(stdout);
        };
        for (auto& v : bufs) {
            VkDescriptorSet s = make_set(p_ssbo, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &v.buf, VK_NULL_HANDLE,
                                         VK_NULL_HANDLE, VK_NULL_HANDLE, co, out);
            row((std::string("ssbo-") + v.name).c_str(), p_ssbo, s);
        }
        row("ssbo-restrict", p_restrict,
            make_set(p_restrict, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf, VK_NULL_HANDLE, VK_NULL_HANDLE,
                     VK_NULL_HANDLE, co, out));
        row("texel-buffer", p_texbuf,
            make_set(p_texbuf, VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, nullptr, bv, VK_NULL_HANDLE,
                     VK_NULL_HANDLE, co, out));
        row("image-fetch", p_img,
            make_set(p_img, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, nullptr, VK_NULL_HANDLE, iv, smp, co, out));
        row("image-gather", p_gather,
            make_set(p_gather, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, nullptr, VK_NULL_HANDLE, iv, smp, co,
                     out));
        // A storage image (optimal tiling) filled by a compute shader, then gathered.
        {
            imci.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
            VkImage sim;
            CK(vkCreateImage(dev, &imci, nullptr, &sim));
            VkMemoryRequirements sr;
            vkGetImageMemoryRequirements(dev, sim, &sr);
            iai.allocationSize = sr.size;
            VkDeviceMemory smem;
            CK(vkAllocateMemory(dev, &iai, nullptr, &smem));
            CK(vkBindImageMemory(dev, sim, smem, 0));
            VkCommandBuffer cb = begin();
            VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
            ib.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
            ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
            ib.newLayout = VK_IMAGE_LAYOUT_GENERAL;
            ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
            ib.image = sim;
            ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                 nullptr, 0, nullptr, 1, &ib);
            submit(cb);
            ivci.image = sim;
            VkImageView siv;
            CK(vkCreateImageView(dev, &ivci, nullptr, &siv));
            VkDescriptorSet fs = make_set(p_imgfill, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf, VK_NULL_HANDLE,
                                          VK_NULL_HANDLE, VK_NULL_HANDLE, co, out, VK_IMAGE_LAYOUT_GENERAL, siv);
            double fill = once(p_imgfill, fs, G, n, (G + 15) / 16, (G + 15) / 16);
            std::printf("  storage-image fill %.4f ms (image %llu bytes)\n", fill, (unsigned long long)sr.size);
            const int shapes[][2] = {{16, 16}, {32, 8}, {64, 4}, {128, 2}, {256, 1}};
            for (auto& sh : shapes) {
                char nm[64];
                std::snprintf(nm, sizeof nm, "/imgfill_%dx%d.spv", sh[0], sh[1]);
                Pipe pf = make_pipe(dir + nm, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
                VkDescriptorSet s2 = make_set(pf, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf, VK_NULL_HANDLE,
                                              VK_NULL_HANDLE, VK_NULL_HANDLE, co, out, VK_IMAGE_LAYOUT_GENERAL, siv);
                double t = once(pf, s2, G, n, (G + sh[0] - 1) / sh[0], (G + sh[1] - 1) / sh[1]);
                std::printf("  fill %dx%d %.4f ms\n", sh[0], sh[1], t);
            }
            {
                Pipe pf = make_pipe(dir + "/imgfill4.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
                VkDescriptorSet s2 = make_set(pf, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf, VK_NULL_HANDLE,
                                              VK_NULL_HANDLE, VK_NULL_HANDLE, co, out, VK_IMAGE_LAYOUT_GENERAL, siv);
                double t = once(pf, s2, G, n, (G + 63) / 64, (G + 15) / 16);
                std::printf("  fill 64x4, 4 rows each %.4f ms\n", t);
            }
            {
                std::ifstream in(dir + "/fills.txt");
                std::string k;
                int lx, ly, v, r;
                while (in >> k >> lx >> ly >> v >> r) {
                    Pipe pf = make_pipe(dir + "/fill_" + k + ".spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
                    VkDescriptorSet s2 = make_set(pf, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf, VK_NULL_HANDLE,
                                                  VK_NULL_HANDLE, VK_NULL_HANDLE, co, out, VK_IMAGE_LAYOUT_GENERAL, siv);
                    double best = 1e9;
                    for (int rep = 0; rep < 5; ++rep)
                        best = std::min(best, once(pf, s2, G, n, (G / v + lx - 1) / lx, (G / r + ly - 1) / ly));
                    std::printf("  fill %-6s %dx%d, %d texels x %d rows each: %.4f ms (best of 5)\n", k.c_str(), lx, ly, v, r, best);
                    // Check: gather from what it wrote.
                    row(("  gather after " + k).c_str(), p_gather,
                        make_set(p_gather, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, nullptr, VK_NULL_HANDLE, siv, smp, co,
                                 out, VK_IMAGE_LAYOUT_GENERAL));
                    VkImageSubresourceRange rr{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
                    VkClearColorValue zero{};
                    VkCommandBuffer cb = begin();
                    vkCmdClearColorImage(cb, sim, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &rr);
                    barrier(cb);
                    submit(cb);
                }
            }
            {
                Pipe pc = make_pipe(dir + "/copy4.spv", VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
                VkDescriptorSet s3 = make_set(pc, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf, VK_NULL_HANDLE,
                                              VK_NULL_HANDLE, VK_NULL_HANDLE, co, bufs[1].buf);
                double best = 1e9;
                for (int rep = 0; rep < 5; ++rep) best = std::min(best, once(pc, s3, G, n, uint32_t(size_t(G) * G / 4 / 256), 1));
                std::printf("  buffer copy (vec4) of the image's bytes: %.4f ms (best of 5)\n", best);
            }
            // Last: the 16x16 fill again, so the image holds the data for the gather check.
            once(p_imgfill, fs, G, n, (G + 15) / 16, (G + 15) / 16);
            row("simage-gather", p_gather,
                make_set(p_gather, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, nullptr, VK_NULL_HANDLE, siv, smp, co,
                         out, VK_IMAGE_LAYOUT_GENERAL));
            CK(vkQueueWaitIdle(queue));
            vkDestroyImageView(dev, siv, nullptr);
            vkDestroyImage(dev, sim, nullptr);
            vkFreeMemory(dev, smem, nullptr);
        }
        // Tiled storage buffers: tiles of 2^lx x 2^ly elements.
        {
            Buf tb = make_buf(bytes, kBlock, 0, false);
            for (size_t k = 0; k < p_tiled.size(); ++k) {
                int lx = tiles[k][0], ly = tiles[k][1];
                if (G % (1 << lx) || G % (1 << ly)) continue;
                VkDescriptorSet fs = make_set(p_tilefill[k], VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bufs[0].buf,
                                              VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, co, tb);
                double fill = once(p_tilefill[k], fs, G, n, uint32_t((size_t(G) * G + 255) / 256), 1);
                char nm[64];
                std::snprintf(nm, sizeof nm, "tiled-%dx%d", 1 << lx, 1 << ly);
                VkDescriptorSet gs = make_set(p_tiled[k], VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &tb, VK_NULL_HANDLE,
                                              VK_NULL_HANDLE, VK_NULL_HANDLE, co, out);
                double t = time_it(p_tiled[k], gs, G, n);
                std::printf("  %-16s %.4f ms  max err %.2e  (fill %.4f ms)\n", nm, t, check(), fill);
                std::fflush(stdout);
            }
            vkDestroyBuffer(dev, tb.b, nullptr);
            vkFreeMemory(dev, tb.m, nullptr);
        }
        CK(vkResetDescriptorPool(dev, dpool, 0));
        vkDestroyBufferView(dev, bv, nullptr);
        vkDestroyImageView(dev, iv, nullptr);
        vkDestroyImage(dev, im, nullptr);
        vkFreeMemory(dev, imem, nullptr);
        for (auto& v : bufs) {
            vkDestroyBuffer(dev, v.buf.b, nullptr);
            vkFreeMemory(dev, v.buf.m, nullptr);
        }
        vkDestroyBuffer(dev, img_host.b, nullptr);
        vkFreeMemory(dev, img_host.m, nullptr);
    }
    return 0;
}
