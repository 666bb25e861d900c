// The earlier neighbours (dx, dy, dz) of connected-component labelling
// (label_local, label_merge), ordered by reach: the host picks those in use
// for a connectivity as the set bits of a push constant `offsets`.
const ivec3 OFFSETS[13] = ivec3[](
    ivec3(-1, 0, 0), ivec3(0, -1, 0), ivec3(0, 0, -1),
    ivec3(-1, -1, 0), ivec3(1, -1, 0), ivec3(-1, 0, -1),
    ivec3(1, 0, -1), ivec3(0, -1, -1), ivec3(0, 1, -1),
    ivec3(-1, -1, -1), ivec3(1, -1, -1), ivec3(-1, 1, -1), ivec3(1, 1, -1));
