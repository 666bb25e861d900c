#include "picture.hpp"

#include "kiln/reference/clip.hpp"
#include "kiln/reference/elementwise.hpp"
#include "kiln/reference/gaussian.hpp"
#include "kiln/reference/label.hpp"

namespace viewer {

CpuResults cpu_pipeline(const kiln::HostArray& image, const Settings& s) {
    CpuResults r;
    const kiln::cpu::ClipResult clip = kiln::cpu::kappa_sigma_clip(image, s.kappa);
    const kiln::cpu::LabelResult lab =
        kiln::cpu::label(kiln::cpu::threshold(image, s.nsigma * clip.std), s.connectivity);
    r.labels = lab.labels;
    r.count = lab.count;
    r.median = static_cast<float>(clip.median);
    r.std = static_cast<float>(clip.std);
    r.blur = kiln::cpu::gaussian_filter(image, {0, s.sigma, s.sigma});
    return r;
}

std::vector<uint32_t> cpu_picture(const glsl::Params& p, const kiln::HostArray& image, const CpuResults& r) {
    std::vector<uint32_t> out(size_t(p.width) * size_t(p.height));
    auto img = image.as<float>();
    auto blur = r.blur.as<float>();
    auto labels = r.labels.as<int32_t>();
    for (int oy = 0; oy < p.height; ++oy)
        for (int ox = 0; ox < p.width; ++ox) {
            const glsl::Sample s = glsl::locate(p, ox, oy);
            float v = 0, b = 0;
            int l = 0;
            if (s.index >= 0) {
                v = img[s.index];
                b = blur[s.index];
                l = labels[s.index];
            }
            out[size_t(oy) * p.width + ox] = glsl::pixel_colour(s, v, b, l, r.median, r.std, p);
        }
    return out;
}

}  // namespace viewer
