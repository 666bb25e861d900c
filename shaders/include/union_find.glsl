// Union-find on a uint array of parent indices (connected-component
// labelling: label_local in shared memory, label_merge and label_flatten on
// a buffer). The includer defines UF_PARENT, the array's name, before
// including; a root is its own parent. find(a): the root of a, halving the
// path on the way. unite(a, b): joins the trees of a and b lock-free, the
// larger root linked under the smaller by atomicMin, so a root stays the
// smallest index of its tree (the raster order the labels follow).
// Path halving points a at c, an ancestor of a: by a plain store, safe even
// when it races with a union (a stays linked into the same tree); where the
// includer defines UF_ATOMIC_HALVING, by atomicMin (see label_flatten).

uint find(uint a) {
    while (true) {
        uint b = UF_PARENT[a];
        if (b == a) return a;
        uint c = UF_PARENT[b];
        if (c == b) return b;
#if defined(UF_ATOMIC_HALVING)
        atomicMin(UF_PARENT[a], c);
#else
        UF_PARENT[a] = c;
#endif
        a = c;
    }
}

void unite(uint a, uint b) {
    while (true) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (a < b) {
            uint t = a;
            a = b;
            b = t;
        }
        uint old = atomicMin(UF_PARENT[a], b);
        if (old == a) return;
        a = old;  // a was linked meanwhile: join its new root instead
    }
}
