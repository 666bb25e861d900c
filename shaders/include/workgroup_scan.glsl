// Exclusive prefix sums over a workgroup, in two forms. Every invocation
// of the workgroup must call them (barriers inside); they need
// GL_KHR_shader_subgroup_arithmetic and a shared array with a slot per
// subgroup, named by the includer, who defines a form's macros before
// including this file:
//
// exclusive_scan(v, total) -> the sum of v over the invocations before this
// one; total gets the sum over all (uint; select_radix, select_pick).
// SCAN_ELECT_SUMS names the shared uint array; each subgroup's total comes
// from subgroupAdd and an elected lane writes it.
//
// workgroup_exclusive(x, sum) -> the same for SCAN_T x, uint or uvec2
// (label_flatten, measure_runs). SCAN_T and SCAN_LAST_SUMS (the shared
// SCAN_T array) define it; the subgroup's last lane, or the workgroup's last
// invocation where that ends a partial subgroup, writes its inclusive sum.

#if defined(SCAN_ELECT_SUMS)
uint exclusive_scan(uint v, out uint total) {
    uint incl = subgroupInclusiveAdd(v);
    uint sub_total = subgroupAdd(v);
    if (subgroupElect()) SCAN_ELECT_SUMS[gl_SubgroupID] = sub_total;
    barrier();
    uint before = 0;
    total = 0;
    for (uint s = 0; s < gl_NumSubgroups; ++s) {
        if (s < gl_SubgroupID) before += SCAN_ELECT_SUMS[s];
        total += SCAN_ELECT_SUMS[s];
    }
    barrier();
    return before + incl - v;
}
#endif

#if defined(SCAN_T)
SCAN_T workgroup_exclusive(SCAN_T x, out SCAN_T sum) {
    SCAN_T inclusive = subgroupInclusiveAdd(x);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1 ||
        gl_LocalInvocationID.x == gl_WorkGroupSize.x - 1)
        SCAN_LAST_SUMS[gl_SubgroupID] = inclusive;
    barrier();
    SCAN_T before = SCAN_T(0);
    sum = SCAN_T(0);
    for (uint k = 0; k < gl_NumSubgroups; ++k) {
        if (k < gl_SubgroupID) before += SCAN_LAST_SUMS[k];
        sum += SCAN_LAST_SUMS[k];
    }
    barrier();
    return before + inclusive - x;
}
#endif
