#pragma once

// The distribution build targets x86-64 without AVX. The few loops that carry a
// per-element cost (the format codecs, the stochastic-rounding draws, the
// non-finite scan) are compiled for AVX-512 and AVX2 too, and the dynamic loader
// picks the clone the CPU has (GCC's target_clones, resolved through an ifunc).
//
// Not in sanitizer builds: a clone's ifunc resolver runs while the loader
// relocates the executable, before TSan's or ASan's runtime is up, and the
// instrumented resolver crashes there. Not with clang either (the fuzzing builds):
// those take the plain version.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define AMPSCOPE_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AMPSCOPE_CPU_CLONES
#endif
