// The partial result of the range reduction of histogram and bincount, as
// hist_minmax writes it and hist_minmax_final reduces it (the host reads
// the same layout, engine/ops/histogram.cpp). Needs A, the type values are
// compared in (floats: their raw bits).
struct Partial {
    A mn;
    A mx;
    uint any;        // 1: mn and mx hold at least one (finite) value
    uint neg_index;  // index of the first negative value, NONE if there is none
    A neg_value;
};
