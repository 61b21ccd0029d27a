#pragma once
// A process-wide cache of large CPU tensor blocks, installed as LibTorch's CPU
// allocator before training.
//
// Why: a training step frees and re-allocates the same large activations and
// gradients every step. glibc hands blocks of this size back to the kernel on
// free (mmap/munmap, heap trimming), so every step pays page faults and page
// zeroing for tens of megabytes: measured here at ~11 % of a simple_cnn step's
// CPU time (perf: clear_page_erms, exc_page_fault, unmap_page_range). Keeping
// freed blocks for reuse by the next allocation of the same size removes that.
//
// Contract:
// - Blocks of at least kMinCachedBytes are rounded up to a 4 KiB multiple and
//   reused by exact rounded size; smaller ones go to LibTorch's own allocator.
// - Idle (cached, not in use) bytes never exceed the limit (default: a quarter
//   of physical memory, at most 4 GiB); a block freed beyond it is released.
// - releaseIdle() gives every idle block back to the system (the engine calls
//   it when a run ends, so a window that ran a model does not keep its peak).
// - Thread-safe. Blocks are 64-byte aligned, as LibTorch's own.
// - Installed at most once per process and never removed (tensors allocated
//   from it can outlive anything); LibTorch 1.x only (the Allocator interface
//   changed in 2.x, where the CUDA allocator is what matters). Not installed in
//   sanitizer builds (it would hide use-after-free from ASan) nor when the
//   environment sets AMPSCOPE_CPU_BLOCK_CACHE=0 (to measure what it saves).
#include <cstddef>
#include <cstdint>

namespace ampscope::cpu_block_cache {

inline constexpr size_t kMinCachedBytes = 64 * 1024;

struct Stats {
    int64_t hits = 0;        // allocations served from the cache
    int64_t misses = 0;      // large allocations that had to go to the system
    int64_t idleBytes = 0;   // bytes held for reuse right now
    int64_t idleLimit = 0;   // the most idle bytes kept
    // Large blocks handed out and not yet freed (rounded sizes), now and at most since
    // the last resetPeaks(); and the most bytes held at once (in use + idle): what the
    // cache adds to the process's resident memory, against what the tensors need.
    int64_t inUseBytes = 0;
    int64_t peakInUseBytes = 0;
    int64_t peakHeldBytes = 0;
};

// Installs the cache as LibTorch's CPU allocator once; later calls do nothing.
// Returns whether it is installed (false: sanitizer build, disabled by the
// environment, or a LibTorch this build does not install it into).
bool install();
bool installed();
Stats stats();
void setIdleLimit(int64_t bytes);
int64_t releaseIdle();  // returns the bytes given back
// Starts the peaks of Stats over from the current bytes in use and held.
void resetPeaks();

}  // namespace ampscope::cpu_block_cache
