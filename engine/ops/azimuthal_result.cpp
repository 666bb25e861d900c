// Pulling an integration's results back to the host.
#include "kiln/azimuthal.hpp"

#include <algorithm>

namespace kiln {

Profile1d AzimuthalResult::to_host(size_t frame) const {
    if (!intensity) throw InvalidArgument("AzimuthalResult::to_host on an empty result");
    // A cake's rows: every azimuth bin's radial bins.
    const size_t bins = radial.size() * std::max<size_t>(1, azimuthal.size());
    const size_t frames = bins ? intensity.size() / bins : 0;
    if (frame >= frames)
        throw InvalidArgument("AzimuthalResult::to_host: frame " + std::to_string(frame) + " of a result of " +
                              std::to_string(frames) + " frames");
    auto take = [&](const Array& a) {
        const auto v = a.to_vector<float>();
        return std::vector<double>(v.begin() + long(frame * bins), v.begin() + long((frame + 1) * bins));
    };
    Profile1d p;
    for (size_t a = 0; a < std::max<size_t>(1, azimuthal.size()); ++a)
        p.radial.insert(p.radial.end(), radial.begin(), radial.end());
    p.intensity = take(intensity);
    p.sem = take(sem);
    p.sigma = p.sem;
    p.std = take(std);
    p.sum_signal = take(sum_signal);
    p.sum_variance = take(sum_variance);
    p.sum_normalization = take(sum_normalization);
    p.sum_normalization_sq = take(sum_normalization_sq);
    p.count = take(count);
    return p;
}

} // namespace kiln
