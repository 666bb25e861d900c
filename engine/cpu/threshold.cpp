// CPU references for the automatic thresholds and the host steps the GPU
// ops share: every formula in the dtype and order scikit-image 0.19 uses
// (NumPy's cumulative sums are sequential, so plain loops repeat them).
#include "kiln/reference/threshold.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kiln/error.hpp"
#include "kiln/reference/histogram.hpp"

namespace kiln::cpu {

namespace {

// numpy.argmax: the first maximum, or the first NaN (NumPy takes NaN as largest).
template <typename V> size_t argmax(const std::vector<V>& v) {
    size_t best = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        if (std::isnan(v[i])) return i;
        if (v[i] > v[best]) best = i;
    }
    return best;
}

// The finite values as double, with their range.
struct Finite {
    std::vector<double> values;
    double min = 0, max = 0;
};

Finite finite_values(const HostArray& image) {
    Finite f;
    for (size_t i = 0; i < image.size(); ++i) {
        const double x = image.at(i);
        if (!std::isfinite(x)) continue;
        if (f.values.empty() || x < f.min) f.min = x;
        if (f.values.empty() || x > f.max) f.max = x;
        f.values.push_back(x);
    }
    return f;
}

void check_histogram(const ThresholdHistogram& h, const char* op) {
    if (h.counts.size() < 2)
        throw InvalidArgument(std::string(op) + ": the histogram has " + std::to_string(h.counts.size()) +
                              " bin; it needs at least 2 (give nbins >= 2)");
}

}  // namespace

std::vector<double> bin_centers(const std::vector<double>& edges, bool f32) {
    std::vector<double> c(edges.size() - 1);
    for (size_t i = 0; i + 1 < edges.size(); ++i) {
        if (f32) {
            const float s = static_cast<float>(edges[i]) + static_cast<float>(edges[i + 1]);
            c[i] = static_cast<double>(s / 2.0f);
        } else {
            c[i] = (edges[i] + edges[i + 1]) / 2.0;
        }
    }
    return c;
}

ThresholdHistogram threshold_histogram(const HostArray& image, int nbins) {
    if (nbins < 1) throw InvalidArgument("threshold: nbins = " + std::to_string(nbins) + "; it must be >= 1");
    const Finite f = finite_values(image);
    if (f.values.empty())
        throw InvalidArgument("threshold: the image has no finite value (" + std::to_string(image.size()) +
                              " elements); thresholds need at least one");
    ThresholdHistogram h;
    if (f.min == f.max) {
        h.single = true;
        h.counts = {static_cast<int64_t>(f.values.size())};
        h.centers = {f.min};
        return h;
    }
    if (!dtype_is_float(image.dtype)) {
        const double span = f.max - f.min + 1;
        if (span > double(1 << 24))
            throw Unsupported("threshold: an integer image spanning " + std::to_string(span) +
                              " values needs one bin per value; at most 2^24 are supported");
        h.counts.assign(static_cast<size_t>(span), 0);
        for (double x : f.values) ++h.counts[static_cast<size_t>(x - f.min)];
        for (size_t i = 0; i < h.counts.size(); ++i) h.centers.push_back(f.min + double(i));
        return h;
    }
    Histogram n = histogram(image, nbins);
    h.counts = n.counts;
    h.centers = bin_centers(n.edges, image.dtype == DType::float32);
    return h;
}

double otsu_threshold(const ThresholdHistogram& h) {
    if (h.single) return h.centers[0];
    check_histogram(h, "threshold_otsu");
    const size_t n = h.counts.size();
    std::vector<double> w1(n), w2(n), m1(n), m2(n), cb(n);
    double acc = 0, acc_cb = 0;
    for (size_t i = 0; i < n; ++i) {
        cb[i] = double(h.counts[i]) * h.centers[i];
        acc += double(h.counts[i]);
        acc_cb += cb[i];
        w1[i] = acc;
        m1[i] = acc_cb / acc;
    }
    acc = 0, acc_cb = 0;
    for (size_t j = n; j-- > 0;) {
        acc += double(h.counts[j]);
        acc_cb += cb[j];
        w2[j] = acc;
        m2[j] = acc_cb / acc;
    }
    std::vector<double> variance(n - 1);
    for (size_t i = 0; i + 1 < n; ++i) {
        const double d = m1[i] - m2[i + 1];
        variance[i] = w1[i] * w2[i + 1] * (d * d);
    }
    return h.centers[argmax(variance)];
}

double yen_threshold(const ThresholdHistogram& h) {
    if (h.single) return h.centers[0];
    check_histogram(h, "threshold_yen");
    const size_t n = h.counts.size();
    double total = 0;
    for (int64_t c : h.counts) total += double(c);
    const float tf = static_cast<float>(total);
    std::vector<float> pmf(n), p1(n), p1_sq(n), p2_sq(n);
    float a = 0, b = 0;
    for (size_t i = 0; i < n; ++i) {
        pmf[i] = static_cast<float>(h.counts[i]) / tf;
        a += pmf[i];
        b += pmf[i] * pmf[i];
        p1[i] = a, p1_sq[i] = b;
    }
    b = 0;
    for (size_t j = n; j-- > 0;) {
        b += pmf[j] * pmf[j];
        p2_sq[j] = b;
    }
    std::vector<float> crit(n - 1);
    for (size_t i = 0; i + 1 < n; ++i) {
        const float inv = 1.0f / (p1_sq[i] * p2_sq[i + 1]);
        const float q = p1[i] * (1.0f - p1[i]);
        crit[i] = std::log(inv * (q * q));
    }
    return h.centers[argmax(crit)];
}

double triangle_threshold(const ThresholdHistogram& h) {
    if (h.single || h.counts.size() < 2)
        throw InvalidArgument("threshold_triangle: the image has a single value; the triangle method needs a "
                              "histogram with a peak and a tail");
    std::vector<int64_t> hist = h.counts;
    const int64_t nb = static_cast<int64_t>(hist.size());
    int64_t peak = static_cast<int64_t>(argmax(hist));
    const int64_t peak_height = hist[static_cast<size_t>(peak)];
    int64_t low = 0, high = nb - 1;
    while (hist[static_cast<size_t>(low)] == 0) ++low;
    while (hist[static_cast<size_t>(high)] == 0) --high;
    const bool flip = peak - low < high - peak;
    if (flip) {
        std::reverse(hist.begin(), hist.end());
        low = nb - high - 1;
        peak = nb - peak - 1;
    }
    const int64_t width = peak - low;
    if (width == 0)
        throw InvalidArgument("threshold_triangle: the histogram's peak is at its end on both sides; "
                              "there is no tail to fit a line to");
    const double norm = std::sqrt(double(peak_height * peak_height + width * width));
    const double ph = double(peak_height) / norm, w = double(width) / norm;
    std::vector<double> length(static_cast<size_t>(width));
    for (int64_t x = 0; x < width; ++x)
        length[static_cast<size_t>(x)] = ph * double(x) - w * double(hist[static_cast<size_t>(x + low)]);
    int64_t level = static_cast<int64_t>(argmax(length)) + low;
    if (flip) level = nb - level - 1;
    return h.centers[static_cast<size_t>(level)];
}

double threshold_otsu(const HostArray& image, int nbins) { return otsu_threshold(threshold_histogram(image, nbins)); }
double threshold_yen(const HostArray& image, int nbins) { return yen_threshold(threshold_histogram(image, nbins)); }
double threshold_triangle(const HostArray& image, int nbins) {
    return triangle_threshold(threshold_histogram(image, nbins));
}

double li_iterate(LiSums all, const std::function<LiSums(double)>& above, bool f32, bool integer,
                  double tolerance, int* iterations) {
    auto round = [f32](double v) { return f32 ? static_cast<double>(static_cast<float>(v)) : v; };
    // Without a tolerance, float images iterate to the fixed point (see threshold_li).
    const bool to_fixed_point = tolerance <= 0 && !integer;
    if (tolerance <= 0) tolerance = integer ? 0.5 : 0;
    double t_next = round(all.sum / all.count), t_curr = -2 * tolerance;
    double previous = -1;
    int taken = 0;
    auto step = [&](double a, double b) { return f32 ? double(static_cast<float>(a) - static_cast<float>(b)) : a - b; };
    while (to_fixed_point || std::abs(step(t_next, t_curr)) > tolerance) {
        if (taken >= 10000) break;  // a float cycle; never seen, but never hang
        t_curr = t_next;
        const LiSums fore = above(t_curr);
        ++taken;
        if (to_fixed_point && fore.count == previous) break;  // same set above: t_next == t_curr
        previous = fore.count;
        const double mf = round(fore.sum / fore.count);
        const double mb = round((all.sum - fore.sum) / (all.count - fore.count));
        if (f32) {
            const float fmf = static_cast<float>(mf), fmb = static_cast<float>(mb);
            t_next = static_cast<double>((fmb - fmf) / (std::log(fmb) - std::log(fmf)));
        } else {
            t_next = (mb - mf) / (std::log(mb) - std::log(mf));
        }
        if (std::isnan(t_next)) break;
    }
    if (iterations) *iterations = taken;
    return t_next;
}

double threshold_li(const HostArray& image, double tolerance) {
    const Finite f = finite_values(image);
    if (f.values.empty()) return std::numeric_limits<double>::quiet_NaN();
    if (f.min == f.max) return f.min;
    const bool f32 = image.dtype == DType::float32;
    std::vector<double> d(f.values.size());
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = f32 ? double(static_cast<float>(f.values[i]) - static_cast<float>(f.min)) : f.values[i] - f.min;
    LiSums all;
    for (double v : d) all.count += 1, all.sum += v;
    const double t = li_iterate(
        all,
        [&](double t) {
            LiSums s;
            for (double v : d)
                if (v > t) s.count += 1, s.sum += v;
            return s;
        },
        f32, !dtype_is_float(image.dtype), tolerance);
    return f32 ? double(static_cast<float>(t) + static_cast<float>(f.min)) : t + f.min;
}

}  // namespace kiln::cpu
