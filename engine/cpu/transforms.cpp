// SciPy 1.10's interpolation, in its own order of operations: every mapped
// coordinate, tap index and weight as ni_interpolation.c and ni_splines.c
// compute them (so that order 0 picks the same element at exact halves).
#include "kiln/reference/transforms.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "host/transform_plan.hpp"
#include "kiln/error.hpp"

namespace kiln::cpu {

namespace {

using namespace kiln::transform;

// An array of doubles with its extents (NumPy order).
struct Grid {
    size_t ndim = 0;
    std::array<size_t, 3> n{1, 1, 1};
    std::vector<double> v;
    size_t stride(size_t a) const {
        size_t s = 1;
        for (size_t b = a + 1; b < ndim; ++b) s *= n[b];
        return s;
    }
};

Grid grid_of(const HostArray& h) {
    Grid g;
    g.ndim = h.shape.ndim();
    for (size_t a = 0; a < g.ndim; ++a) g.n[a] = h.shape[a];
    g.v.resize(h.size());
    for (size_t i = 0; i < h.size(); ++i) g.v[i] = h.at(i);
    return g;
}

// map_coordinate of ni_interpolation.c.
double map_coordinate(double in, double len, int mode) {
    if (in < 0) {
        switch (mode) {
            case mirror:
                if (len <= 1) return 0;
                {
                    const double sz2 = 2 * len - 2;
                    in = sz2 * std::trunc(-in / sz2) + in;
                    return in <= 1 - len ? in + sz2 : -in;
                }
            case reflect:
                if (len <= 1) return 0;
                {
                    const double sz2 = 2 * len;
                    if (in < -sz2) in = sz2 * std::trunc(-in / sz2) + in;
                    return in < -len ? in + sz2 : (in > -1e-15 ? 1e-15 : -in) - 1;
                }
            case wrap:
                if (len <= 1) return 0;
                {
                    const double sz = len - 1;
                    return in + sz * (std::trunc(-in / sz) + 1);
                }
            case grid_wrap:
                if (len <= 1) return 0;
                return in + len * (std::trunc((-1 - in) / len) + 1);
            case nearest: return 0;
            case constant: return -1;
        }
    } else if (in > len - 1) {
        switch (mode) {
            case mirror:
                if (len <= 1) return 0;
                {
                    const double sz2 = 2 * len - 2;
                    in -= sz2 * std::trunc(in / sz2);
                    return in >= len ? sz2 - in : in;
                }
            case reflect:
                if (len <= 1) return 0;
                {
                    const double sz2 = 2 * len;
                    in -= sz2 * std::trunc(in / sz2);
                    return in >= len ? sz2 - in - 1 : in;
                }
            case wrap:
                if (len <= 1) return 0;
                return in - (len - 1) * std::trunc(in / (len - 1));
            case grid_wrap:
                if (len <= 1) return 0;
                return in - len * std::trunc(in / len);
            case nearest: return len - 1;
            case constant: return -1;
        }
    }
    return in;
}

// The initial values of ni_splines.c (1.10.1's, the aliasing of
// _init_causal_reflect on short lines included).
void init_causal_mirror(double* c, ptrdiff_t n, double z) {
    double z_i = z;
    const double z_n_1 = std::pow(z, double(n - 1));
    c[0] = c[0] + z_n_1 * c[n - 1];
    for (ptrdiff_t i = 1; i < n - 1; ++i) {
        c[0] += z_i * (c[i] + z_n_1 * c[n - 1 - i]);
        z_i *= z;
    }
    c[0] /= 1 - z_n_1 * z_n_1;
}
void init_anticausal_mirror(double* c, ptrdiff_t n, double z) {
    c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1);
}
void init_causal_wrap(double* c, ptrdiff_t n, double z) {
    double z_i = z;
    for (ptrdiff_t i = 1; i < n; ++i) {
        c[0] += z_i * c[n - i];
        z_i *= z;
    }
    c[0] /= 1 - z_i;
}
void init_anticausal_wrap(double* c, ptrdiff_t n, double z) {
    double z_i = z;
    for (ptrdiff_t i = 0; i < n - 1; ++i) {
        c[n - 1] += z_i * c[i];
        z_i *= z;
    }
    c[n - 1] *= z / (z_i - 1);
}
void init_causal_reflect(double* c, ptrdiff_t n, double z) {
    double z_i = z;
    const double z_n = std::pow(z, double(n)), c0 = c[0];
    c[0] = c[0] + z_n * c[n - 1];
    for (ptrdiff_t i = 1; i < n; ++i) {
        c[0] += z_i * (c[i] + z_n * c[n - 1 - i]);
        z_i *= z;
    }
    c[0] *= z / (1 - z_n * z_n);
    c[0] += c0;
}
void init_anticausal_reflect(double* c, ptrdiff_t n, double z) {
    c[n - 1] *= z / (z - 1);
}

void filter_line(double* c, ptrdiff_t n, int code) {
    if (n <= 1) return;
    using Init = void (*)(double*, ptrdiff_t, double);
    Init causal = init_causal_mirror, anticausal = init_anticausal_mirror;
    if (code == grid_wrap) causal = init_causal_wrap, anticausal = init_anticausal_wrap;
    if (code == nearest || code == reflect) causal = init_causal_reflect, anticausal = init_anticausal_reflect;
    const double z = cubic_pole, gain = (1.0 - z) * (1.0 - 1.0 / z);
    for (ptrdiff_t i = 0; i < n; ++i) c[i] *= gain;
    causal(c, n, z);
    for (ptrdiff_t i = 1; i < n; ++i) c[i] += z * c[i - 1];
    anticausal(c, n, z);
    for (ptrdiff_t i = n - 2; i >= 0; --i) c[i] = z * (c[i + 1] - c[i]);
}

void filter_axes(Grid& g, int code) {
    std::vector<double> line;
    for (size_t a = 0; a < g.ndim; ++a) {
        const size_t s = g.stride(a), len = g.n[a], outer = g.v.size() / (len * s);
        line.resize(len);
        for (size_t o = 0; o < outer; ++o)
            for (size_t i = 0; i < s; ++i) {
                double* base = g.v.data() + o * len * s + i;
                for (size_t k = 0; k < len; ++k) line[k] = base[k * s];
                filter_line(line.data(), ptrdiff_t(len), code);
                for (size_t k = 0; k < len; ++k) base[k * s] = line[k];
            }
    }
}

// numpy.pad(g, npad, mode='edge' or 'constant').
Grid pad(const Grid& g, size_t npad, bool edge, double cval) {
    Grid p;
    p.ndim = g.ndim;
    for (size_t a = 0; a < g.ndim; ++a) p.n[a] = g.n[a] + 2 * npad;
    p.v.assign(p.n[0] * p.n[1] * p.n[2], cval);
    for (size_t i = 0; i < p.v.size(); ++i) {
        size_t rest = i, src = 0, step = 1;
        bool inside = true;
        for (size_t a = g.ndim; a-- > 0;) {
            ptrdiff_t q = ptrdiff_t(rest % p.n[a]) - ptrdiff_t(npad);
            rest /= p.n[a];
            if (q < 0 || q >= ptrdiff_t(g.n[a])) inside = false;
            q = std::clamp<ptrdiff_t>(q, 0, ptrdiff_t(g.n[a]) - 1);
            src += size_t(q) * step;
            step *= g.n[a];
        }
        if (inside || edge) p.v[i] = g.v[src];
    }
    return p;
}

// The coefficients interpolated: the input, or its spline filter after
// _prepad_for_spline_filter.
struct Source {
    Grid g;
    int npad = 0;
};

Source source_of(const HostArray& input, const Interp& ip) {
    Source s{grid_of(input), 0};
    if (!(ip.prefilter && ip.order > 1)) return s;
    const int code = code_of(ip.mode);
    s.npad = prepad(code);
    if (s.npad) s.g = pad(s.g, size_t(s.npad), code == nearest, ip.cval);
    filter_axes(s.g, code);
    return s;
}

void spline_weights(double x, int order, double* w) {
    x -= std::floor(order & 1 ? x : x + 0.5);
    if (order == 1) {
        w[0] = 1.0 - x;
    } else {
        const double y = x, z = 1.0 - x;
        w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
        w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
        w[0] = z * z * z / 6.0;
    }
    w[order] = 1.0;
    for (int i = 0; i < order; ++i) w[order] -= w[i];
}

// The value at input coordinates icoor (one per axis), as the loop body of
// NI_GeometricTransform.
double interpolate(const Source& s, const double* icoor, const Interp& ip) {
    const Grid& g = s.g;
    const int code = code_of(ip.mode), sc = spline_code(code), order = ip.order;
    ptrdiff_t idx[3][4];
    bool outside[3][4] = {};
    double w[3][4];
    for (size_t a = 0; a < g.ndim; ++a) {
        const double len = double(g.n[a]);
        double cc = icoor[a] + s.npad;
        if (code != grid_constant && code != nearest) cc = map_coordinate(cc, len, code);
        if (!(cc > -1.0 || code == grid_constant || code == nearest)) return ip.cval;
        const ptrdiff_t start =
            ptrdiff_t(order & 1 ? std::floor(cc) : std::floor(cc + 0.5)) - order / 2;
        const bool edge = start < 0 || start + order >= ptrdiff_t(len);
        for (int k = 0; k <= order; ++k) {
            ptrdiff_t j = start + k;
            if (code == grid_constant)
                outside[a][k] = j < 0 || j >= ptrdiff_t(len);
            else if (edge)
                j = ptrdiff_t(map_coordinate(double(j), len, sc));
            idx[a][k] = j;
        }
        if (order > 0) spline_weights(cc, order, w[a]);
    }
    double t = 0;
    const size_t taps = order + 1, size = g.ndim == 1 ? taps : g.ndim == 2 ? taps * taps : taps * taps * taps;
    for (size_t h = 0; h < size; ++h) {
        size_t f[3], rest = h;
        for (size_t a = g.ndim; a-- > 0;) f[a] = rest % taps, rest /= taps;
        bool is_cval = false;
        size_t off = 0;
        for (size_t a = 0; a < g.ndim; ++a) {
            is_cval = is_cval || outside[a][f[a]];
            if (!outside[a][f[a]]) off += size_t(idx[a][f[a]]) * g.stride(a);
        }
        double coeff = is_cval ? ip.cval : g.v[off];
        for (size_t a = 0; a < g.ndim; ++a)
            if (order > 0) coeff *= w[a][f[a]];
        t += coeff;
    }
    return t;
}

DType result_dtype(DType t) {
    return t == DType::float64 ? DType::float64 : DType::float32;
}

void store(HostArray& out, size_t i, double v) {
    if (out.dtype == DType::float64)
        out.as<double>()[i] = v;
    else
        out.as<float>()[i] = static_cast<float>(v);
}

void check(const HostArray& input, const Interp& ip, const char* op) {
    if (input.shape.empty()) throw InvalidArgument(std::string(op) + ": the input is empty");
    check_interp(ip, op);
}

// Every output of a zoom_shift or matrix plan.
HostArray run(const HostArray& input, const Plan& p, const Interp& ip) {
    const Source s = source_of(input, ip);
    HostArray out(p.out, result_dtype(input.dtype));
    const size_t n = p.in.ndim();
    for (size_t i = 0; i < out.size(); ++i) {
        size_t o[3], rest = i;
        for (size_t a = n; a-- > 0;) o[a] = rest % p.out[a], rest /= p.out[a];
        double icoor[3];
        for (size_t a = 0; a < n; ++a) {
            if (p.matrix) {
                icoor[a] = 0.0;
                for (size_t l = 0; l < n; ++l) icoor[a] += double(o[l]) * p.m[a * n + l];
                icoor[a] += p.offset[a];
            } else {
                double cc = double(o[a]);
                if (p.has_shift) cc += p.shift[a];
                if (p.has_zoom) {
                    if (p.grid_mode) {
                        cc += 0.5;
                        cc *= p.zoom[a];
                        cc -= 0.5;
                    } else {
                        cc *= p.zoom[a];
                    }
                }
                icoor[a] = cc;
            }
        }
        store(out, i, interpolate(s, icoor, ip));
    }
    return out;
}

}  // namespace

HostArray spline_filter(const HostArray& input, InterpMode mode) {
    if (input.shape.empty()) throw InvalidArgument("spline_filter: the input is empty");
    Grid g = grid_of(input);
    filter_axes(g, code_of(mode));
    return HostArray::from(input.shape, g.v);
}

HostArray shift(const HostArray& input, const std::vector<double>& s, const Interp& ip) {
    check(input, ip, "shift");
    return run(input, shift_plan(input.shape, s), ip);
}

HostArray zoom(const HostArray& input, const std::vector<double>& z, const Interp& ip, bool grid_mode) {
    check(input, ip, "zoom");
    return run(input, zoom_plan(input.shape, z, grid_mode), ip);
}

HostArray affine_transform(const HostArray& input, const std::vector<double>& matrix,
                           const std::vector<double>& offset, const std::vector<size_t>& output_shape,
                           const Interp& ip) {
    check(input, ip, "affine_transform");
    return run(input, affine_plan(input.shape, matrix, offset, output_shape), ip);
}

HostArray rotate(const HostArray& input, double angle, std::array<int, 2> axes, bool reshape, const Interp& ip) {
    check(input, ip, "rotate");
    const Plan p = rotate_plan(input.shape, angle, axes, reshape);
    if (input.shape.ndim() == 2) return run(input, p, ip);
    // A volume: each plane along the axis not rotated, as a 2-D image.
    size_t other = 0;
    while (p.interpolated[other]) ++other;
    const size_t a0 = other == 0 ? 1 : 0, a1 = other == 2 ? 1 : 2;
    HostArray out(p.out, result_dtype(input.dtype));
    for (size_t k = 0; k < input.shape[other]; ++k) {
        HostArray plane(Shape{input.shape[a0], input.shape[a1]}, DType::float64);
        auto index = [&](const Shape& s, size_t i0, size_t i1) {
            size_t q[3];
            q[other] = k, q[a0] = i0, q[a1] = i1;
            return (q[0] * s[1] + q[1]) * s[2] + q[2];
        };
        for (size_t i = 0; i < input.shape[a0]; ++i)
            for (size_t j = 0; j < input.shape[a1]; ++j)
                plane.as<double>()[i * input.shape[a1] + j] = input.at(index(input.shape, i, j));
        const HostArray r = run(plane, rotate_plan(plane.shape, angle, {0, 1}, reshape), ip);
        for (size_t i = 0; i < p.out[a0]; ++i)
            for (size_t j = 0; j < p.out[a1]; ++j) store(out, index(p.out, i, j), r.at(i * p.out[a1] + j));
    }
    return out;
}

HostArray map_coordinates(const HostArray& input, const HostArray& coordinates, const Interp& ip) {
    check(input, ip, "map_coordinates");
    const Shape oshape = coordinates_output(input.shape, coordinates.shape);
    const Source s = source_of(input, ip);
    HostArray out(oshape, result_dtype(input.dtype));
    const size_t n = input.shape.ndim(), count = oshape.size();
    for (size_t i = 0; i < count; ++i) {
        double icoor[3];
        for (size_t a = 0; a < n; ++a) icoor[a] = coordinates.at(a * count + i);
        store(out, i, interpolate(s, icoor, ip));
    }
    return out;
}

}  // namespace kiln::cpu
