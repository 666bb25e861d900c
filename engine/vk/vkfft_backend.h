/* VkFFT behind a narrow C interface: vkFFT.h 1.2.26 is C that C++ does not
   compile against Debian's glslang 12 (its glslang_resource_t initializer
   predates the mesh-shader members), so the one file that includes it is C. */
#ifndef KILN_VKFFT_BACKEND_H
#define KILN_VKFFT_BACKEND_H
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KilnVkfft KilnVkfft;

typedef struct {
    uint64_t sizes[3]; /* VkFFT order: sizes[0] the fastest axis */
    uint32_t dims;
    uint64_t batches;
    int real, f64;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool; /* for VkFFT's set-up uploads */
    VkFence fence;
    VkBuffer work;
    uint64_t work_offset, work_bytes;
    /* Out of place (direct != 0): the transform reads `in` (dense: real rows
       of sizes[0] for a real transform, else complex) and writes `work`
       (dense complex rows of complex_row), both whole buffers of
       `in_bytes` and `work_bytes`, the arrays' offsets given per append;
       `normalize` divides the inverse by the transform's element count. */
    int direct, normalize;
    VkBuffer in;
    uint64_t in_bytes;
} KilnVkfftDesc;

/* Makes a plan (compiles its kernels, uploads its tables on the queue);
   returns VkFFTResult, 0 on success. */
int kiln_vkfft_create(const KilnVkfftDesc* desc, KilnVkfft** plan);
/* Records the in-place transform of the work buffer; returns VkFFTResult. */
int kiln_vkfft_append(KilnVkfft* plan, VkCommandBuffer cmd, int inverse);
/* A direct plan's transform of `in` at in_offset into `work` at
   work_offset (bytes); returns VkFFTResult. */
int kiln_vkfft_append_direct(KilnVkfft* plan, VkCommandBuffer cmd, int inverse, uint64_t in_offset,
                             uint64_t work_offset);
void kiln_vkfft_destroy(KilnVkfft* plan);

#ifdef __cplusplus
}
#endif
#endif
