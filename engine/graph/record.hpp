#pragma once
#include "graph/compile.hpp"

namespace kiln::detail {

class DeviceResources;
struct Submission;

/// Phase 5: writes the plan into sub.cmd (with sub.queries when timing).
void record_commands(DeviceResources& res, Submission& sub, const GraphIR& g, const Plan& plan);

} // namespace kiln::detail
