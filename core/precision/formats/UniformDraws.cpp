#include "precision/formats/UniformDraws.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <mutex>

#include "common/CpuClones.h"

namespace ampscope {

namespace {

constexpr int kStateWords = at::MERSENNE_STATE_N;  // 624
constexpr int kShiftWords = at::MERSENNE_STATE_M;  // 397

// The next state block, as at::mt19937's next_state(): word j from words j, j + 1 and
// j + 397 (wrapping to the new words), the matrix A added where the low bit is set.
// The first 227 words read only old words, the rest words at least 227 behind: both
// loops have no dependence the compiler must respect within a vector.
AMPSCOPE_CPU_CLONES
void nextStateBlock(uint32_t* state) {
    const auto twist = [](uint32_t u, uint32_t v) __attribute__((always_inline)) {
        const uint32_t mixed = (u & at::UMASK) | (v & at::LMASK);
        return (mixed >> 1) ^ ((0u - (v & 1u)) & at::MATRIX_A);
    };
    for (int j = 0; j < kStateWords - kShiftWords; ++j) state[j] = state[j + kShiftWords] ^ twist(state[j], state[j + 1]);
    for (int j = kStateWords - kShiftWords; j < kStateWords - 1; ++j)
        state[j] = state[j + kShiftWords - kStateWords] ^ twist(state[j], state[j + 1]);
    state[kStateWords - 1] = state[kShiftWords - 1] ^ twist(state[kStateWords - 1], state[0]);
}

// Tempered outputs of state words, as uniforms: (y mod 2^24) * 2^-24, exact in float.
AMPSCOPE_CPU_CLONES
void temperedUniforms(const uint32_t* __restrict words, float* __restrict out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        uint32_t y = words[i];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= y >> 18;
        out[i] = static_cast<float>(static_cast<int32_t>(y & 0xffffffu)) * (1.0f / 16777216.0f);
    }
}

}  // namespace

void uniformDrawsInto(float* out, int64_t n, at::Generator& generator) {
    auto* cpu = at::check_generator<at::CPUGeneratorImpl>(generator);
    std::lock_guard<std::mutex> lock(cpu->mutex_);
    at::mt19937 engine = cpu->engine();
    at::mt19937_data_pod pod = engine.data();
    // The engine hands out state[next] after decrementing `left`, and makes a new block
    // first when that reaches 0: left - 1 words are ready; a new block gives 624 more.
    int64_t done = 0;
    while (done < n) {
        if (pod.left_ == 1) {
            nextStateBlock(pod.state_.data());
            pod.left_ = kStateWords + 1;
            pod.next_ = 0;
        }
        const int64_t take = std::min<int64_t>(n - done, pod.left_ - 1);
        temperedUniforms(pod.state_.data() + pod.next_, out + done, take);
        pod.next_ += static_cast<uint32_t>(take);
        pod.left_ -= static_cast<int>(take);
        done += take;
    }
    engine.set_data(pod);
    cpu->set_engine(engine);
}

torch::Tensor uniformDraws(int64_t n, at::Generator& generator, const c10::Device& device) {
    const auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
    if (!device.is_cpu()) return torch::rand({n}, generator, options);
    auto out = torch::empty({n}, options);
    uniformDrawsInto(out.data_ptr<float>(), n, generator);
    return out;
}

}  // namespace ampscope
