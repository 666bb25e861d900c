// The lanes of the subgroup whose digit equals this lane's, among the lanes
// with `valid` set (needs GL_KHR_shader_subgroup_ballot; every lane of the
// subgroup must call it). Eight ballots, one per bit of the 8-bit digit.
uvec4 digit_peers(uint digit, bool valid) {
    uvec4 m = subgroupBallot(valid);
    for (uint b = 0u; b < 8u; ++b) {
        const bool set = ((digit >> b) & 1u) != 0u;
        const uvec4 v = subgroupBallot(set);
        m &= set ? v : ~v;
    }
    return m;
}

// Whether this lane is the last (highest) of its peers: the one that acts for them.
bool last_of_peers(uvec4 peers) { return (peers & gl_SubgroupGtMask) == uvec4(0u); }
