#include "plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "kiln/io.hpp"

namespace sample {

namespace {

using Rgb = std::array<uint8_t, 3>;

class Canvas {
public:
    Canvas(int w, int h) : w_(w), h_(h), px_(size_t(w) * h * 3, 255) {}
    void set(int x, int y, Rgb c) {
        if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
        std::copy(c.begin(), c.end(), px_.begin() + (size_t(y) * w_ + x) * 3);
    }
    // Bresenham's line, two pixels thick for visibility.
    void line(int x0, int y0, int x1, int y1, Rgb c) {
        const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
        const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
        int err = dx + dy;
        for (;;) {
            set(x0, y0, c);
            set(x0, y0 + 1, c);
            if (x0 == x1 && y0 == y1) break;
            const int e2 = 2 * err;
            if (e2 >= dy) err += dy, x0 += sx;
            if (e2 <= dx) err += dx, y0 += sy;
        }
    }
    // Text in a 3x5 pixel font (digits, '.', '-', 'e', 'q', 'I'), each font
    // pixel a scale x scale square; (x, y) is the top left corner.
    void text(int x, int y, const std::string& s, int scale, Rgb c) {
        for (char ch : s) {
            const uint16_t g = glyph(ch);
            for (int r = 0; r < 5; ++r)
                for (int k = 0; k < 3; ++k)
                    if (g >> (14 - (r * 3 + k)) & 1)
                        for (int dy = 0; dy < scale; ++dy)
                            for (int dx = 0; dx < scale; ++dx) set(x + k * scale + dx, y + r * scale + dy, c);
            x += 4 * scale;
        }
    }
    static int text_width(const std::string& s, int scale) { return int(s.size()) * 4 * scale - scale; }
    const std::vector<uint8_t>& pixels() const { return px_; }

private:
    // Rows of 3 bits, top row in the high bits.
    static uint16_t glyph(char ch) {
        switch (ch) {
        case '0': return 0b111'101'101'101'111;
        case '1': return 0b010'110'010'010'111;
        case '2': return 0b111'001'111'100'111;
        case '3': return 0b111'001'111'001'111;
        case '4': return 0b101'101'111'001'001;
        case '5': return 0b111'100'111'001'111;
        case '6': return 0b111'100'111'101'111;
        case '7': return 0b111'001'001'001'001;
        case '8': return 0b111'101'111'101'111;
        case '9': return 0b111'101'111'001'111;
        case '.': return 0b000'000'000'000'010;
        case '-': return 0b000'000'111'000'000;
        case 'e': return 0b111'100'111'100'111;
        case 'q': return 0b000'111'101'111'001;
        case 'I': return 0b111'010'010'010'111;
        default: return 0;
        }
    }
    int w_, h_;
    std::vector<uint8_t> px_;
};

std::string fixed(double v, int decimals) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

}  // namespace

std::vector<std::string> plot_profiles(const std::string& path, const std::vector<double>& x,
                                       const std::vector<Curve>& curves, int width, int height) {
    const Rgb palette[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                           {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127}};
    const int left = 70, right = 30, top = 20, bottom = 50, scale = 2;
    const int pw = width - left - right, ph = height - top - bottom;
    double x0 = x.empty() ? 0 : x.front(), x1 = x.empty() ? 1 : x.back();
    if (!(x1 > x0)) x1 = x0 + 1;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& c : curves)
        for (double v : c.y)
            if (std::isfinite(v) && v > 0) lo = std::min(lo, std::log10(v)), hi = std::max(hi, std::log10(v));
    if (!(hi > lo)) lo = 0, hi = 1;
    lo = std::floor(lo), hi = std::ceil(hi);
    auto px = [&](double v) { return left + int(std::lround((v - x0) / (x1 - x0) * pw)); };
    auto py = [&](double v) { return top + ph - int(std::lround((std::log10(v) - lo) / (hi - lo) * ph)); };

    Canvas c(width, height);
    const Rgb grid{225, 225, 225}, axis{0, 0, 0};
    for (double d = lo; d <= hi; d += 1) {  // one grid line per decade
        const int y = top + ph - int(std::lround((d - lo) / (hi - lo) * ph));
        c.line(left, y, left + pw, y, grid);
        c.line(left - 6, y, left, y, axis);
        const std::string label = "1e" + std::to_string(int(d));
        c.text(left - 10 - Canvas::text_width(label, scale), y - 5, label, scale, axis);
    }
    for (int k = 0; k <= 10; ++k) {
        const int xx = left + k * pw / 10;
        c.line(xx, top, xx, top + ph, grid);
        c.line(xx, top + ph, xx, top + ph + 6, axis);
        const std::string label = fixed(x0 + (x1 - x0) * k / 10, 1);
        c.text(xx - Canvas::text_width(label, scale) / 2, top + ph + 12, label, scale, axis);
    }
    c.text(left + pw - 10, top + ph + 32, "q", scale, axis);
    c.text(8, top, "I", scale, axis);
    c.line(left, top, left, top + ph, axis);
    c.line(left, top + ph, left + pw, top + ph, axis);

    std::vector<std::string> colours;
    for (size_t k = 0; k < curves.size(); ++k) {
        const Rgb col = palette[k % std::size(palette)];
        char hex[8];
        std::snprintf(hex, sizeof hex, "#%02x%02x%02x", col[0], col[1], col[2]);
        colours.push_back(hex);
        bool have = false;
        int lx = 0, ly = 0;
        for (size_t i = 0; i < x.size() && i < curves[k].y.size(); ++i) {
            const double v = curves[k].y[i];
            if (!std::isfinite(v) || v <= 0) {
                have = false;
                continue;
            }
            const int cx = px(x[i]), cy = py(v);
            if (have) c.line(lx, ly, cx, cy, col);
            lx = cx, ly = cy, have = true;
        }
    }
    kiln::io::write_png_rgb(path, width, height, c.pixels());
    return colours;
}

}  // namespace sample
