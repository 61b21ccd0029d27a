#pragma once
// INTERNAL (includes torch). What every probe does with its input before
// counting: accept floating tensors only, hand the single-pass CPU kernels a
// contiguous float32/float16/bfloat16 buffer, and read fp32 bit patterns.
#include <torch/torch.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ampscope::probe_input {

// Contiguous float32, float16 or bfloat16 tensor with the same values (float64
// is rounded to float32: the probes answer questions about fp32 and below).
// Throws std::invalid_argument for a non-floating tensor, naming the probe.
inline torch::Tensor prepare(const torch::Tensor& values, const char* probe) {
    if (!values.defined()) throw std::invalid_argument(std::string(probe) + ": undefined tensor");
    if (!values.is_floating_point())
        throw std::invalid_argument(std::string(probe) + ": needs a floating tensor, got " +
                                    std::string(c10::toString(values.scalar_type())));
    torch::Tensor t = values.detach();
    const auto type = t.scalar_type();
    if (type != torch::kFloat && type != torch::kHalf && type != torch::kBFloat16)
        t = t.to(torch::kFloat);
    return t.contiguous();
}

// Calls f(const T* data, int64_t count) with T = float, c10::Half or c10::BFloat16.
template <class F>
void visit(const torch::Tensor& prepared, F&& f) {
    switch (prepared.scalar_type()) {
        case torch::kFloat:
            f(prepared.data_ptr<float>(), prepared.numel());
            break;
        case torch::kHalf:
            f(prepared.data_ptr<c10::Half>(), prepared.numel());
            break;
        case torch::kBFloat16:
            f(prepared.data_ptr<c10::BFloat16>(), prepared.numel());
            break;
        default:
            throw std::logic_error("probe_input::visit: unprepared tensor");
    }
}

inline uint32_t bitsOf(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

inline constexpr uint32_t kMagnitudeMask = 0x7FFFFFFFu;
inline constexpr uint32_t kInfBits = 0x7F800000u;  // +inf; magnitudes above it are NaN
inline constexpr uint32_t kNegInfBits = 0xFF800000u;

// Elements per parallel chunk of the CPU kernels: big enough that the chunk
// outweighs the thread hand-off, small enough that 2+ threads share a 1e5 tensor.
inline constexpr int64_t kGrain = 32768;

}  // namespace ampscope::probe_input
