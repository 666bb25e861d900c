// The viewer's picture: which view and source pixel each window pixel shows,
// and its colour. One source for both sides: the GPU kernel (compose.comp,
// compiled at run time by kiln::Kernel) pastes it in, and the CPU picture
// (picture.cpp) includes it inside a namespace that gives GLSL's names
// (uint, min, max, clamp, log, isnan) their C++ meaning. So it keeps to what
// both languages read alike: int, uint and float scalars, plain structs,
// functions of values, `f` and `u` literal suffixes; no vectors, no
// overloads, no in/out parameters. SHARED before each function is empty in
// GLSL and `inline` in C++ (compose.hpp), where several files include it.

const int VIEW_GRID = 0;    // the four views below in a 2 x 2 grid
const int VIEW_IMAGE = 1;   // the image, log stretch
const int VIEW_BLUR = 2;    // its Gaussian blur, same stretch
const int VIEW_MASK = 3;    // the 5-sigma mask over the dimmed image
const int VIEW_LABELS = 4;  // the connected components, one colour each
const int VIEW_NONE = 5;    // background: around the image, between panels
const int VIEW_PANEL = 6;   // the control panel's strip on the right

const int GRID_GAP = 2;     // pixels of background right of and below each grid panel

const uint COLOUR_BACKGROUND = 0xff1e1a18u;  // (24, 26, 30)
const uint COLOUR_PANEL = 0xff2a2420u;       // (32, 36, 42)
const uint COLOUR_MASK = 0xff28aaffu;        // (255, 170, 40)

// Everything the picture depends on besides the data. 4-byte members only,
// so its std430 layout (the kernel's push constants) is the C++ one.
struct Params {
    int width;        // the picture (the window), pixels
    int height;
    int area_width;   // columns 0 .. area_width - 1 show the image; the rest is the panel's
    int image_w;      // the source image
    int image_h;
    int view;         // VIEW_GRID .. VIEW_LABELS
    int zoom;         // 2^zoom times the size that fits a panel
    int pan_x;        // the source pixel shown at a panel's centre, relative to the image's centre
    int pan_y;
    float low_sigmas;   // the stretch: black at median - low_sigmas * std
    float high_sigmas;  // white at median + high_sigmas * std (std of the clipped image)
};

// Where a picture pixel looks: its view and the source pixel (y * image_w + x), or -1.
struct Sample {
    int view;
    int index;
};

// a / b rounded toward minus infinity, for b > 0.
SHARED int floor_div(int a, int b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

SHARED Sample locate(Params p, int ox, int oy) {
    Sample s;
    s.view = VIEW_NONE;
    s.index = -1;
    if (ox >= p.area_width) {
        s.view = VIEW_PANEL;
        return s;
    }
    int view = p.view;
    int px = 0;  // the panel's rectangle
    int py = 0;
    int pw = p.area_width;
    int ph = p.height;
    if (view == VIEW_GRID) {
        pw = p.area_width / 2;
        ph = p.height / 2;
        if (pw <= GRID_GAP || ph <= GRID_GAP) return s;
        int col = ox / pw;
        int row = oy / ph;
        if (col > 1 || row > 1) return s;
        view = VIEW_IMAGE + col + 2 * row;
        px = col * pw;
        py = row * ph;
        pw = pw - GRID_GAP;
        ph = ph - GRID_GAP;
        if (ox - px >= pw || oy - py >= ph) return s;
    }
    if (pw < 1 || ph < 1 || p.image_w < 1 || p.image_h < 1) return s;
    // Scale num / den: the largest whole magnification that fits, or the
    // smallest whole reduction, then 2^zoom.
    int num = 1;
    int den = 1;
    if (p.image_w <= pw && p.image_h <= ph)
        num = min(pw / p.image_w, ph / p.image_h);
    else
        den = max((p.image_w + pw - 1) / pw, (p.image_h + ph - 1) / ph);
    if (p.zoom >= 0)
        num = num << p.zoom;
    else
        den = den << (-p.zoom);
    int sx = p.image_w / 2 + p.pan_x + floor_div((ox - (px + pw / 2)) * den, num);
    int sy = p.image_h / 2 + p.pan_y + floor_div((oy - (py + ph / 2)) * den, num);
    if (sx < 0 || sy < 0 || sx >= p.image_w || sy >= p.image_h) return s;
    s.view = view;
    s.index = sy * p.image_w + sx;
    return s;
}

SHARED uint rgba(uint r, uint g, uint b) {
    return r | (g << 8) | (b << 16) | (255u << 24);
}

// The gray level of a value: astropy's LogStretch (a = 1000) between black
// and white, as kiln::io::to_gray8's log stretch; NaN is black.
SHARED uint gray_level(float v, float median, float sd, Params p) {
    if (isnan(v)) return 0u;
    float lo = median - p.low_sigmas * sd;
    float hi = median + p.high_sigmas * sd;
    if (!(hi > lo)) hi = lo + 1.0f;
    float x = clamp((v - lo) / (hi - lo), 0.0f, 1.0f);
    return uint(log(1.0f + 1000.0f * x) / log(1001.0f) * 255.0f + 0.5f);
}

// A colour per label, bright enough to see on black.
SHARED uint label_colour(int label) {
    uint h = uint(label) * 2654435761u;
    h = (h ^ (h >> 15)) * 2246822519u;
    h = h ^ (h >> 13);
    return rgba(72u + (h & 183u), 72u + ((h >> 8) & 183u), 72u + ((h >> 16) & 183u));
}

// The colour of a pixel located at s, given the source pixel's values
// (ignored when s.index < 0).
SHARED uint pixel_colour(Sample s, float image, float blur, int label, float median, float sd, Params p) {
    if (s.view == VIEW_PANEL) return COLOUR_PANEL;
    if (s.index < 0) return COLOUR_BACKGROUND;
    if (s.view == VIEW_BLUR) {
        uint g = gray_level(blur, median, sd, p);
        return rgba(g, g, g);
    }
    uint g = gray_level(image, median, sd, p);
    if (s.view == VIEW_MASK) {
        if (label > 0) return COLOUR_MASK;
        return rgba(g / 3u, g / 3u, g / 3u);
    }
    if (s.view == VIEW_LABELS) {
        if (label > 0) return label_colour(label);
        return rgba(g / 4u, g / 4u, g / 4u);
    }
    return rgba(g, g, g);
}
