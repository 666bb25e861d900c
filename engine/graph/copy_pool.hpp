#pragma once
// Host copies with several threads, for transfers from and to ordinary
// (pageable) memory: one core's memcpy into mapped memory runs at about
// 9-10 GB/s on the H100 and H200 hosts, a fifth of the DMA's 50 GB/s.
#include <cstddef>

namespace kiln::detail {

/// Copies n bytes, split among the process's copy threads when n is large
/// enough to pay for waking them (parts of at least 256 KiB). The threads
/// are started once, on first use, and shared by every context; calls from
/// several threads at once are served in turn. Their number: $KILN_COPY_THREADS,
/// else half the host's hardware threads, at most 8 (what saturates the
/// memory bandwidth measured; see bench/results).
void parallel_copy(std::byte* dst, const std::byte* src, size_t n);

/// The number of threads parallel_copy uses, the caller's included.
unsigned copy_threads();
/// Sets that number (1 to 64) for the rest of the process: for tests.
void set_copy_threads(unsigned n);

}  // namespace kiln::detail
