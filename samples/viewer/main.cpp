// A live viewer: the application's own Vulkan device (a GLFW window, its
// swapchain, Dear ImGui's panel) adopted by kiln, which runs the astronomy
// pipeline every frame and writes the picture into one of its buffers; the
// application copies that buffer into the window, ordered by timeline
// semaphores. Nothing goes through the host between kiln's work and the
// screen.
#include <CLI/CLI.hpp>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "display.hpp"
#include "kiln/error.hpp"
#include "kiln/interop.hpp"
#include "kiln/io.hpp"
#include "pipeline.hpp"
#include "settings.hpp"

using namespace viewer;
using Clock = std::chrono::steady_clock;

namespace {

const char* const keys_help =
    "keys: 0 grid, 1 image, 2 blur, 3 mask, 4 labels; + / - sigma; [ / ] or the wheel zoom; "
    "arrows or dragging pan; r resets zoom and pan; q or Esc quits";

// What the window's input changes, between frames.
struct Input {
    Settings* s = nullptr;
    glsl::Params params{};  // the last frame's, to map mouse motion to source pixels
    double cursor_x = 0, cursor_y = 0;  // picture pixels, as the events reported it
    bool dragging = false;
    double drag_x = 0, drag_y = 0;
    int drag_pan_x = 0, drag_pan_y = 0;
};

Input input;

bool ui_wants_keyboard() { return ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureKeyboard; }
bool ui_wants_mouse() { return ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureMouse; }

void change_sigma(Settings& s, double factor) { s.sigma = std::clamp(s.sigma * factor, min_sigma, max_sigma); }
void change_zoom(Settings& s, int by) { s.zoom = std::clamp(s.zoom + by, min_zoom, max_zoom); }

// Source pixels per window pixel in the view under (x, y), from the shared layout.
void source_at(const glsl::Params& p, int x, int y, int* sx, int* sy) {
    const glsl::Sample a = glsl::locate(p, x, y);
    *sx = a.index >= 0 ? a.index % p.image_w : -1;
    *sy = a.index >= 0 ? a.index / p.image_w : -1;
}

void on_char(GLFWwindow* w, unsigned int c) {
    if (ui_wants_keyboard()) return;
    Settings& s = *input.s;
    switch (c) {
    case '0': case 'g': s.view = glsl::VIEW_GRID; break;
    case '1': s.view = glsl::VIEW_IMAGE; break;
    case '2': s.view = glsl::VIEW_BLUR; break;
    case '3': s.view = glsl::VIEW_MASK; break;
    case '4': s.view = glsl::VIEW_LABELS; break;
    case '+': case '=': change_sigma(s, 1.25); break;
    case '-': case '_': change_sigma(s, 1 / 1.25); break;
    case ']': change_zoom(s, 1); break;
    case '[': change_zoom(s, -1); break;
    case 'r': s.zoom = 0, s.pan_x = 0, s.pan_y = 0; break;
    case 'q': glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    default: break;
    }
}

void on_key(GLFWwindow* w, int key, int, int action, int) {
    if (ui_wants_keyboard() || action == GLFW_RELEASE) return;
    Settings& s = *input.s;
    // An eighth of the image per press.
    const int step_x = std::max(1, input.params.image_w / 8), step_y = std::max(1, input.params.image_h / 8);
    switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_LEFT: s.pan_x -= step_x; break;
    case GLFW_KEY_RIGHT: s.pan_x += step_x; break;
    case GLFW_KEY_UP: s.pan_y -= step_y; break;
    case GLFW_KEY_DOWN: s.pan_y += step_y; break;
    case GLFW_KEY_KP_ADD: change_sigma(s, 1.25); break;
    case GLFW_KEY_KP_SUBTRACT: change_sigma(s, 1 / 1.25); break;
    default: break;
    }
}

void on_scroll(GLFWwindow*, double, double dy) {
    if (ui_wants_mouse() || dy == 0) return;
    change_zoom(*input.s, dy > 0 ? 1 : -1);
}

// Window coordinates to picture pixels (they differ on high-DPI screens).
void to_pixels(GLFWwindow* w, double* x, double* y) {
    int ww = 0, wh = 0, fw = 0, fh = 0;
    glfwGetWindowSize(w, &ww, &wh);
    glfwGetFramebufferSize(w, &fw, &fh);
    if (ww > 0 && wh > 0) *x *= double(fw) / ww, *y *= double(fh) / wh;
}

void on_button(GLFWwindow*, int button, int action, int) {
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    if (action == GLFW_RELEASE) {
        input.dragging = false;
        return;
    }
    if (ui_wants_mouse()) return;
    // Where the events put the cursor (glfwGetCursorPos would ask where it is now).
    input.drag_x = input.cursor_x;
    input.drag_y = input.cursor_y;
    input.dragging = true;
    input.drag_pan_x = input.s->pan_x;
    input.drag_pan_y = input.s->pan_y;
}

void on_cursor(GLFWwindow* w, double x, double y) {
    to_pixels(w, &x, &y);
    input.cursor_x = x;
    input.cursor_y = y;
    if (!input.dragging) return;
    // The source pixel under the cursor stays under it: pan by the source
    // distance between where the drag began and where the cursor is, both
    // located with the pan the drag began with.
    glsl::Params p = input.params;
    p.pan_x = input.drag_pan_x;
    p.pan_y = input.drag_pan_y;
    int x0, y0, x1, y1;
    source_at(p, int(input.drag_x), int(input.drag_y), &x0, &y0);
    source_at(p, int(x), int(y), &x1, &y1);
    if (x0 < 0 || x1 < 0) return;
    input.s->pan_x = input.drag_pan_x - (x1 - x0);
    input.s->pan_y = input.drag_pan_y - (y1 - y0);
}

struct Panel {
    std::string device, image;
    bool validation = false;
};

void draw_panel(const Panel& info, Settings& s, const glsl::Params& p, const FrameStats& last, uint64_t frame,
                double host_ms) {
    const ImGuiIO& io = ImGui::GetIO();
    const float sx = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
    const float sy = io.DisplayFramebufferScale.y > 0 ? io.DisplayFramebufferScale.y : 1.0f;
    ImGui::SetNextWindowPos(ImVec2(float(p.area_width) / sx, 0));
    ImGui::SetNextWindowSize(ImVec2(float(p.width - p.area_width) / sx, float(p.height) / sy));
    ImGui::Begin("kiln viewer", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings);
    ImGui::TextWrapped("%s", info.device.c_str());
    ImGui::TextWrapped("%s", info.image.c_str());
    ImGui::Separator();
    ImGui::RadioButton("grid", &s.view, glsl::VIEW_GRID);
    ImGui::SameLine();
    ImGui::RadioButton("image", &s.view, glsl::VIEW_IMAGE);
    ImGui::SameLine();
    ImGui::RadioButton("blur", &s.view, glsl::VIEW_BLUR);
    ImGui::RadioButton("mask", &s.view, glsl::VIEW_MASK);
    ImGui::SameLine();
    ImGui::RadioButton("labels", &s.view, glsl::VIEW_LABELS);
    if (s.view == glsl::VIEW_GRID) ImGui::TextDisabled("image | blur / mask | labels");
    float sigma = static_cast<float>(s.sigma);
    if (ImGui::SliderFloat("blur sigma", &sigma, float(min_sigma), float(max_sigma), "%.2f px",
                           ImGuiSliderFlags_Logarithmic))
        s.sigma = std::clamp(double(sigma), min_sigma, max_sigma);
    float nsigma = static_cast<float>(s.nsigma);
    if (ImGui::SliderFloat("mask sigmas", &nsigma, 1.0f, 50.0f, "%.1f", ImGuiSliderFlags_Logarithmic))
        s.nsigma = double(nsigma);
    ImGui::SliderInt("zoom", &s.zoom, min_zoom, max_zoom, "2^%d");
    ImGui::SameLine();
    if (ImGui::Button("reset")) s.zoom = 0, s.pan_x = 0, s.pan_y = 0;
    ImGui::Separator();
    if (last.valid) {
        ImGui::Text("sources: %d", last.sources);
        ImGui::Text("background: median %.4g, std %.4g", last.median, last.std);
        ImGui::Text("frame %llu: %.1f ms (%.1f / s)", static_cast<unsigned long long>(frame), host_ms,
                    host_ms > 0 ? 1000.0 / host_ms : 0.0);
        ImGui::Text("GPU time of the last frame, ms:");
        if (ImGui::BeginTable("kernels", 2, ImGuiTableFlags_RowBg)) {
            for (const auto& [name, ms] : last.kernels) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(name.c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", ms);
            }
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted("total");
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", last.total_ms);
            ImGui::EndTable();
        }
    }
    ImGui::Separator();
    ImGui::TextWrapped("%s", keys_help);
    if (info.validation)
        ImGui::Text("validation: %llu messages", static_cast<unsigned long long>(validation_message_count()));
    ImGui::End();
}

bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::string(v) != "0";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "kiln viewer: a window whose Vulkan device kiln adopts. Every frame kiln runs the astronomy\n"
        "sample's pipeline on the image (kappa-sigma clipped background, 5-sigma mask, connected\n"
        "components) and its Gaussian blur, and a colour kernel writes the window's picture into a kiln\n"
        "buffer that the viewer copies into the window (ordered by timeline semaphores, no host copy).\n"
        "The panel on the right shows the source count and the last frame's GPU time per kernel.\n"
        "Without FILE it shows the synthetic sky."};
    Settings s;
    s.sky.size = 1024;
    add_options(app, s);
    DisplayOptions d;
    int frames = 0;
    std::string screenshot;
    bool validation = false, no_vsync = false;
    auto* frames_opt = app.add_option("--frames", frames, "Render N frames, then exit (default: until the window is closed)")
                           ->check(CLI::Range(1, 1000000));
    app.add_option("--screenshot", screenshot,
                   "With --frames: save the last frame's picture as PNG, read back from the presented image (where the "
                   "window's images cannot be read, from the image copied into it)")
        ->needs(frames_opt);
    app.add_option("--width", d.width, "Window width, pixels (the panel takes " + std::to_string(panel_width) + ")")
        ->check(CLI::Range(480, 16384))
        ->capture_default_str();
    app.add_option("--height", d.height, "Window height, pixels")->check(CLI::Range(240, 16384))->capture_default_str();
    app.add_option("--device", d.device, "Device index or part of its name (default: a discrete GPU, else any)");
    app.add_flag("--validation", validation,
                 "Khronos validation with synchronization validation on the viewer's instance (also KILN_VALIDATION=1); "
                 "any message makes the exit status 3");
    app.add_flag("--no-vsync", no_vsync, "Present as fast as frames come (mailbox or immediate where offered)");
    app.footer(std::string(keys_help) +
               ".\n\nExit status: 0 success, 1 error (no display, no Vulkan surface support, no suitable device, a "
               "kiln error), 2 usage, 3 validation messages were reported, 4 a file could not be read or written.");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    d.validation = validation || env_on("KILN_VALIDATION");
    d.vsync = !no_vsync;

    int status = 0;
    try {
        if (!screenshot.empty()) {
            const auto dir = std::filesystem::absolute(screenshot).parent_path();
            if (!std::filesystem::is_directory(dir))
                throw kiln::IoError("--screenshot " + screenshot + ": the directory " + dir.string() +
                                    " does not exist");
        }
        const kiln::HostArray image = load_image(s);
        Panel info;
        info.image = s.input.empty() ? "synthetic sky " + std::to_string(s.sky.size) + " x " +
                                           std::to_string(s.sky.size) + ", seed " + std::to_string(s.sky.seed)
                                     : s.input + " " + image.shape.str();
        info.validation = d.validation;

        Display display(d);
        {
            kiln::Context ctx(display.external());
            info.device = display.device_name() + " (" + ctx.device().driver + ")";
            std::printf("viewer: %s; %s\n", info.device.c_str(), info.image.c_str());
            Pipeline pipeline(ctx, image);
            input.s = &s;
            glfwSetCharCallback(display.window(), on_char);
            glfwSetKeyCallback(display.window(), on_key);
            glfwSetScrollCallback(display.window(), on_scroll);
            glfwSetMouseButtonCallback(display.window(), on_button);
            glfwSetCursorPosCallback(display.window(), on_cursor);
            display.init_imgui();  // after ours: its callbacks call them

            kiln::Array picture;
            FrameStats last;
            uint64_t frame = 0;
            double host_ms = 0;
            auto t_last = Clock::now();
            while (!glfwWindowShouldClose(display.window()) && (frames == 0 || frame < uint64_t(frames))) {
                glfwPollEvents();
                display.wait_frame(frame);
                FrameStats st = pipeline.collect();
                if (st.valid) last = st;
                if (display.update_size() || !picture)
                    picture = kiln::Array::empty(ctx, kiln::Shape{display.height(), display.width()},
                                                 kiln::DType::uint32);
                if (glfwWindowShouldClose(display.window())) break;
                ++frame;
                const auto now = Clock::now();
                host_ms = std::chrono::duration<double, std::milli>(now - t_last).count();
                t_last = now;

                glsl::Params p = make_params(s, int(display.width()), int(display.height()), pipeline.shape());
                ImGui_ImplVulkan_NewFrame();
                ImGui_ImplGlfw_NewFrame();
                ImGui::NewFrame();
                draw_panel(info, s, p, last, frame, host_ms);
                ImGui::Render();
                p = make_params(s, int(display.width()), int(display.height()), pipeline.shape());
                input.params = p;

                // kiln's part: record, then order it between the application's
                // frames, then submit. The picture is rewritten only after the
                // previous frame's copy has read it.
                pipeline.record(s, p, picture);
                const kiln::BufferView view = kiln::buffer_of(picture);
                kiln::wait_before_next_submission(ctx, display.app_timeline(), frame - 1);
                kiln::signal_after_next_submission(ctx, display.kiln_timeline(), frame);
                ctx.flush();
                display.present(frame, view, ImGui::GetDrawData(), !screenshot.empty() && frame == uint64_t(frames));
            }
            display.wait_frame(frame);
            FrameStats st = pipeline.collect();
            if (st.valid) last = st;
            ctx.sync();
            std::printf("viewer: %llu frames; the last: %d sources, background median %.4g std %.4g; GPU ms:",
                        static_cast<unsigned long long>(frame), last.sources, last.median, last.std);
            for (const auto& [name, ms] : last.kernels) std::printf(" %s %.3f,", name.c_str(), ms);
            std::printf(" total %.3f\n", last.total_ms);
            std::printf("viewer: as shown last: --view %s --sigma %g --nsigma %g --zoom %d --pan %d %d (%u x %u)\n",
                        view_name(s.view), s.sigma, s.nsigma, s.zoom, s.pan_x, s.pan_y, display.width(),
                        display.height());
            if (!screenshot.empty() && frame == uint64_t(frames)) {
                const Display::Picture shot = display.captured();
                kiln::io::write_png_rgb(screenshot, shot.width, shot.height, shot.rgb);
                std::printf("viewer: wrote %s (%d x %d, frame %llu, read from %s)\n", screenshot.c_str(), shot.width,
                            shot.height, static_cast<unsigned long long>(frame),
                            shot.from_window ? "the presented image" : "the image blitted into the window");
            }
        }
    } catch (const kiln::IoError& e) {
        std::fprintf(stderr, "viewer: error: %s\n", e.what());
        status = 4;
    } catch (const kiln::Error& e) {
        std::fprintf(stderr, "viewer: error: %s\n", e.what());
        status = 1;
    }
    if (d.validation) {
        const uint64_t n = validation_message_count();
        std::printf("viewer: validation (Khronos, with synchronization validation): %llu messages\n",
                    static_cast<unsigned long long>(n));
        if (n && status == 0) status = 3;
    }
    return status;
}
