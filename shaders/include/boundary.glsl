// Positions outside an axis mapped as ndimage's boundary modes say
// (conv_2d, conv_sep): ext_index(i, n, mode), the index read for position i
// of an axis of n elements under mode (0 constant, 1 reflect, 2 nearest,
// 3 mirror, 4 wrap), or -1 for the constant. No preconditions.
int ext_index(int i, int n, uint mode) {
    if (i >= 0 && i < n) return i;
    if (mode == 0) return -1;
    if (mode == 2) return i < 0 ? 0 : n - 1;
    if (mode == 4) return i >= 0 ? i % n : n - 1 - (-i - 1) % n;
    if (mode == 3) {
        if (n == 1) return 0;
        int period = 2 * n - 2, k = abs(i) % period;
        return k >= n ? period - k : k;
    }
    int k = (i >= 0 ? i : -i - 1) % (2 * n);
    return k >= n ? 2 * n - 1 - k : k;
}
