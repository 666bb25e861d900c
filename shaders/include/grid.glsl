// Workgroup size from specialization constants 0-2, so it can be tuned per
// device and kernel without recompiling.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// Element-wise kernels loop with a grid stride: any n with a capped grid.
#define FOR_EACH_ELEMENT(i, n)                                                      \
    for (uint i = gl_GlobalInvocationID.x; i < (n); i += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
