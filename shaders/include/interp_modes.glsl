// scipy.ndimage's boundary modes for interpolation (interp_map): SciPy's
// NI_ExtendMode codes and its map_coordinate (ni_interpolation.c), in double
// so that mapped coordinates are SciPy's to the last bit.
const int NEAREST = 0, WRAP = 1, REFLECT = 2, MIRROR = 3, CONSTANT = 4, GRID_WRAP = 5, GRID_CONSTANT = 6;

// A coordinate outside [0, len - 1] moved inside as the mode says; -1 for
// constant. trunc() stands for SciPy's casts to npy_intp.
double map_coord(double x, double len, int mode) {
    if (x < 0) {
        if (mode == NEAREST) return 0.0;
        if (mode == CONSTANT) return -1.0;
        if (len <= 1) return 0.0;
        if (mode == MIRROR) {
            double sz2 = 2 * len - 2;
            x = sz2 * trunc(-x / sz2) + x;
            return x <= 1 - len ? x + sz2 : -x;
        }
        if (mode == REFLECT) {
            double sz2 = 2 * len;
            if (x < -sz2) x = sz2 * trunc(-x / sz2) + x;
            // SciPy's guard against -x - 1 == -1 for x just below 0.
            return x < -len ? x + sz2 : (x > -1e-15LF ? 1e-15LF : -x) - 1;
        }
        if (mode == WRAP) return x + (len - 1) * (trunc(-x / (len - 1)) + 1);
        return x + len * (trunc((-1 - x) / len) + 1);  // GRID_WRAP
    }
    if (x > len - 1) {
        if (mode == NEAREST) return len - 1;
        if (mode == CONSTANT) return -1.0;
        if (len <= 1) return 0.0;
        if (mode == MIRROR) {
            double sz2 = 2 * len - 2;
            x -= sz2 * trunc(x / sz2);
            return x >= len ? sz2 - x : x;
        }
        if (mode == REFLECT) {
            double sz2 = 2 * len;
            x -= sz2 * trunc(x / sz2);
            return x >= len ? sz2 - x - 1 : x;
        }
        if (mode == WRAP) return x - (len - 1) * trunc(x / (len - 1));
        return x - len * trunc(x / len);  // GRID_WRAP
    }
    return x;
}
