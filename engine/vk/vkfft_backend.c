/* The one file that includes vkFFT.h (see vkfft_backend.h). */
#include "vkfft_backend.h"

#include <stdlib.h>
#include <string.h>

#include "vkFFT.h" /* the build's copy: engine/CMakeLists.txt */

struct KilnVkfft {
    VkFFTApplication app;
    /* VkFFT keeps pointers to these: they live as long as the plan. */
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkFence fence;
    VkBuffer work, in;
    uint64_t work_offset, work_bytes, in_bytes;
};

int kiln_vkfft_create(const KilnVkfftDesc* d, KilnVkfft** out) {
    KilnVkfft* p = (KilnVkfft*)calloc(1, sizeof(KilnVkfft));
    if (!p) return VKFFT_ERROR_MALLOC_FAILED;
    p->physical = d->physical;
    p->device = d->device;
    p->queue = d->queue;
    p->pool = d->pool;
    p->fence = d->fence;
    p->work = d->work;
    p->work_offset = d->work_offset;
    /* VkFFT binds each buffer from its start and adds the offset in its
       shaders: the bound range reaches the end of the region. */
    p->work_bytes = d->work_offset + d->work_bytes;
    p->in = d->in;
    p->in_bytes = d->in_bytes;

    VkFFTConfiguration c;
    memset(&c, 0, sizeof c);
    c.FFTdim = d->dims;
    for (int i = 0; i < 3; ++i) c.size[i] = d->sizes[i];
    c.numberBatches = d->batches;
    c.physicalDevice = &p->physical;
    c.device = &p->device;
    c.queue = &p->queue;
    c.commandPool = &p->pool;
    c.fence = &p->fence;
    c.isCompilerInitialized = 1; /* kiln's, once per process */
    c.doublePrecision = (uint64_t)d->f64;
    c.performR2C = (uint64_t)d->real;
    /* Merging two real rows into one complex transform gave wrong odd-length
       C2R results here (irfft to 13 over 5 x 6 rows). */
    c.disableMergeSequencesR2C = 1;
    c.bufferNum = 1;
    {
        /* NVIDIA: VkFFT's default coalescing of 32 bytes, doubled for 2-D
           and 3-D transforms: on an H100 (2026-11-26) fft2 2048^2 complex64
           took 0.060 ms instead of 0.072, fft2 2039^2 (Bluestein) 0.216
           instead of 0.217, fftn 256^3 the same; a 1-D rfft of 2^22 took
           2% longer, so 1-D keeps the default. */
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(d->physical, &props);
        if (props.vendorID == 0x10DE && d->dims >= 2) c.coalescedMemory = 64;
    }
    /* No buffer at plan time: VkFFT 1.2.26 writes each kernel's descriptor
       set while planning, before its Bluestein set-up makes the chirp
       buffers, so Bluestein kernels would keep null descriptors for them.
       Without a buffer, planning writes no descriptor set and the first
       append of each direction writes them all, the chirp buffers made by
       then; those sets were never bound before, so no recorded work uses
       them, and later appends (same buffer pointer) rewrite nothing. */
    c.bufferSize = &p->work_bytes;
    c.bufferOffset = d->work_offset;
    if (d->direct) {
        /* The arrays' own buffers (kiln's blocks, whole), their offsets
           pushed per append, the input read in place of a padded copy. */
        uint64_t row = d->real ? d->sizes[0] / 2 + 1 : d->sizes[0];
        c.bufferOffset = 0;
        c.specifyOffsetsAtLaunch = 1;
        c.isInputFormatted = 1;
        c.inputBufferSize = &p->in_bytes;
        c.inputBufferNum = 1;
        c.normalize = (uint64_t)d->normalize;
        c.inputBufferStride[0] = d->sizes[0];
        c.bufferStride[0] = row;
        for (int i = 1; i < 3; ++i) {
            c.inputBufferStride[i] = c.inputBufferStride[i - 1] * d->sizes[i];
            c.bufferStride[i] = c.bufferStride[i - 1] * d->sizes[i];
        }
    }
    /* VkFFT's temporary buffer is its own (made when a plan needs one, freed
       by deleteVkFFT): its Bluestein set-up binds a user's temporary buffer
       without its offset, which in kiln's sub-allocated memory would write
       over other arrays. */
    VkFFTResult r = initializeVkFFT(&p->app, c);
    if (r != VKFFT_SUCCESS) {
        free(p);
        return (int)r;
    }
    *out = p;
    return 0;
}

int kiln_vkfft_append(KilnVkfft* p, VkCommandBuffer cmd, int inverse) {
    VkFFTLaunchParams l;
    memset(&l, 0, sizeof l);
    l.commandBuffer = &cmd;
    /* The same pointer every call: VkFFT writes a direction's descriptor
       sets on its first append only (see kiln_vkfft_create). */
    l.buffer = &p->work;
    l.bufferOffset = p->work_offset; /* unchanged: no offset update either */
    return (int)VkFFTAppend(&p->app, inverse ? 1 : -1, &l);
}

int kiln_vkfft_append_direct(KilnVkfft* p, VkCommandBuffer cmd, int inverse, uint64_t in_offset,
                             uint64_t work_offset) {
    VkFFTLaunchParams l;
    memset(&l, 0, sizeof l);
    l.commandBuffer = &cmd;
    /* The same pointers every call (see kiln_vkfft_create): the plan's
       buffers never change, only the offsets, which VkFFT pushes. */
    l.buffer = &p->work;
    l.inputBuffer = &p->in;
    l.bufferOffset = work_offset;
    l.inputBufferOffset = in_offset;
    return (int)VkFFTAppend(&p->app, inverse ? 1 : -1, &l);
}

void kiln_vkfft_destroy(KilnVkfft* p) {
    if (!p) return;
    deleteVkFFT(&p->app);
    free(p);
}
