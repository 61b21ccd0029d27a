#include "precision/formats/TensorQuantizers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <ATen/Parallel.h>

#include "precision/Rounding.h"
#include "precision/formats/CpuQuantizeLoops.h"
#include "precision/formats/UniformDraws.h"

namespace ampscope {

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// 2^k as fp64 for integer k in [-1022, 1023].
torch::Tensor powerOfTwoDouble(const torch::Tensor& k) {
    return ((k.to(torch::kInt64) + 1023) * (int64_t{1} << 52)).view(torch::kDouble);
}

// floor(log2 |v|) of fp32 normals from the exponent bits; fp32 subnormals and
// zero give -127, which every caller clamps or treats as "below every format".
torch::Tensor floorLog2(const torch::Tensor& magnitude) {
    return magnitude.contiguous().view(torch::kInt32).div(1 << 23, "floor") - 127;
}

torch::Tensor uniformsFor(const torch::Tensor& x, const QuantizeOptions& options) {
    if (!options.generator) return {};
    // One draw per element in order, whatever the shape, as torch::rand draws them; on
    // x's device (a CUDA tensor needs a CUDA generator).
    at::Generator generator = *options.generator;
    return uniformDraws(x.numel(), generator, x.device());
}

// fp32 data on the CPU, saturating: the single passes of CpuQuantizeLoops.h (with their
// counts on probe steps); everything else the vectorised ops below.
bool takesCpuPasses(const torch::Tensor& x32, const QuantizeOptions& options) {
    return options.cpuPasses && options.overflow == OverflowPolicy::Saturate && x32.device().is_cpu() &&
           x32.scalar_type() == torch::kFloat;
}

// Elements per task of the CPU passes' parallel_for: large enough to pay for a thread.
constexpr int64_t kLoopGrain = int64_t{1} << 15;

// Elements per slab of stochastic rounding's draws: several tasks per thread, so that
// drawing a slab (one thread: the generator is sequential) is a small part of it.
int64_t slabElements() { return kLoopGrain * std::max<int64_t>(8, 4 * at::get_num_threads()); }

// The CPU passes' draws: those of uniformsFor() (same generator, same order), a slab
// at a time into one buffer (a whole tensor's draws would be one fp32 per element of
// each gradient, held while it is rounded).
class SlabDraws {
public:
    explicit SlabDraws(const QuantizeOptions& options) : generator_(options.generator) {}
    // The next `count` draws (null when rounding to nearest), valid until the next call.
    const float* next(int64_t count) {
        if (!generator_) return nullptr;
        if (count > capacity_) {
            buffer_.reset(new float[static_cast<size_t>(count)]);
            capacity_ = count;
        }
        uniformDrawsInto(buffer_.get(), count, *generator_);
        return buffer_.get();
    }
    bool drawing() const { return generator_.has_value(); }

private:
    std::optional<at::Generator> generator_;
    std::unique_ptr<float[]> buffer_;
    int64_t capacity_ = 0;
};

float finiteAmax(const torch::Tensor& x) {
    if (x.numel() == 0) return 0.0f;
    if (x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.is_contiguous()) {
        const float* data = x.data_ptr<float>();
        return at::parallel_reduce(
            int64_t{0}, x.numel(), kLoopGrain, 0.0f,
            [data](int64_t begin, int64_t end, float partial) {
                return std::max(partial, cpu_quantize::finiteAbsMax(data + begin, end - begin));
            },
            [](float a, float b) { return std::max(a, b); });
    }
    return torch::where(torch::isfinite(x), x.abs(), torch::zeros_like(x)).max().item<float>();
}

// Where a CPU pass writes its values: the caller's scratch buffer, or a new tensor.
torch::Tensor cpuPassOutput(const torch::Tensor& x32, const QuantizeOptions& options) {
    if (!options.scratch.defined()) return torch::empty_like(x32);
    const auto& scratch = options.scratch;
    TORCH_CHECK(scratch.device().is_cpu() && scratch.scalar_type() == torch::kFloat && scratch.is_contiguous() &&
                    scratch.numel() == x32.numel(),
                "QuantizeOptions::scratch: a contiguous fp32 CPU tensor of ", x32.numel(), " elements is needed, got ",
                scratch.numel(), " elements of ", scratch.toString());
    // The passes read x while they write: the values cannot go over x itself.
    TORCH_CHECK(scratch.data_ptr() != x32.data_ptr(), "QuantizeOptions::scratch: the input's own storage");
    return scratch.view(x32.sizes());
}

// The element statistics of n elements (as measure() below defines them) in fixed
// chunks of kLoopGrain elements, `measureChunk(begin, count)` each, summed in chunk
// order: the double sums do not depend on the thread count.
template <class MeasureChunk>
QuantizationStats measureInChunks(int64_t n, MeasureChunk measureChunk) {
    const int64_t chunks = (n + kLoopGrain - 1) / kLoopGrain;
    std::vector<QuantizationStats> parts(static_cast<size_t>(chunks));
    at::parallel_for(0, chunks, 1, [&](int64_t first, int64_t last) {
        for (int64_t c = first; c < last; ++c) {
            const int64_t begin = c * kLoopGrain;
            parts[static_cast<size_t>(c)] = measureChunk(begin, std::min(kLoopGrain, n - begin));
        }
    });
    QuantizationStats total;
    for (const auto& part : parts) total.addElementsOf(part);
    return total;
}

// Element formats on the CPU: one pass in chunks of kLoopGrain, `roundChunk(in, out,
// count, uniforms, counts, inputAmax)` each, and with statistics each chunk measured as
// soon as it is written (still in cache), the sums added in chunk order as
// measureInChunks() adds them. `inputAmax` (without statistics; may be null) receives
// x's finite amax from the same pass (with them, stats.amax is it).
template <class RoundChunk>
QuantizedTensor elementsOnCpu(const torch::Tensor& x32, const QuantizeOptions& options, float* inputAmax,
                              RoundChunk roundChunk) {
    const bool collectStats = options.collectStats;
    QuantizedTensor result;
    result.values = cpuPassOutput(x32, options);
    const float* in = x32.data_ptr<float>();
    float* o = result.values.data_ptr<float>();
    const int64_t n = x32.numel();
    const int64_t chunks = (n + kLoopGrain - 1) / kLoopGrain;
    const auto perChunk = [&](bool wanted) { return wanted ? static_cast<size_t>(chunks) : size_t{0}; };
    std::vector<cpu_quantize::Counts> counts(perChunk(collectStats));
    std::vector<QuantizationStats> parts(perChunk(collectStats));
    std::vector<float> amaxes(perChunk(inputAmax && !collectStats), 0.0f);
    SlabDraws draws(options);
    const int64_t slabChunks = draws.drawing() ? slabElements() / kLoopGrain : std::max<int64_t>(chunks, 1);
    for (int64_t c0 = 0; c0 < chunks; c0 += slabChunks) {
        const int64_t c1 = std::min(chunks, c0 + slabChunks), slabBegin = c0 * kLoopGrain;
        const float* u = draws.next(std::min(n, c1 * kLoopGrain) - slabBegin);
        at::parallel_for(c0, c1, 1, [&](int64_t first, int64_t last) {
            for (int64_t c = first; c < last; ++c) {
                const auto at = static_cast<size_t>(c);
                const int64_t begin = c * kLoopGrain, count = std::min(kLoopGrain, n - begin);
                roundChunk(in + begin, o + begin, count, u ? u + (begin - slabBegin) : nullptr,
                           collectStats ? &counts[at] : nullptr, amaxes.empty() ? nullptr : &amaxes[at]);
                if (collectStats) parts[at] = cpu_quantize::measure(in + begin, o + begin, nullptr, count);
            }
        });
    }
    if (inputAmax) *inputAmax = amaxes.empty() ? 0.0f : *std::max_element(amaxes.begin(), amaxes.end());
    if (!collectStats) return result;
    for (const auto& part : parts) result.stats.addElementsOf(part);
    for (const auto& c : counts) c.addTo(result.stats);
    return result;
}

// Per-tensor scaled rounding on the CPU (fp8, and fp16 or e2m1 with scale 1).
QuantizedTensor roundScaledOnCpu(const torch::Tensor& x32, NumberFormat format, float scale, float inverseScale,
                                 const QuantizeOptions& options, float* inputAmax = nullptr) {
    const auto rounding = cpu_quantize::elementRounding(format);
    return elementsOnCpu(x32, options, inputAmax,
                         [&](const float* in, float* out, int64_t count, const float* u, cpu_quantize::Counts* counts,
                             float* amax) {
                             cpu_quantize::roundScaled(in, out, count, rounding, scale, inverseScale, u, counts, amax);
                         });
}

// A contiguous tensor as the passes see it with its blocks along `layout`: the layouts
// of BlockLayout.h as views, with no copy (blocksLast() moves the same dimension last).
cpu_quantize::BlockedView blockedView(const torch::Tensor& x, BlockLayout layout) {
    const int64_t dims = x.dim();
    const auto product = [&](int64_t from, int64_t to) {
        int64_t p = 1;
        for (int64_t d = from; d < to; ++d) p *= x.size(d);
        return p;
    };
    if (layout == BlockLayout::Channels && dims >= 3) return {x.size(0), x.size(1), product(2, dims)};
    if (layout == BlockLayout::SecondToLast && dims >= 2) return {product(0, dims - 2), x.size(-2), x.size(-1)};
    if (layout == BlockLayout::FlattenTrailing && dims >= 3) return {x.size(0), product(1, dims), 1};
    const int64_t last = dims == 0 ? 1 : x.size(-1);
    return {last == 0 ? 0 : x.numel() / last, last, 1};
}

// A block format on the CPU: one pass over the tensor as it lies, parallel over the
// view's outer rows, with stochastic rounding's draws a slab of rows at a time; with
// statistics the counts of each task and one measuring pass that reads the elements in
// the order of the tensor with its blocks moved last (the order the torch path sums
// them in), wherever they lie.
template <class Pass>
QuantizedTensor blocksOnCpu(const torch::Tensor& x32, const cpu_quantize::BlockedView& view,
                            const QuantizeOptions& options, Pass pass) {
    QuantizedTensor result;
    result.values = cpuPassOutput(x32, options);
    const float* in = x32.data_ptr<float>();
    float* o = result.values.data_ptr<float>();
    const int64_t perOuter = std::max<int64_t>(1, view.reduction * view.inner);
    const int64_t grain = std::max<int64_t>(1, kLoopGrain / perOuter);
    const int64_t tasks = (view.outer + grain - 1) / grain;
    std::vector<cpu_quantize::Counts> counts(options.collectStats ? static_cast<size_t>(tasks) : 0);
    SlabDraws draws(options);
    const int64_t slabTasks =
        draws.drawing() ? std::max<int64_t>(1, slabElements() / (grain * perOuter)) : std::max<int64_t>(tasks, 1);
    for (int64_t t0 = 0; t0 < tasks; t0 += slabTasks) {
        const int64_t t1 = std::min(tasks, t0 + slabTasks);
        // The slab's rows as a tensor of their own: their elements, their draws (the
        // draws of the blocks-last order run row by row too) and their view.
        const int64_t firstRow = t0 * grain, offset = firstRow * view.reduction * view.inner;
        const cpu_quantize::BlockedView slab{std::min(view.outer, t1 * grain) - firstRow, view.reduction, view.inner};
        const float* u = draws.next(slab.elements());
        at::parallel_for(t0, t1, 1, [&](int64_t first, int64_t last) {
            for (int64_t t = first; t < last; ++t)
                pass(in + offset, o + offset, slab, t * grain - firstRow,
                     std::min(view.outer, (t + 1) * grain) - firstRow, u,
                     options.collectStats ? &counts[static_cast<size_t>(t)] : nullptr);
        });
    }
    if (!options.collectStats) return result;
    result.stats = measureInChunks(x32.numel(), [&](int64_t begin, int64_t count) {
        return cpu_quantize::measureBlocksLast(in, o, view, begin, count);
    });
    for (const auto& c : counts) c.addTo(result.stats);
    return result;
}

QuantizationStats measure(const torch::Tensor& x, const torch::Tensor& q, const torch::Tensor& overflowed) {
    QuantizationStats s;
    s.elements = x.numel();
    if (s.elements == 0) return s;
    const auto onCpu = [](const torch::Tensor& t, torch::ScalarType type) {
        return t.device().is_cpu() && t.scalar_type() == type && t.is_contiguous();
    };
    if (onCpu(x, torch::kFloat) && onCpu(q, torch::kFloat) && q.numel() == x.numel() &&
        (!overflowed.defined() || (onCpu(overflowed, torch::kBool) && overflowed.numel() == x.numel()))) {
        // One pass (a dozen torch ops read the tensors a dozen times).
        const float* xs = x.data_ptr<float>();
        const float* qs = q.data_ptr<float>();
        const bool* over = overflowed.defined() ? overflowed.data_ptr<bool>() : nullptr;
        return measureInChunks(s.elements, [&](int64_t begin, int64_t count) {
            return cpu_quantize::measure(xs + begin, qs + begin, over ? over + begin : nullptr, count);
        });
    }
    const auto finite = torch::isfinite(x);
    s.nonFinite = s.elements - finite.sum().item<int64_t>();
    auto nonZero = (x != 0).logical_and_(finite);
    s.nonZero = nonZero.sum().item<int64_t>();
    s.underflowed = nonZero.logical_and_(q == 0).sum().item<int64_t>();
    s.saturated = overflowed.defined() ? overflowed.sum().item<int64_t>() : 0;
    // Errors in double, over the elements finite before and after.
    const auto neither = torch::isfinite(q).logical_and_(finite).logical_not_();
    auto signal = x.to(torch::kDouble).masked_fill_(neither, 0.0);
    auto error = q.to(torch::kDouble).masked_fill_(neither, 0.0).sub_(signal);
    s.magnitudeError = (error * signal.sign()).sum().item<double>();
    s.absoluteSignal = signal.abs().sum().item<double>();
    s.squaredError = error.square_().sum().item<double>();
    s.squaredSignal = signal.square_().sum().item<double>();
    s.amax = x.abs().masked_fill_(finite.logical_not(), 0.0f).max().item<float>();
    return s;
}

// [lead, K] -> [lead, K / block, block], the last dimension padded with zeros.
struct Blocks {
    torch::Tensor values;  // [lead, blocks, blockSize]
    int64_t lastDim = 1;
    int64_t padding = 0;
};

Blocks toBlocks(const torch::Tensor& x, int64_t blockSize) {
    Blocks b;
    b.lastDim = x.dim() == 0 ? 1 : x.size(-1);
    const int64_t lead = b.lastDim == 0 ? 0 : x.numel() / b.lastDim;
    b.padding = (blockSize - b.lastDim % blockSize) % blockSize;
    auto rows = x.reshape({lead, b.lastDim});
    if (b.padding) rows = torch::constant_pad_nd(rows, {0, b.padding}, 0);
    b.values = rows.reshape({lead, (b.lastDim + b.padding) / blockSize, blockSize});
    return b;
}

torch::Tensor fromBlocks(const torch::Tensor& blocked, const Blocks& b, at::IntArrayRef sizes) {
    return blocked.reshape({blocked.size(0), b.lastDim + b.padding}).narrow(1, 0, b.lastDim).reshape(sizes);
}

void countBlockExponents(QuantizationStats& s, const torch::Tensor& exponents, const torch::Tensor& counted) {
    const auto chosen = exponents.masked_select(counted).to(torch::kInt64);
    if (chosen.numel() == 0) return;
    const int64_t low = chosen.min().item<int64_t>();
    const auto bins = torch::bincount(chosen - low).cpu();
    const auto* counts = bins.data_ptr<int64_t>();
    for (int64_t i = 0; i < bins.numel(); ++i)
        if (counts[i]) s.blockScaleExponents[static_cast<int>(low + i)] = counts[i];
}

// The block formats' common end: blocks holding NaN/Inf decode to NaN, and the
// statistics, with the outlier count from the blocked layout.
QuantizedTensor finishBlocks(const torch::Tensor& x, const Blocks& blocks, torch::Tensor quantized,
                             const torch::Tensor& overflowed, const QuantizeOptions& options) {
    const auto finiteBlock = torch::isfinite(blocks.values).all(-1, true);
    quantized = torch::where(finiteBlock, quantized, torch::full_like(quantized, kNan));
    QuantizedTensor out;
    out.values = fromBlocks(quantized, blocks, x.sizes());
    if (!options.collectStats) return out;
    out.stats = measure(x, out.values, fromBlocks(overflowed, blocks, x.sizes()));
    const auto zeroed = (blocks.values != 0) & (quantized == 0);
    const auto blockSurvives = quantized.abs().amax(-1, true) > 0;
    out.stats.crushedByOutlier = (zeroed & blockSurvives & finiteBlock).sum().item<int64_t>();
    out.stats.blocks = blocks.values.size(0) * blocks.values.size(1);
    return out;
}

}  // namespace

torch::Tensor roundElements(const torch::Tensor& values, NumberFormat format, OverflowPolicy overflow,
                            const torch::Tensor& uniforms, torch::Tensor* overflowed) {
    const FormatDescription& d = describe(format);
    if (format == NumberFormat::E8M0) throw std::invalid_argument("e8m0 holds scales, not elements");
    if (format == NumberFormat::E2M1 && overflow == OverflowPolicy::NonSaturating)
        throw std::invalid_argument("e2m1 has neither Inf nor NaN: it always saturates");
    if (format == NumberFormat::Bf16 && uniforms.defined())
        throw std::invalid_argument("stochastic rounding to bf16 is not offered");
    const auto x = values.to(torch::kFloat).contiguous();
    const auto maxFinite = static_cast<float>(d.maxFinite);
    const auto infinite = torch::isinf(x);
    torch::Tensor rounded;
    if ((format == NumberFormat::Fp16 || format == NumberFormat::Bf16) && !uniforms.defined()) {
        // IEEE nearest even by torch's own casts (precision/Rounding.h): overflow is Inf.
        rounded = roundTo(x, format == NumberFormat::Fp16 ? Rounding::Half : Rounding::BFloat16);
        if (overflowed) *overflowed = torch::isinf(rounded).logical_and_(torch::isfinite(x));
        if (overflow == OverflowPolicy::Saturate) rounded.clamp_(-maxFinite, maxFinite);
        return rounded;
    }
    // |x| = m * 2^(e - M) with e its exponent (at least emin): round m to an
    // integer, nearest even or stochastically, and scale back. Both scalings are
    // by powers of two, built from the exponent field f = e + 127 of |x| (clamped
    // to [emin + 127, 254], so NaN and Inf take 254 and stay NaN and Inf), and exact.
    const auto magnitude = x.abs();
    auto field = magnitude.view(torch::kInt32).__rshift__(23).clamp_(d.minExponent() + 127, 254);
    const auto down = ((d.mantissaBits + 254) - field).mul_(1 << 23).view(torch::kFloat);  // 2^(M - e)
    const auto up = field.sub_(d.mantissaBits).mul_(1 << 23).view(torch::kFloat);          // 2^(e - M)
    auto units = magnitude.mul(down);
    if (uniforms.defined()) {
        const auto below = units.floor();
        const auto roundUp = uniforms.to(torch::kFloat).reshape(units.sizes()) < units.sub_(below);
        units = below.add_(roundUp.to(torch::kFloat));
    } else {
        units.round_();  // half to even
    }
    rounded = units.mul_(up);  // |x| rounded, exponent unbounded above
    if (overflowed) *overflowed = (rounded > maxFinite).logical_and_(infinite.logical_not());
    if (overflow == OverflowPolicy::Saturate) {
        rounded.clamp_max_(maxFinite);  // overflows and Inf; NaN stays NaN
    } else if (!d.hasInf()) {
        // e4m3: overflow and Inf are NaN (e2m1 refused above).
        rounded.masked_fill_(rounded > maxFinite, kNan);
    }  // with Inf: an overflow is rounded past maxFinite; make it Inf below
    if (overflow == OverflowPolicy::NonSaturating && d.hasInf())
        rounded.masked_fill_(rounded > maxFinite, INFINITY);
    return rounded.copysign_(x);
}

float finiteAbsMax(const torch::Tensor& x) { return finiteAmax(x.to(torch::kFloat).contiguous()); }

QuantizedTensor quantizeUnscaled(const torch::Tensor& x, NumberFormat format, const QuantizeOptions& options) {
    const auto x32 = x.to(torch::kFloat).contiguous();
    const bool bf16 = format == NumberFormat::Bf16 && !options.generator;  // stochastic bf16 is refused below
    const bool scaledFormat = format == NumberFormat::Fp16 || format == NumberFormat::E4M3 ||
                              format == NumberFormat::E5M2 || format == NumberFormat::E2M1;
    if ((bf16 || scaledFormat) && takesCpuPasses(x32, options)) {
        // The casts' own rounding in one pass: bf16's as torch rounds it, the others with
        // scale 1 (x * 1 is x).
        auto out = bf16 ? elementsOnCpu(x32, options, nullptr,
                                        [](const float* in, float* o, int64_t count, const float*,
                                           cpu_quantize::Counts* counts, float*) {
                                            cpu_quantize::roundBf16(in, o, count, counts);
                                        })
                        : roundScaledOnCpu(x32, format, 1.0f, 1.0f, options);
        if (options.collectStats) {
            out.stats.scale = 1.0;
            out.stats.scaleAmax = out.stats.amax;
        }
        return out;
    }
    torch::Tensor over;
    QuantizedTensor out;
    out.values = roundElements(x32, format, options.overflow, uniformsFor(x32, options),
                               options.collectStats ? &over : nullptr);
    if (options.collectStats) {
        out.stats = measure(x32, out.values, over);
        out.stats.scale = 1.0;
        out.stats.scaleAmax = out.stats.amax;
    }
    return out;
}

QuantizedTensor quantizeWithScale(const torch::Tensor& x, NumberFormat format, float scale,
                                  const QuantizeOptions& options) {
    const auto x32 = x.to(torch::kFloat).contiguous();
    const bool passFormat = format == NumberFormat::E4M3 || format == NumberFormat::E5M2 || format == NumberFormat::E2M1;
    if (passFormat && takesCpuPasses(x32, options)) {
        auto out = roundScaledOnCpu(x32, format, scale, 1.0f / scale, options);
        if (options.collectStats) out.stats.scale = scale;
        return out;
    }
    torch::Tensor over;
    const auto rounded = roundElements(x32 * scale, format, options.overflow, uniformsFor(x32, options),
                                       options.collectStats ? &over : nullptr);
    QuantizedTensor out;
    // Dequantized with the reciprocal, as the recipes keep scale_inv = 1 / scale.
    out.values = rounded * (1.0f / scale);
    if (options.collectStats) {
        out.stats = measure(x32, out.values, over);
        out.stats.scale = scale;
    }
    return out;
}

QuantizedTensor quantizeCurrentScaling(const torch::Tensor& x, NumberFormat format, int margin,
                                       const QuantizeOptions& options) {
    const float amax = finiteAmax(x.to(torch::kFloat));
    auto out = quantizeWithScale(x, format, perTensorScale(amax, format, margin), options);
    out.stats.scaleAmax = amax;
    return out;
}

QuantizedTensor quantizeDelayedScaling(const torch::Tensor& x, DelayedScaling& scaling, NumberFormat format,
                                       const QuantizeOptions& options) {
    const auto x32 = x.to(torch::kFloat).contiguous();
    const bool passFormat = format == NumberFormat::E4M3 || format == NumberFormat::E5M2 || format == NumberFormat::E2M1;
    if (passFormat && takesCpuPasses(x32, options) && !options.collectStats) {
        // The amax the history records comes from the pass's own read of x.
        const float scale = scaling.scale();
        float amax = 0.0f;
        auto out = roundScaledOnCpu(x32, format, scale, 1.0f / scale, options, &amax);
        scaling.record(amax);
        return out;
    }
    auto out = quantizeWithScale(x32, format, scaling.scale(), options);
    out.stats.scaleAmax = scaling.scaleAmax();
    scaling.record(finiteAmax(x32));
    return out;
}

namespace {

// The block formats in torch ops, blocks along the last dimension of a contiguous fp32 x32.
QuantizedTensor quantizeMxWithTorchOps(const torch::Tensor& x32, NumberFormat element, MxScaleRule rule,
                                       const QuantizeOptions& options) {
    const FormatDescription& d = describe(element);
    const Blocks blocks = toBlocks(x32, kMxBlockSize);
    const auto& xb = blocks.values;
    const auto u = uniformsFor(x32, options);
    const auto ub = u.defined() ? toBlocks(u.view(x32.sizes()), kMxBlockSize).values : torch::Tensor();

    const auto amax = torch::where(torch::isfinite(xb), xb.abs(), torch::zeros_like(xb)).amax(-1, true);
    // mxScaleExponent() on every block: floor(log2 amax) - emax, one up for rceil
    // when amax > maxFinite * 2^e (compared in fp64, exactly), clamped to e8m0.
    auto e = floorLog2(amax) - d.maxExponent();
    if (rule == MxScaleRule::Rceil)
        e = e + (amax.to(torch::kDouble) > d.maxFinite * powerOfTwoDouble(e)).to(torch::kInt32);
    e = e.clamp(kE8m0MinExponent, kE8m0MaxExponent);
    const auto scale = powerOfTwoDouble(e).to(torch::kFloat);  // 2^-127 is an exact fp32 subnormal

    torch::Tensor over;
    // Elements saturate: the MX specification clamps them to the element's largest value.
    const auto rounded =
        roundElements(xb / scale, element, OverflowPolicy::Saturate, ub, options.collectStats ? &over : nullptr);
    auto out = finishBlocks(x32, blocks, rounded * scale, over, options);
    if (options.collectStats) countBlockExponents(out.stats, e, (amax > 0) & torch::isfinite(xb).all(-1, true));
    return out;
}

QuantizedTensor quantizeNvfp4WithTorchOps(const torch::Tensor& x32, const QuantizeOptions& options) {
    const Blocks blocks = toBlocks(x32, kNvfp4BlockSize);
    const auto& xb = blocks.values;
    const auto u = uniformsFor(x32, options);
    const auto ub = u.defined() ? toBlocks(u.view(x32.sizes()), kNvfp4BlockSize).values : torch::Tensor();

    const float tensorAmax = finiteAmax(x32);
    const float tensorScale = nvfp4TensorScale(tensorAmax);
    const auto e2m1Max = static_cast<float>(describe(NumberFormat::E2M1).maxFinite);
    const auto blockAmax = torch::where(torch::isfinite(xb), xb.abs(), torch::zeros_like(xb)).amax(-1, true);
    const auto blockScale =
        roundElements(blockAmax / e2m1Max / tensorScale, NumberFormat::E4M3, OverflowPolicy::Saturate);
    const auto total = blockScale * tensorScale;
    const auto usable = total > 0;
    // A block whose scale rounded to 0 holds zeros (of the elements' signs).
    const auto scaled =
        torch::where(usable, xb / torch::where(usable, total, torch::ones_like(total)), xb * 0.0f);
    torch::Tensor over;
    const auto rounded =
        roundElements(scaled, NumberFormat::E2M1, OverflowPolicy::Saturate, ub, options.collectStats ? &over : nullptr);
    auto out = finishBlocks(x32, blocks, rounded * total, over, options);
    if (options.collectStats) {
        out.stats.scale = tensorScale;
        out.stats.scaleAmax = tensorAmax;
        const auto finiteBlock = torch::isfinite(xb).all(-1, true);
        countBlockExponents(out.stats, floorLog2(blockScale), (blockScale > 0) & finiteBlock);
        out.stats.zeroScaleBlocks = ((blockAmax > 0) & (blockScale == 0) & finiteBlock).sum().item<int64_t>();
    }
    return out;
}

// Both block formats: the CPU pass over x as it lies where it can run (with or without
// statistics, in any layout); otherwise the blocks' dimension moved last, the torch
// ops, and back.
template <class CpuPass, class TorchOps>
QuantizedTensor quantizeBlocks(const torch::Tensor& x, const QuantizeOptions& options, BlockLayout layout,
                               CpuPass cpuPass, TorchOps torchOps) {
    const auto x32 = x.to(torch::kFloat);
    if (takesCpuPasses(x32, options)) {
        const auto contiguous = x32.contiguous();
        return cpuPass(contiguous, blockedView(contiguous, layout));
    }
    if (layout == BlockLayout::LastDim) return torchOps(x32.contiguous());
    auto out = torchOps(blocksLast(x32, layout).contiguous());
    out.values = fromBlocksLast(out.values, layout, x.sizes());
    return out;
}

}  // namespace

QuantizedTensor quantizeMx(const torch::Tensor& x, NumberFormat element, MxScaleRule rule,
                           const QuantizeOptions& options, BlockLayout layout) {
    if (element != NumberFormat::E4M3 && element != NumberFormat::E5M2 && element != NumberFormat::E2M1)
        throw std::invalid_argument("MX elements are e4m3, e5m2 or e2m1");
    const bool rceil = rule == MxScaleRule::Rceil;
    const auto cpuPass = [&](const torch::Tensor& x32, const cpu_quantize::BlockedView& view) {
        return blocksOnCpu(x32, view, options,
                           [&](const float* in, float* out, const cpu_quantize::BlockedView& v, int64_t first,
                               int64_t last, const float* u, cpu_quantize::Counts* counts) {
                               cpu_quantize::quantizeMx(in, out, v, first, last, element, rceil, u, counts);
                           });
    };
    const auto torchOps = [&](const torch::Tensor& x32) { return quantizeMxWithTorchOps(x32, element, rule, options); };
    return quantizeBlocks(x, options, layout, cpuPass, torchOps);
}

QuantizedTensor quantizeNvfp4(const torch::Tensor& x, const QuantizeOptions& options, BlockLayout layout) {
    const auto cpuPass = [&](const torch::Tensor& x32, const cpu_quantize::BlockedView& view) {
        const float tensorAmax = finiteAmax(x32);
        const float tensorScale = nvfp4TensorScale(tensorAmax);
        auto out = blocksOnCpu(x32, view, options,
                               [&](const float* in, float* o, const cpu_quantize::BlockedView& v, int64_t first,
                                   int64_t last, const float* u, cpu_quantize::Counts* counts) {
                                   cpu_quantize::quantizeNvfp4(in, o, v, first, last, tensorScale, u, counts);
                               });
        if (options.collectStats) {
            out.stats.scale = tensorScale;
            out.stats.scaleAmax = tensorAmax;
        }
        return out;
    };
    const auto torchOps = [&](const torch::Tensor& x32) { return quantizeNvfp4WithTorchOps(x32, options); };
    return quantizeBlocks(x, options, layout, cpuPass, torchOps);
}

}  // namespace ampscope
