#include "kiln/label_stats.hpp"

#include <charconv>
#include <cmath>

#include "kiln/error.hpp"

namespace kiln {
namespace {

void append_number(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "nan";
        return;
    }
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

}  // namespace

std::string stats_to_csv(const std::vector<LabelStats>& stats, int ndim) {
    if (ndim < 1 || ndim > 3)
        throw InvalidArgument("stats_to_csv: ndim " + std::to_string(ndim) +
                              " is not valid; accepted: 1, 2 or 3");
    const char* const axes[3] = {"z", "y", "x"};
    const int first = 3 - ndim;
    std::string out = "label,count,sum,mean,variance,std,min,max";
    for (const char* column : {"min_pos", "max_pos", "center_of_mass", "bbox_start", "bbox_stop"})
        for (int d = first; d < 3; ++d) out += std::string(",") + column + "_" + axes[d];
    out += '\n';
    for (const LabelStats& s : stats) {
        out += std::to_string(s.label) + ',' + std::to_string(s.count);
        for (double v : {s.sum, s.mean, s.variance, s.std, s.min, s.max}) {
            out += ',';
            append_number(out, v);
        }
        for (const auto* p : {&s.min_pos, &s.max_pos})
            for (int d = first; d < 3; ++d) out += ',' + std::to_string((*p)[d]);
        for (int d = first; d < 3; ++d) {
            out += ',';
            append_number(out, s.center_of_mass[d]);
        }
        for (const auto* p : {&s.bbox_start, &s.bbox_stop})
            for (int d = first; d < 3; ++d) out += ',' + std::to_string((*p)[d]);
        out += '\n';
    }
    return out;
}

}  // namespace kiln
