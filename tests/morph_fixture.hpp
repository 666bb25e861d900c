#pragma once
// scipy.ndimage's morphology of tests/data/make_morphology.py, shared by the
// CPU reference test and the GPU test: the cases, and what each names
// turned into kiln's arguments.
#include <string>
#include <vector>

#include "cpu_support.hpp"
#include "kiln/footprint.hpp"
#include "kiln/io.hpp"

namespace kiln::test::morph {

/// One case of tests/data/morphology/cases.inc (files in that folder; ""
/// where not given).
struct MorphCase {
    const char* name;
    const char* op;
    const char* input;
    std::vector<int64_t> size;  ///< grey: scipy's size=
    const char* footprint;      ///< grey: footprint=; binary: structure=
    const char* structure;      ///< grey: structure= (float64 values)
    const char* mode;
    double cval;
    std::vector<int> origin;
    int iterations;
    int border_value;
    const char* mask;
    const char* expected;
};

inline HostArray load(const std::string& file) { return npy_fixture("morphology/" + file); }

inline bool is_binary(const MorphCase& c) { return std::string(c.op).rfind("binary_", 0) == 0; }

/// The case's neighbourhood as kiln takes it: a box, a footprint, the grey
/// structure's shape, or (binary, none given) SciPy's default when an origin
/// needs a structure to hold it (else empty: the default).
inline Footprint footprint_of(const MorphCase& c, size_t ndim) {
    Footprint f;
    if (!c.size.empty())
        f = Footprint::box(c.size);
    else if (*c.footprint)
        f = Footprint::from_host(load(c.footprint));
    else if (*c.structure)
        f = Footprint::box([&] {
            const Shape s = load(c.structure).shape;
            std::vector<int64_t> d;
            for (size_t i = 0; i < s.ndim(); ++i) d.push_back(int64_t(s[i]));
            return d;
        }());
    else if (!c.origin.empty())
        f = Footprint::binary_structure(ndim, 1);
    f.origin = c.origin;
    return f;
}

/// The grey structure's values (empty: flat).
inline std::vector<double> heights_of(const MorphCase& c) {
    if (!*c.structure) return {};
    const HostArray h = load(c.structure);
    std::vector<double> v(h.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = h.at(i);
    return v;
}

#include "data/morphology/cases.inc"

}  // namespace kiln::test::morph
