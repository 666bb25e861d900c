#include "pipeline.hpp"

#include <string_view>

#include "kiln/elementwise.hpp"
#include "kiln/filters.hpp"
#include "kiln/label.hpp"
#include "kiln/statistics.hpp"
#include "viewer_shaders.hpp"

namespace viewer {

namespace {

// compose.comp with compose.glsl pasted in place of its include line.
std::string compose_source() {
    std::string s = compose_comp_source;
    const std::string_view line = "#include \"compose.glsl\"";
    const size_t at = s.find(line);
    if (at == std::string::npos) throw kiln::Error("compose.comp has no include line for compose.glsl");
    s.replace(at, line.size(), compose_glsl_source);
    return s;
}

}  // namespace

Pipeline::Pipeline(const kiln::Context& ctx, const kiln::HostArray& image)
    : ctx_(ctx),
      image_(kiln::Array::from_host(ctx, image)),
      compose_(ctx, compose_source(), "main", {}, "compose") {}

void Pipeline::record(const Settings& s, const glsl::Params& p, kiln::Array& picture) {
    first_event_ = ctx_.profile().event_count();
    // The astronomy sample's steps: background, 5-sigma mask, labels.
    kiln::ClipResultAsync clip = kiln::kappa_sigma_clip_async(image_, s.kappa);
    kiln::LabelsAsync labels = kiln::label_async(kiln::threshold(image_, clip.stats, 1, s.nsigma), s.connectivity);
    kiln::Array blur = kiln::gaussian_blur(image_, s.sigma);
    kiln::Array stats = kiln::cast(clip.stats, kiln::DType::float32);  // median, std for the stretch
    compose_(image_, blur, labels.labels, stats, picture)
        .push_bytes("p", &p, sizeof p)
        .grid(static_cast<uint64_t>(p.width), static_cast<uint64_t>(p.height));
    count_ = labels.count;
    stats_ = clip.stats;
    recorded_ = true;
}

FrameStats Pipeline::collect() {
    FrameStats f;
    if (!recorded_) return f;
    recorded_ = false;
    f.sources = count_.to_vector<int32_t>().at(0);
    const std::vector<double> st = stats_.to_vector<double>();
    f.median = st.at(0);
    f.std = st.at(1);
    // The frame's kernels: the events of its submission (the first one
    // recorded after first_event_; later ones are the reads above).
    const std::vector<kiln::TraceEvent> events = ctx_.profile().events_since(first_event_);
    if (!events.empty()) {
        const uint64_t submission = events.front().submission;
        for (const kiln::TraceEvent& e : events) {
            if (e.submission != submission) continue;
            const double ms = e.duration_us / 1000.0;
            auto it = std::find_if(f.kernels.begin(), f.kernels.end(), [&](auto& k) { return k.first == e.name; });
            if (it == f.kernels.end())
                f.kernels.emplace_back(e.name, ms);
            else
                it->second += ms;
            f.total_ms += ms;
        }
    }
    f.valid = true;
    return f;
}

}  // namespace viewer
