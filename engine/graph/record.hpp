#pragma once
#include "graph/compile.hpp"

namespace kiln::detail {

class ContextState;
struct Submission;

/// Phase 5: writes the plan into sub.cmd (with sub.queries when timing).
void record_commands(ContextState& ctx, Submission& sub, const GraphIR& g, const Plan& plan);

} // namespace kiln::detail
