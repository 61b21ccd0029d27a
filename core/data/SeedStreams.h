#pragma once
// SeedStreams: one run seed fans out into independent seeds, one per random stream of
// the data layer. Without this, the split permutation and the epoch-0 batch order
// would be drawn from the same Mersenne Twister sequence and be correlated.
// Plain C++ (no torch): the derivation is part of the reproducibility contract.
#include <cstdint>

namespace ampscope {

enum class SeedStream : uint64_t {
    ValidationSplit = 1,
    TrainSubset = 2,
    Synthetic = 3,
    BatchOrder = 4,
};

// SplitMix64 finaliser: consecutive inputs give unrelated outputs, and the low 32 bits
// (all that torch's CPU generator keeps of a seed) depend on every input bit.
inline uint64_t mixSeed(uint64_t value) {
    value += 0x9E3779B97F4A7C15ull;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
    return value ^ (value >> 31);
}

inline uint64_t deriveSeed(uint64_t seed, SeedStream stream, uint64_t index = 0) {
    return mixSeed(mixSeed(seed ^ (static_cast<uint64_t>(stream) << 56)) + index);
}

}  // namespace ampscope
