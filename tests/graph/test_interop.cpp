// GPU interop (kiln/interop.hpp): an application with its own Vulkan device
// (validation and synchronization validation on, in its own instance) hands
// it to kiln, wraps its buffers as arrays, copies kiln's results into its
// images, and orders its queue work against kiln's with timeline semaphores.
#include <vulkan/vulkan.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "app_device.hpp"
#include "kiln/reference/transforms.hpp"
#include "kiln/transforms.hpp"
#include "graph/storage.hpp"
#include "support.hpp"

using namespace kiln;
using test::AppBuffer;
using test::AppCommands;
using test::Timeline;

namespace {

constexpr VkBufferUsageFlags array_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkMemoryPropertyFlags host_memory = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

// The application's barriers around its copies: an image's layout change
// between two copies, and its copies' writes to its host reads.
void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkAccessFlags2 src_access, VkAccessFlags2 dst_access) {
    VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2, nullptr, VK_PIPELINE_STAGE_2_COPY_BIT, src_access,
                            VK_PIPELINE_STAGE_2_COPY_BIT, dst_access, from, to, VK_QUEUE_FAMILY_IGNORED,
                            VK_QUEUE_FAMILY_IGNORED, image, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO, nullptr, 0, 0, nullptr, 0, nullptr, 1, &b};
    vkCmdPipelineBarrier2(cmd, &dep);
}

void copies_to_host(VkCommandBuffer cmd) {
    VkMemoryBarrier2 b{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, nullptr, VK_PIPELINE_STAGE_2_COPY_BIT,
                       VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO, nullptr, 0, 1, &b};
    vkCmdPipelineBarrier2(cmd, &dep);
}

std::vector<float> ramp(size_t n, float scale, float bias) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i) + bias;
    return v;
}

} // namespace

// The application's buffer range, in its own device-local memory, as an
// array: read by kiln's ops, pushed into and pulled from (through staging:
// kiln has no mapping of it), and left to the application afterwards.
TEST_CASE("an application's buffer is wrapped as an array, used by ops, pushed and pulled", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        const size_t n = 16 * 16;
        const VkDeviceSize offset = 256;  // a multiple of every device's minStorageBufferOffsetAlignment
        AppBuffer buf(app, offset + n * sizeof(float), array_usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        const std::vector<float> v = ramp(n, 0.5f, -3.0f);
        const std::vector<float> u = ramp(n, -2.0f, 7.0f);
        {
            Context ctx(app.external());
            Array w = wrap_buffer(ctx, buf.buffer, offset, Shape{16, 16});
            CHECK(w.shape() == Shape{16, 16});
            CHECK(w.dtype() == DType::float32);
            BufferView view = buffer_of(w);  // the application's range, as given
            CHECK(view.buffer == buf.buffer);
            CHECK(view.offset == offset);
            CHECK(view.size == n * sizeof(float));

            w.push(std::span<const float>(v));  // into the application's memory
            std::vector<float> expect(n);
            for (size_t i = 0; i < n; ++i) expect[i] = v[i] * 2.0f + 1.0f;
            Array r = add(multiply(w, 2.0), 1.0);
            CHECK(r.to_vector<float>() == expect);
            CHECK(w.to_vector<float>() == v);  // pulled through staging

            // An array of kiln's own combined with the wrapped one.
            Array b = Array::from(ctx, Shape{16, 16}, u);
            for (size_t i = 0; i < n; ++i) expect[i] = v[i] + u[i];
            CHECK(add(w, b).to_vector<float>() == expect);
            fill(w, 4.25);  // a kernel writes the application's buffer
            CHECK(w.to_vector<float>() == std::vector<float>(n, 4.25f));
            ctx.sync();  // kiln's work on the buffer is done before it goes
        }
    });
}

// kiln keeps host copies of convolution kernels whose memory no work has
// touched since; the application writes its buffer behind kiln's back, so a
// wrapped kernel is read again each time.
TEST_CASE("a wrapped convolution kernel the application rewrites is read again", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        AppBuffer buf(app, 4 * sizeof(float), array_usage, host_memory);
        const std::vector<float> first{1, 2, 3, 4}, second{-5, 6, 0.5f, 8};
        std::memcpy(buf.mapped, first.data(), sizeof(float) * 4);
        {
            Context ctx(app.external());
            Array k = wrap_buffer(ctx, buf.buffer, 0, Shape{2, 2});
            Array one = Array::from(ctx, Shape{1, 1}, std::vector<float>{1.0f});
            CHECK(convolve2d(one, k).to_vector<float>() == first);  // full mode: the kernel itself
            ctx.sync();  // kiln is done with the buffer: the application rewrites it
            std::memcpy(buf.mapped, second.data(), sizeof(float) * 4);
            CHECK(convolve2d(one, k).to_vector<float>() == second);
            ctx.sync();
        }
    });
}

TEST_CASE("wrap_buffer refuses a null buffer, a misaligned offset and an overflowing range", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        AppBuffer buf(app, 4096, array_usage, host_memory);
        Context ctx(app.external());
        CHECK_THROWS_AS(wrap_buffer(ctx, VK_NULL_HANDLE, 0, Shape{4}), InvalidArgument);
        CHECK_THROWS_WITH(wrap_buffer(ctx, VK_NULL_HANDLE, 0, Shape{4}), Catch::Contains("VK_NULL_HANDLE"));
        CHECK_THROWS_AS(wrap_buffer(ctx, buf.buffer, 2, Shape{4}), InvalidArgument);
        CHECK_THROWS_WITH(wrap_buffer(ctx, buf.buffer, 2, Shape{4}), Catch::Contains("not a multiple of"));
        const uint32_t align = ctx.device().min_storage_offset_alignment;
        if (align > 4)  // 4-byte aligned, but below the device's descriptor alignment
            CHECK_THROWS_WITH(wrap_buffer(ctx, buf.buffer, 4, Shape{4}), Catch::Contains("minStorageBufferOffsetAlignment"));
        const VkDeviceSize high = ~VkDeviceSize(0) / 256 * 256;  // aligned, 255 bytes below 2^64
        CHECK_THROWS_WITH(wrap_buffer(ctx, buf.buffer, high, Shape{128}), Catch::Contains("overflows"));
        CHECK_THROWS_AS(wrap_buffer(ctx, buf.buffer, 0, Shape{4}, DType::float64), Unsupported);  // not enabled
        CHECK_THROWS_WITH(buffer_of(Array()), Catch::Contains("null Array"));
        CHECK_NOTHROW(wrap_buffer(ctx, buf.buffer, 256, Shape{4}));
    });
}

// kiln writes the application's buffer (a copy and a kernel), signals a
// timeline semaphore after that submission, and the application waits on the
// host, then reads its own mapped memory.
TEST_CASE("kiln signals an application's timeline after its next submission", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        const size_t n = 64;
        AppBuffer buf(app, 2 * n * sizeof(float), array_usage, host_memory);
        std::memset(buf.mapped, 0, 2 * n * sizeof(float));
        Timeline timeline(app);
        const std::vector<float> v = ramp(n, 3.0f, 1.0f);
        {
            Context ctx(app.external());
            Array pushed = wrap_buffer(ctx, buf.buffer, 0, Shape{n});
            Array filled = wrap_buffer(ctx, buf.buffer, n * sizeof(float), Shape{n});
            Array source = Array::from(ctx, Shape{n}, v);
            ctx.sync();
            pushed.push(std::span<const float>(v));  // staged: recorded, not yet submitted
            fill(filled, -1.5);
            Array doubled = multiply(source, 2.0);  // more pending work in the same submission
            signal_after_next_submission(ctx, timeline.semaphore, 5);
            CHECK(timeline.value() == 0);
            ctx.flush();
            REQUIRE(timeline.host_wait(5) == VK_SUCCESS);
            const float* host = buf.as<float>();
            CHECK(std::vector<float>(host, host + n) == v);
            CHECK(std::vector<float>(host + n, host + 2 * n) == std::vector<float>(n, -1.5f));

            // The signal went with that submission only; with nothing pending a
            // flush still submits (an empty submission) to carry the next one.
            signal_after_next_submission(ctx, timeline.semaphore, 6);
            ctx.flush();
            REQUIRE(timeline.host_wait(6) == VK_SUCCESS);
            CHECK(timeline.value() == 6);

            // A graph's launch signals after the graph's work.
            Array out;
            Graph g(ctx);
            {
                auto c = g.capture();
                out = add(source, 1.0);
                fill(filled, 9.0);
            }
            signal_after_next_submission(ctx, timeline.semaphore, 7);
            g.launch();
            REQUIRE(timeline.host_wait(7) == VK_SUCCESS);
            CHECK(std::vector<float>(host + n, host + 2 * n) == std::vector<float>(n, 9.0f));
            ctx.sync();
        }
    });
}

// kiln's next submission waits for the application's timeline: the
// application fills its buffer on the host only after kiln has submitted
// the work that reads it, then signals from the host.
TEST_CASE("kiln's next submission waits for an application's timeline", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        const size_t n = 48;
        AppBuffer buf(app, n * sizeof(float), array_usage, host_memory);
        std::memset(buf.mapped, 0, n * sizeof(float));
        Timeline timeline(app);
        const std::vector<float> v = ramp(n, -0.75f, 20.0f);
        {
            Context ctx(app.external());
            Array w = wrap_buffer(ctx, buf.buffer, 0, Shape{n});
            wait_before_next_submission(ctx, timeline.semaphore, 1);
            Array r = add(w, 1.0);
            signal_after_next_submission(ctx, timeline.semaphore, 2);
            ctx.flush();  // submitted, held by the wait
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            CHECK(timeline.value() == 0);
            std::memcpy(buf.mapped, v.data(), n * sizeof(float));
            timeline.signal(1);
            REQUIRE(timeline.host_wait(2) == VK_SUCCESS);
            std::vector<float> expect(n);
            for (size_t i = 0; i < n; ++i) expect[i] = v[i] + 1.0f;
            CHECK(r.to_vector<float>() == expect);
            ctx.sync();
        }
    });
}

// buffer_of: the application copies a kiln result into its own image (and
// from there into a host buffer of its own), on the same queue, ordered by
// one timeline: kiln signals 1, the application waits for 1 and signals 2,
// kiln waits for 2 before it writes the array again.
TEST_CASE("buffer_of gives the buffer of a kiln array, ordered with the application's work by timelines", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        const uint32_t width = 8, height = 4;
        const size_t n = width * height;
        const std::vector<float> v = ramp(n, 1.25f, -10.0f);
        std::vector<float> expect(n);
        for (size_t i = 0; i < n; ++i) expect[i] = v[i] * 3.0f - 0.5f;

        VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        ici.imageType = VK_IMAGE_TYPE_2D;
        ici.format = VK_FORMAT_R32_SFLOAT;
        ici.extent = {width, height, 1};
        ici.mipLevels = 1;
        ici.arrayLayers = 1;
        ici.samples = VK_SAMPLE_COUNT_1_BIT;
        ici.tiling = VK_IMAGE_TILING_OPTIMAL;
        ici.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        VkImage image;
        REQUIRE(vkCreateImage(app.device, &ici, nullptr, &image) == VK_SUCCESS);
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(app.device, image, &req);
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = app.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        VkDeviceMemory image_memory;
        REQUIRE(vkAllocateMemory(app.device, &mai, nullptr, &image_memory) == VK_SUCCESS);
        REQUIRE(vkBindImageMemory(app.device, image, image_memory, 0) == VK_SUCCESS);
        {
            AppBuffer readback(app, n * sizeof(float), VK_BUFFER_USAGE_TRANSFER_DST_BIT, host_memory);
            Timeline timeline(app);
            AppCommands commands(app);
            Context ctx(app.external());
            Array a = Array::from(ctx, Shape{height, width}, v);
            Array r = subtract(multiply(a, 3.0), 0.5);  // pending
            const BufferView view = buffer_of(r);     // placed now, not submitted
            CHECK(view.buffer != VK_NULL_HANDLE);
            CHECK(view.size == n * sizeof(float));
            CHECK(buffer_of(r).offset == view.offset);  // stable
            CHECK(buffer_of(r.reshape(Shape{n})).buffer == view.buffer);

            signal_after_next_submission(ctx, timeline.semaphore, 1);
            ctx.flush();
            commands.submit(
                [&](VkCommandBuffer cmd) {
                    image_barrier(cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                                  VK_ACCESS_2_TRANSFER_WRITE_BIT);
                    VkBufferImageCopy region{};
                    region.bufferOffset = view.offset;
                    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
                    region.imageExtent = {width, height, 1};
                    vkCmdCopyBufferToImage(cmd, view.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
                    image_barrier(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
                    region.bufferOffset = 0;
                    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
                    copies_to_host(cmd);
                },
                timeline, 1, VK_PIPELINE_STAGE_2_COPY_BIT, 2);

            // kiln overwrites r only once the application has read it.
            wait_before_next_submission(ctx, timeline.semaphore, 2);
            fill(r, 123.0);
            ctx.flush();
            REQUIRE(timeline.host_wait(2) == VK_SUCCESS);
            const float* host = readback.as<float>();
            CHECK(std::vector<float>(host, host + n) == expect);
            CHECK(r.to_vector<float>() == std::vector<float>(n, 123.0f));
            ctx.sync();
        }
        vkDestroyImage(app.device, image, nullptr);
        vkFreeMemory(app.device, image_memory, nullptr);
    });
}

// The application shares its queue with other threads: kiln takes its lock
// around each use of the queue, balanced, never nested.
TEST_CASE("kiln calls the application's queue lock around every use of the queue", "[interop]") {
    std::recursive_mutex queue_mutex;  // recursive: a nested lock is counted, not a deadlock
    std::atomic<int> locks{0}, unlocks{0}, held{0}, nested{0};
    test::with_app_device([&](test::AppDevice& app) {
        ExternalDevice ed = app.external();
        ed.lock_queue = [&] {
            queue_mutex.lock();
            if (held.fetch_add(1) != 0) nested.fetch_add(1);
            locks.fetch_add(1);
        };
        ed.unlock_queue = [&] {
            held.fetch_sub(1);
            unlocks.fetch_add(1);
            queue_mutex.unlock();
        };
        int before_destruction = 0;
        {
            Context ctx(ed);
            CHECK(locks.load() == 0);  // nothing submitted yet
            Array a = Array::from(ctx, Shape{32}, ramp(32, 1.0f, 0.0f));
            Array b = add(a, 1.0);
            CHECK(b.to_vector<float>() == ramp(32, 1.0f, 1.0f));
            const int after_pull = locks.load();
            CHECK(after_pull > 0);
            ctx.flush();  // nothing pending: no submission
            CHECK(locks.load() == after_pull);
            Array c = multiply(b, 2.0);
            ctx.sync();
            CHECK(locks.load() == after_pull + 1);
            // A thread of the application holding the queue keeps kiln's submission waiting.
            std::vector<float> got;
            std::atomic<bool> done{false};
            {
                std::unique_lock app_holds(queue_mutex);
                std::thread kiln_thread([&] {
                    got = add(c, 1.0).to_vector<float>();
                    done = true;
                });
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                CHECK_FALSE(done.load());
                app_holds.unlock();
                kiln_thread.join();
            }
            CHECK(done.load());
            CHECK(got == ramp(32, 2.0f, 3.0f));
            before_destruction = locks.load();
        }
        CHECK(locks.load() == before_destruction + 1);  // vkQueueWaitIdle as the context goes
    });
    CHECK(locks.load() == unlocks.load());
    CHECK(nested.load() == 0);
    CHECK(held.load() == 0);
}

TEST_CASE("an ExternalDevice with lock_queue but no unlock_queue, or the reverse, is refused", "[interop]") {
    test::with_app_device([&](test::AppDevice& app) {
        ExternalDevice lock_only = app.external();
        lock_only.lock_queue = [] {};
        CHECK_THROWS_AS(Context(lock_only), InvalidArgument);
        CHECK_THROWS_WITH(Context(lock_only), Catch::Contains("lock_queue but no unlock_queue"));
        ExternalDevice unlock_only = app.external();
        unlock_only.unlock_queue = [] {};
        CHECK_THROWS_WITH(Context(unlock_only), Catch::Contains("unlock_queue but no lock_queue"));
    });
}

// lavapipe supports both features: a device created without one is told
// what to enable, by struct and member.
TEST_CASE("an adopted device without synchronization2 or timelineSemaphore is refused, naming what to enable",
          "[interop]") {
    test::with_app_device(
        [](test::AppDevice& app) {
            CHECK_THROWS_AS(Context(app.external()), Unsupported);
            CHECK_THROWS_WITH(Context(app.external()),
                              Catch::Contains("VkPhysicalDeviceVulkan13Features::synchronization2 is not enabled on "
                                              "the adopted device; enable it in VkDeviceCreateInfo and set "
                                              "ExternalDevice::synchronization2"));
        },
        {.synchronization2 = false, .timeline_semaphore = true});
    test::with_app_device(
        [](test::AppDevice& app) {
            CHECK_THROWS_WITH(Context(app.external()),
                              Catch::Contains("VkPhysicalDeviceVulkan12Features::timelineSemaphore is not enabled") &&
                                  Catch::Contains("ExternalDevice::timeline_semaphore"));
        },
        {.synchronization2 = true, .timeline_semaphore = false});
    test::with_app_device([](test::AppDevice& app) {
        // Enabled on the device, but the application did not say so.
        ExternalDevice ed = app.external();
        ed.synchronization2 = false;
        CHECK_THROWS_WITH(Context(ed), Catch::Contains("synchronization2 is not enabled"));
    });
}

// An intermediate no Array held when its graph was compiled lives in the
// graph's arena; an Array made of it again (with the internal constructor:
// the public API gives none) has no stable buffer to give.
TEST_CASE("buffer_of refuses an array in a graph's transient arena", "[interop]") {
    Context ctx = test::context();
    Array in = Array::from(ctx, Shape{64}, ramp(64, 1.0f, 0.0f));
    Array out;
    std::shared_ptr<detail::Storage> kept;
    Graph g(ctx);
    {
        auto c = g.capture();
        Array t = add(in, 1.0);
        kept = t.storage();
        out = multiply(t, 2.0);
    }
    g.run();
    CHECK(out.to_vector<float>() == ramp(64, 2.0f, 2.0f));
    Array again(ctx.shared_state(), kept, Shape{64}, DType::float32);
    CHECK_THROWS_AS(buffer_of(again), InvalidArgument);
    CHECK_THROWS_WITH(buffer_of(again), Catch::Contains("transient arena of a graph"));
    CHECK_NOTHROW(buffer_of(out));  // held while captured: placed for good
}

TEST_CASE("an adopted device without push descriptors binds images from a descriptor pool", "[interop]") {
    // map_coordinates of a 2-D float32 input gathers from a kept image: on an
    // application's device that did not enable push descriptors its sampler
    // is written into a set from the submission's pool (graph/record.cpp),
    // and the image's layout transition goes through the application's queue.
    test::AppFeatures with_f64;
    with_f64.float64 = true;
    test::with_app_device([&](test::AppDevice& app) {
        ExternalDevice ed = app.external();
        REQUIRE_FALSE(ed.push_descriptors);
        Context ctx(ed);
        const HostArray img = test::random(Shape{19, 23}, DType::float32, 40, -5, 5);
        const HostArray co = test::random(Shape{2, 500}, DType::float32, 41, -2, 24);
        const Interp linear{1, InterpMode::mirror, 0, true};
        ctx.profile().clear();
        const HostArray got = map_coordinates(Array::from_host(ctx, img), Array::from_host(ctx, co), linear).to_host();
        std::set<std::string> names;
        for (const auto& st : ctx.profile().stats()) names.insert(st.name);
        CHECK(names.count("interp_texture_float32") == 1);
        test::require_close(got, cpu::map_coordinates(img, co, linear), 2e-6, 1e-5);
    }, with_f64);
    // Without shaderFloat64 the transforms (coordinates in float64) are refused, naming it.
    test::with_app_device([&](test::AppDevice& app) {
        Context ctx(app.external());
        const Array a = Array::zeros(ctx, Shape{8, 8});
        CHECK_THROWS_WITH(shift(a, {0.5, 0.5}, Interp{1}), Catch::Contains("shaderFloat64"));
        CHECK_THROWS_WITH(map_coordinates(a, Array::zeros(ctx, Shape{2, 4})), Catch::Contains("shaderFloat64"));
    });
}
