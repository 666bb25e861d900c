// The shift of clipping's sums (clip_tree, clip_loop): the lower median of
// the `finite` sorted finite values, 0 when there are none. Needs a Keys
// binding `keys` and sort_key.glsl.
double clip_shift(uint finite) {
    return finite == 0u ? 0.0lf : value_of_key(keys[(finite - 1u) / 2u]);
}
