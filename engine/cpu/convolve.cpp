#include "kiln/reference/convolve.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cpu/nd_index.hpp"
#include "host/op_rules.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {
namespace {

void require_ndim(const HostArray& a, size_t ndim, const char* fn, const char* what) {
    if (a.shape.empty())
        throw InvalidArgument(std::string(fn) + ": " + what +
                              " is empty; arrays with at least one element are accepted");
    if (a.shape.ndim() != ndim)
        throw InvalidArgument(std::string(fn) + ": " + what + " has shape " + a.shape.str() + "; a " +
                              std::to_string(ndim) + "-D array is required");
}

// Elements converted to the result type R first, then widened for summing.
template <typename R>
std::vector<double> values_as(const HostArray& a) {
    std::vector<double> v(a.size());
    visit_dtype(a.dtype, [&](auto t) {
        using T = decltype(t);
        auto src = a.as<T>();
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<R>(src[i]);
    });
    return v;
}

template <typename R>
HostArray convolve2d_as(const HostArray& image, const HostArray& kernel, ConvMode mode, Boundary boundary,
                        double fillvalue) {
    const Index h = static_cast<Index>(image.shape[0]), w = static_cast<Index>(image.shape[1]);
    const Index kh = static_cast<Index>(kernel.shape[0]), kw = static_cast<Index>(kernel.shape[1]);
    Index oh = h, ow = w, off0 = 0, off1 = 0;
    switch (mode) {
        case ConvMode::full:
            oh = h + kh - 1, ow = w + kw - 1;
            break;
        case ConvMode::same:
            off0 = (kh - 1) / 2, off1 = (kw - 1) / 2;
            break;
        case ConvMode::valid:
            oh = h - kh + 1, ow = w - kw + 1, off0 = kh - 1, off1 = kw - 1;
            break;
    }
    const std::vector<double> in = values_as<R>(image);
    const std::vector<double> k = values_as<R>(kernel);
    const double fill = static_cast<R>(fillvalue);

    // The image with the boundary applied over every position the kernel
    // reaches, so the sums below run without a branch.
    const Index ph = oh + kh - 1, pw = ow + kw - 1;
    const Index lo0 = off0 - (kh - 1), lo1 = off1 - (kw - 1);
    std::vector<double> padded(static_cast<size_t>(ph * pw));
    auto map = [boundary](Index i, Index n) {
        if (i >= 0 && i < n) return i;
        if (boundary == Boundary::symm) return symm_index(i, n);
        if (boundary == Boundary::wrap) return wrap_index(i, n);
        return Index{-1};
    };
    for (Index r = 0; r < ph; ++r) {
        const Index y = map(lo0 + r, h);
        for (Index c = 0; c < pw; ++c) {
            const Index x = map(lo1 + c, w);
            padded[static_cast<size_t>(r * pw + c)] =
                (y < 0 || x < 0) ? fill : in[static_cast<size_t>(y * w + x)];
        }
    }

    // Kernel rows outer, columns inner, each term added in the order SciPy
    // adds it, so float64 results match SciPy's to the last bit (unless the
    // compiler fuses the multiply-adds).
    HostArray out(Shape{static_cast<size_t>(oh), static_cast<size_t>(ow)}, dtype_of_v<R>);
    R* o = out.as<R>().data();
    std::vector<double> acc(static_cast<size_t>(ow));
    for (Index m = 0; m < oh; ++m) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (Index j = 0; j < kh; ++j) {
            const double* row = padded.data() + (m + kh - 1 - j) * pw;
            for (Index c = 0; c < kw; ++c) {
                const double wt = k[static_cast<size_t>(j * kw + c)];
                const double* src = row + (kw - 1 - c);
                for (Index n = 0; n < ow; ++n) acc[static_cast<size_t>(n)] += wt * src[n];
            }
        }
        for (Index n = 0; n < ow; ++n) o[m * ow + n] = static_cast<R>(acc[static_cast<size_t>(n)]);
    }
    return out;
}

template <typename R>
HostArray convolve_as(const HostArray& a, const HostArray& v, ConvMode mode) {
    const std::vector<double> sig = values_as<R>(a), ker = values_as<R>(v);
    const Index m = static_cast<Index>(sig.size()), n = static_cast<Index>(ker.size());
    Index len = m + n - 1, off = 0;
    if (mode == ConvMode::same) len = m, off = (n - 1) / 2;
    if (mode == ConvMode::valid) len = m - n + 1, off = n - 1;
    std::vector<double> acc(static_cast<size_t>(len), 0.0);
    for (Index k = 0; k < n; ++k) {
        // Output i reads sig[i + off - k], which must lie in [0, m).
        const Index first = std::max<Index>(0, k - off);
        const Index last = std::min<Index>(len, m + k - off);
        const double wt = ker[static_cast<size_t>(k)];
        for (Index i = first; i < last; ++i)
            acc[static_cast<size_t>(i)] += wt * sig[static_cast<size_t>(i + off - k)];
    }
    std::vector<R> out(acc.begin(), acc.end());
    return HostArray::from(Shape{static_cast<size_t>(len)}, out);
}

template <typename T, typename R>
void convolve1d_lines(const T* in, R* out, size_t outer, Index n, size_t inner, std::span<const double> wts,
                      NdMode mode, double cval, Index centre) {
    const Index size = static_cast<Index>(wts.size());
    if (inner == 1) {
        // Contiguous lines: extend each into a buffer once, then plain dot
        // products. out[i] = sum_k w[k] * buf[i + size - 1 - k].
        std::vector<double> buf(static_cast<size_t>(n + size - 1));
        const Index lo = centre - (size - 1);
        for (size_t o = 0; o < outer; ++o) {
            const T* line = in + o * static_cast<size_t>(n);
            for (Index t = 0; t < n + size - 1; ++t) {
                const Index src = nd_index(lo + t, n, mode);
                buf[static_cast<size_t>(t)] = src < 0 ? cval : static_cast<double>(line[src]);
            }
            R* dst = out + o * static_cast<size_t>(n);
            for (Index i = 0; i < n; ++i) {
                double s = 0.0;
                for (Index k = 0; k < size; ++k)
                    s += wts[static_cast<size_t>(k)] * buf[static_cast<size_t>(i + size - 1 - k)];
                dst[i] = static_cast<R>(s);
            }
        }
        return;
    }
    // Strided axis: accumulate whole rows of the inner dimensions, which are
    // contiguous, instead of walking each line across memory.
    std::vector<double> acc(inner);
    for (size_t o = 0; o < outer; ++o) {
        const T* slab = in + o * static_cast<size_t>(n) * inner;
        R* dst = out + o * static_cast<size_t>(n) * inner;
        for (Index i = 0; i < n; ++i) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (Index k = 0; k < size; ++k) {
                const double wt = wts[static_cast<size_t>(k)];
                const Index src = nd_index(i - k + centre, n, mode);
                if (src < 0) {
                    for (size_t j = 0; j < inner; ++j) acc[j] += wt * cval;
                    continue;
                }
                const T* row = slab + static_cast<size_t>(src) * inner;
                for (size_t j = 0; j < inner; ++j) acc[j] += wt * static_cast<double>(row[j]);
            }
            for (size_t j = 0; j < inner; ++j)
                dst[static_cast<size_t>(i) * inner + j] = static_cast<R>(acc[j]);
        }
    }
}

}  // namespace

HostArray convolve2d(const HostArray& image, const HostArray& kernel, ConvMode mode, Boundary boundary,
                     double fillvalue) {
    require_ndim(image, 2, "convolve2d", "the image");
    require_ndim(kernel, 2, "convolve2d", "the kernel");
    const HostArray* in = &image;
    const HostArray* k = &kernel;
    if (mode == ConvMode::valid) {
        const bool image_fits = image.shape[0] >= kernel.shape[0] && image.shape[1] >= kernel.shape[1];
        const bool kernel_fits = kernel.shape[0] >= image.shape[0] && kernel.shape[1] >= image.shape[1];
        if (!image_fits && !kernel_fits)
            throw InvalidArgument(
                "convolve2d: in 'valid' mode one input must be at least as large "
                "as the other in every dimension; got image " +
                image.shape.str() + " and kernel " + kernel.shape.str());
        if (!image_fits) std::swap(in, k);
    }
    if (convolution_dtype(image.dtype, kernel.dtype) == DType::float64)
        return convolve2d_as<double>(*in, *k, mode, boundary, fillvalue);
    return convolve2d_as<float>(*in, *k, mode, boundary, fillvalue);
}

HostArray convolve(const HostArray& a, const HostArray& v, ConvMode mode) {
    require_ndim(a, 1, "convolve", "a");
    require_ndim(v, 1, "convolve", "v");
    const HostArray& sig = v.size() > a.size() ? v : a;
    const HostArray& ker = v.size() > a.size() ? a : v;
    if (convolution_dtype(a.dtype, v.dtype) == DType::float64) return convolve_as<double>(sig, ker, mode);
    return convolve_as<float>(sig, ker, mode);
}

HostArray convolve1d(const HostArray& input, std::span<const double> weights, int axis, NdMode mode,
                     double cval, int origin) {
    if (input.shape.empty())
        throw InvalidArgument(
            "convolve1d: the input is empty; arrays with at least one "
            "element are accepted");
    if (weights.empty()) throw InvalidArgument("convolve1d: no weights given; at least one is needed");
    const int ndim = static_cast<int>(input.shape.ndim());
    if (axis < -ndim || axis >= ndim)
        throw InvalidArgument("convolve1d: axis " + std::to_string(axis) + " is out of range for shape " +
                              input.shape.str() + "; accepted: " + std::to_string(-ndim) + " .. " +
                              std::to_string(ndim - 1));
    const Index size = static_cast<Index>(weights.size());
    const Index centre = size / 2 + origin;
    if (centre < 0 || centre >= size)
        throw InvalidArgument("convolve1d: origin " + std::to_string(origin) + " is invalid for " +
                              std::to_string(size) + " weights; accepted: " + std::to_string(-(size / 2)) +
                              " .. " + std::to_string((size - 1) / 2));
    const size_t ax = static_cast<size_t>(axis < 0 ? axis + ndim : axis);
    size_t outer = 1, inner = 1;
    for (size_t i = 0; i < ax; ++i) outer *= input.shape[i];
    for (size_t i = ax + 1; i < input.shape.ndim(); ++i) inner *= input.shape[i];
    const Index n = static_cast<Index>(input.shape[ax]);

    const DType out_t = dtype_is_float(input.dtype) ? input.dtype : DType::float32;
    HostArray out(input.shape, out_t);
    visit_dtype(input.dtype, [&](auto t) {
        using T = decltype(t);
        const T* in = input.as<T>().data();
        if (out_t == DType::float64)
            convolve1d_lines(in, out.as<double>().data(), outer, n, inner, weights, mode, cval, centre);
        else
            convolve1d_lines(in, out.as<float>().data(), outer, n, inner, weights, mode, cval, centre);
    });
    return out;
}

}  // namespace kiln::cpu
