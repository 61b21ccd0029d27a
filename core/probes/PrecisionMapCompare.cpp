#include "probes/PrecisionMapCompare.h"

#include <algorithm>
#include <type_traits>
#include <array>
#include <cstring>

#include <ATen/Parallel.h>
#include <cmath>
#include <map>
#include <utility>

#include "precision/formats/FormatTable.h"
#include "probes/HistogramProbe.h"
#include "probes/NonFiniteEvent.h"

namespace ampscope {

namespace {

MapFormat elementFormat(NumberFormat element) {
    const auto& d = describe(element);
    return MapFormat{d.name, d.mantissaBits + 1, std::nullopt};
}

std::optional<MapFormat> roundingFormat(Rounding rounding) {
    switch (rounding) {
        case Rounding::Half: return MapFormat{"fp16", 11, -14};
        case Rounding::BFloat16: return MapFormat{"bf16", 8, -126};
        case Rounding::Tf32: return MapFormat{"tf32", 11, -126};
        case Rounding::None: break;
    }
    return std::nullopt;
}

std::optional<MapFormat> dtypeFormat(c10::ScalarType dtype) {
    if (dtype == c10::ScalarType::Half) return roundingFormat(Rounding::Half);
    if (dtype == c10::ScalarType::BFloat16) return roundingFormat(Rounding::BFloat16);
    return std::nullopt;
}

MapFormat slotFormat(const RoundingSlot& slot, const ComputePolicy& policy) {
    if (!slot.format.none()) return elementFormat(slot.format.element);
    if (auto f = roundingFormat(slot.rounding)) return *f;
    if (auto f = roundingFormat(policy.pureRounding)) return *f;
    if (policy.realAutocast || policy.pureWeights)
        if (auto f = dtypeFormat(policy.lowDtype)) return *f;
    if (policy.realTf32) return *roundingFormat(Rounding::Tf32);
    return MapFormat{};
}

// What one output's numbers are made of (sums over its elements), and its histograms.
struct ErrorSums {
    double errSq = 0, refSq = 0;    // elements finite on both sides
    double ulpsMax = 0, ulpsSq = 0;
    double finite = 0, flushed = 0, saturated = 0, newNan = 0, newInf = 0;
    double addSq = std::nan(""), rerunSq = std::nan("");  // against the op run again
    std::array<double, histogram_slot::kCount> runSlots{}, referenceSlots{};

    void add(const ErrorSums& o) {
        errSq += o.errSq;
        refSq += o.refSq;
        ulpsMax = std::max(ulpsMax, o.ulpsMax);
        ulpsSq += o.ulpsSq;
        finite += o.finite;
        flushed += o.flushed;
        saturated += o.saturated;
        newNan += o.newNan;
        newInf += o.newInf;
        addSq += o.addSq;
        rerunSq += o.rerunSq;
    }
};

// 2^-e for the spacing exponent e, from the bits where that is a normal double.
inline double inversePowerOfTwo(int e) {
    const int biased = 1023 - e;
    if (biased < 1 || biased > 2046) return std::ldexp(1.0, -e);
    const uint64_t bits = static_cast<uint64_t>(biased) << 52;
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// |d| in units of the format's spacing at `magnitude` (finite, non-zero): the spacing is
// 2^(floor(log2 magnitude) - (bits - 1)), that floor clamped below at an unscaled
// format's smallest normal exponent.
inline double inUlps(double absError, double magnitude, const MapFormat& format) {
    uint64_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7FF);
    int e = biased ? biased - 1023 : std::ilogb(magnitude);  // a subnormal double: rare
    if (format.minExponent) e = std::max(e, *format.minExponent);
    return absError * inversePowerOfTwo(e - (format.bits - 1));
}

// Histogram counts of one chunk's values, into four interleaved sub-histograms (as the
// histogram probe counts: gradients crowd into a few bins, and incrementing one counter
// back to back stalls on its own store).
struct SlotCounts {
    std::array<std::array<int64_t, histogram_slot::kCount>, 4> sub{};

    void add(const uint32_t* slots, int64_t n) {
        int64_t i = 0;
        for (; i + 4 <= n; i += 4) {
            ++sub[0][slots[i]];
            ++sub[1][slots[i + 1]];
            ++sub[2][slots[i + 2]];
            ++sub[3][slots[i + 3]];
        }
        for (; i < n; ++i) ++sub[0][slots[i]];
    }
    int64_t count(size_t k) const { return sub[0][k] + sub[1][k] + sub[2][k] + sub[3][k]; }
};

template <class T>
uint32_t slotOfValue(T value) {
    const float f = static_cast<float>(value);  // a double rounded to fp32, as the histogram probe does
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return histogram_slot::ofBits(bits);
}

// One chunk's sums and both histograms in one pass, the values read in their own dtypes
// (no converted copies: a copy of an op's size costs more than the arithmetic).
// Saturation is counted against the chunk's own running largest magnitude; merging keeps
// the counts of the chunks that hold the overall largest. The counts are added as 0 or 1
// rather than under a branch: on ReLU outputs and their gradients (half zeros in no
// pattern) such branches mispredict.
template <class M, class R, class A>
void sumChunk(const M* m, const R* r, const A* a, int64_t begin, int64_t end, const MapFormat& format,
              ErrorSums& s, double& top, double& saturated, SlotCounts& runCounts, SlotCounts& referenceCounts) {
    const double above = 1.0 + std::ldexp(2.0, -format.bits);
    // The sums in locals, each added to in the same order as before: through the
    // references the compiler must assume the pointers may alias them and stores and
    // reloads every one of them per element.
    const MapFormat f = format;
    double newNan = s.newNan, newInf = s.newInf, addSq = s.addSq, rerunSq = s.rerunSq, finite = s.finite;
    double errSq = s.errSq, refSq = s.refSq, ulpsMax = s.ulpsMax, ulpsSq = s.ulpsSq, flushed = s.flushed;
    double chunkTop = top, chunkSaturated = saturated;
    constexpr int64_t kRun = 256;
    alignas(64) uint32_t slots[kRun];
    for (int64_t first = begin; first < end; first += kRun) {
        const int64_t stop = std::min(end, first + kRun);
        for (int64_t i = first; i < stop; ++i) {
            const double mi = static_cast<double>(m[i]), ri = static_cast<double>(r[i]);
            const bool mf = std::isfinite(mi), rf = std::isfinite(ri);
            newNan += static_cast<double>(std::isnan(mi) & !std::isnan(ri));
            newInf += static_cast<double>(std::isinf(mi) & rf);
            if constexpr (!std::is_same_v<A, void>) {
                const double ai = static_cast<double>(a[i]);
                if (mf && std::isfinite(ai)) {
                    addSq += (mi - ai) * (mi - ai);
                    rerunSq += ai * ai;
                }
            }
            if (!(mf && rf)) continue;
            finite += 1;
            const double d = mi - ri;
            errSq += d * d;
            refSq += ri * ri;
            const double magnitude = ri != 0.0 ? std::abs(ri) : std::abs(mi);
            // A zero magnitude is mi = ri = 0: no error, 0 ulps (0 times any spacing).
            const double ulps = inUlps(std::abs(d), magnitude > 0.0 ? magnitude : 1.0, f);
            ulpsMax = std::max(ulpsMax, ulps);
            ulpsSq += ulps * ulps;
            flushed += static_cast<double>((mi == 0.0) & (ri != 0.0));
            const double am = std::abs(mi);
            if (am > chunkTop) {
                chunkTop = am;
                chunkSaturated = 0;
            }
            chunkSaturated += static_cast<double>((am == chunkTop) & (chunkTop > 0.0) & (std::abs(ri) > chunkTop * above));
        }
        const int64_t n = stop - first;
        for (int64_t i = 0; i < n; ++i) slots[i] = slotOfValue(m[first + i]);
        runCounts.add(slots, n);
        for (int64_t i = 0; i < n; ++i) slots[i] = slotOfValue(r[first + i]);
        referenceCounts.add(slots, n);
    }
    s.newNan = newNan;
    s.newInf = newInf;
    s.addSq = addSq;
    s.rerunSq = rerunSq;
    s.finite = finite;
    s.errSq = errSq;
    s.refSq = refSq;
    s.ulpsMax = ulpsMax;
    s.ulpsSq = ulpsSq;
    s.flushed = flushed;
    top = chunkTop;
    saturated = chunkSaturated;
}

template <class T>
const T* dataOf(const torch::Tensor& t) {
    return reinterpret_cast<const T*>(t.data_ptr());
}

// Calls f with typed pointers of a tensor of a floating dtype (half, bfloat16, float, double).
template <class F>
void withFloating(const torch::Tensor& t, F&& f) {
    switch (t.scalar_type()) {
        case torch::kHalf: return f(dataOf<c10::Half>(t));
        case torch::kBFloat16: return f(dataOf<c10::BFloat16>(t));
        case torch::kDouble: return f(dataOf<double>(t));
        default: return f(dataOf<float>(t));
    }
}

// On the CPU: one pass over the elements, in parallel chunks, no temporaries.
ErrorSums sumsOnCpu(const torch::Tensor& runValues, const torch::Tensor& referenceValues, const torch::Tensor& rerun,
                    const MapFormat& format) {
    const auto floating = [](const torch::Tensor& t) {
        return t.scalar_type() == torch::kHalf || t.scalar_type() == torch::kBFloat16 ||
                       t.scalar_type() == torch::kDouble
                   ? t.detach().contiguous()
                   : t.detach().to(torch::kFloat).contiguous();
    };
    const auto mt = floating(runValues), rt = floating(referenceValues);
    const auto at = rerun.defined() ? floating(rerun) : torch::Tensor();
    const int64_t n = mt.numel();
    constexpr int64_t kGrain = int64_t{1} << 16;
    const size_t chunks = static_cast<size_t>(std::max<int64_t>(1, (n + kGrain - 1) / kGrain));
    std::vector<ErrorSums> parts(chunks);
    std::vector<double> tops(chunks, 0.0), saturated(chunks, 0.0);
    std::vector<SlotCounts> runCounts(chunks), referenceCounts(chunks);
    // Each chunk of kGrain elements is one task, so a chunk's sums have one writer.
    at::parallel_for(0, static_cast<int64_t>(chunks), 1, [&](int64_t firstChunk, int64_t lastChunk) {
        for (int64_t c = firstChunk; c < lastChunk; ++c) {
            const size_t k = static_cast<size_t>(c);
            const int64_t chunk = c * kGrain;
            const int64_t stop = std::min(n, chunk + kGrain);
            ErrorSums& s = parts[k];
            s.addSq = s.rerunSq = 0.0;
            withFloating(mt, [&](const auto* m) {
                withFloating(rt, [&](const auto* r) {
                    if (!at.defined()) {
                        sumChunk<std::remove_cv_t<std::remove_pointer_t<decltype(m)>>,
                                 std::remove_cv_t<std::remove_pointer_t<decltype(r)>>, void>(
                            m, r, nullptr, chunk, stop, format, s, tops[k], saturated[k], runCounts[k],
                            referenceCounts[k]);
                        return;
                    }
                    withFloating(at, [&](const auto* a) {
                        sumChunk(m, r, a, chunk, stop, format, s, tops[k], saturated[k], runCounts[k],
                                 referenceCounts[k]);
                    });
                });
            });
        }
    });
    ErrorSums total;
    total.addSq = total.rerunSq = 0.0;
    for (const auto& part : parts) total.add(part);
    // The histograms: the histogram probe's slots (HistogramProbe.h), counted in the same pass.
    for (size_t slot = 0; slot < total.runSlots.size(); ++slot) {
        int64_t run = 0, reference = 0;
        for (size_t k = 0; k < chunks; ++k) {
            run += runCounts[k].count(slot);
            reference += referenceCounts[k].count(slot);
        }
        total.runSlots[slot] = static_cast<double>(run);
        total.referenceSlots[slot] = static_cast<double>(reference);
    }
    const double top = *std::max_element(tops.begin(), tops.end());
    for (size_t k = 0; k < chunks; ++k)
        if (top > 0.0 && tops[k] == top) total.saturated += saturated[k];
    if (!at.defined()) total.addSq = total.rerunSq = std::nan("");
    return total;
}

// 2^e for integer exponents, exactly (a double built from its bits), e within the
// normal doubles.
torch::Tensor powerOfTwo(const torch::Tensor& exponents) {
    const auto e = exponents.to(torch::kLong).clamp(-1022, 1023);
    return ((e + 1023) * (int64_t{1} << 52)).view(torch::kDouble);
}

// The same with torch ops, on the tensors' device (a GPU), read with one copy.
ErrorSums sumsWithTorchOps(const torch::Tensor& runValues, const torch::Tensor& referenceValues,
                           const torch::Tensor& rerun, const MapFormat& format) {
    const auto m = runValues.detach().to(torch::kDouble).reshape({-1});
    const auto r = referenceValues.detach().to(torch::kDouble).reshape({-1});
    const auto finite = torch::isfinite(m) & torch::isfinite(r);
    const auto zero = torch::zeros({}, m.options());
    const auto d = torch::where(finite, m - r, zero);
    const auto magnitude = torch::where(finite, torch::where(r != 0, r.abs(), m.abs()), zero);
    auto exponent = std::get<1>(torch::frexp(magnitude)).to(torch::kLong) - 1;  // floor(log2 |x|)
    if (format.minExponent) exponent = exponent.clamp_min(*format.minExponent);
    const auto ulps = torch::where(magnitude > 0, d.abs() / powerOfTwo(exponent - (format.bits - 1)), zero);
    const auto runMagnitude = torch::where(finite, m.abs(), zero);
    const auto top = runMagnitude.numel() ? runMagnitude.max() : zero;
    const auto saturated =
        finite & (runMagnitude == top) & (top > 0) & (r.abs() > top * (1.0 + std::ldexp(2.0, -format.bits)));
    std::vector<torch::Tensor> sums = {d.square().sum(),
                                       torch::where(finite, r, zero).square().sum(),
                                       ulps.numel() ? ulps.max() : zero,
                                       ulps.square().sum(),
                                       finite.sum().to(torch::kDouble),
                                       (finite & (m == 0) & (r != 0)).sum().to(torch::kDouble),
                                       saturated.sum().to(torch::kDouble),
                                       (torch::isnan(m) & ~torch::isnan(r)).sum().to(torch::kDouble),
                                       (torch::isinf(m) & torch::isfinite(r)).sum().to(torch::kDouble)};
    if (rerun.defined()) {
        const auto a = rerun.detach().to(torch::kDouble).reshape({-1});
        const auto both = torch::isfinite(m) & torch::isfinite(a);
        sums.push_back(torch::where(both, m - a, zero).square().sum());
        sums.push_back(torch::where(both, a, zero).square().sum());
    }
    const auto host = torch::stack(sums).to(torch::kCPU);
    const auto v = host.accessor<double, 1>();
    ErrorSums s;
    s.errSq = v[0];
    s.refSq = v[1];
    s.ulpsMax = v[2];
    s.ulpsSq = v[3];
    s.finite = v[4];
    s.flushed = v[5];
    s.saturated = v[6];
    s.newNan = v[7];
    s.newInf = v[8];
    if (rerun.defined()) {
        s.addSq = v[9];
        s.rerunSq = v[10];
    }
    const auto slots = torch::stack({histogramSlots(runValues.detach().to(torch::kFloat)),
                                     histogramSlots(referenceValues.detach().to(torch::kFloat))})
                           .to(torch::kCPU);
    std::memcpy(s.runSlots.data(), slots[0].data_ptr<double>(), sizeof(double) * s.runSlots.size());
    std::memcpy(s.referenceSlots.data(), slots[1].data_ptr<double>(), sizeof(double) * s.referenceSlots.size());
    return s;
}

}  // namespace

MapFormats mapFormatsOf(const ComputePolicy& policy) {
    const auto& e = policy.emulation;
    // The format modes hold gradients in their format where dY enters a layer (the result's
    // backward), not at the operands' gradients: the backward's format is the first one set.
    MapFormat backward = slotFormat(e.operandBackward, policy);
    if (e.operandBackward.format.none() && !e.resultBackward.format.none()) backward = slotFormat(e.resultBackward, policy);
    return MapFormats{slotFormat(e.operandForward, policy), backward};
}

namespace {

void measureBy(bool torchOps, const torch::Tensor& runValues, const torch::Tensor& referenceValues,
               const torch::Tensor& rerun, const MapFormat& format, PrecisionMapOp& into) {
    torch::NoGradGuard noGrad;
    const torch::Tensor again = rerun.defined() && rerun.numel() == runValues.numel() ? rerun : torch::Tensor();
    // An op that ran as the reference would stands for its own rerun: every element's
    // difference from itself is 0, so the added error is 0 without a pass over them.
    const bool againIsRun = again.defined() && again.is_same(runValues);
    ErrorSums s = torchOps ? sumsWithTorchOps(runValues, referenceValues, againIsRun ? torch::Tensor() : again, format)
                           : sumsOnCpu(runValues, referenceValues, againIsRun ? torch::Tensor() : again, format);
    if (againIsRun) s.addSq = s.rerunSq = 0.0;
    const auto relative = [](double errSq, double refSq) {
        if (std::isnan(errSq)) return errSq;
        if (errSq == 0.0) return 0.0;
        return refSq > 0.0 ? std::sqrt(errSq / refSq) : std::numeric_limits<double>::infinity();
    };
    into.elements = runValues.numel();
    into.relError = relative(s.errSq, s.refSq);
    into.snrDb = s.errSq == 0.0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(s.refSq / s.errSq);
    into.ulpsMax = s.ulpsMax;
    into.ulpsRms = s.finite > 0 ? std::sqrt(s.ulpsSq / s.finite) : 0.0;
    const double n = std::max<double>(1.0, static_cast<double>(into.elements));
    into.flushed = s.flushed / n;
    into.saturated = s.saturated / n;
    into.newNan = static_cast<int64_t>(s.newNan);
    into.newInf = static_cast<int64_t>(s.newInf);
    into.addedError = relative(s.addSq, s.rerunSq);
    into.run = histogramFromSlots(s.runSlots.data());
    into.reference = histogramFromSlots(s.referenceSlots.data());
}

}  // namespace

void measureOutput(const torch::Tensor& runValues, const torch::Tensor& referenceValues, const torch::Tensor& rerun,
                   const MapFormat& format, PrecisionMapOp& into) {
    measureBy(!runValues.device().is_cpu(), runValues, referenceValues, rerun, format, into);
}

namespace probe_detail {

void measureOutputWithTorchOps(const torch::Tensor& runValues, const torch::Tensor& referenceValues,
                               const torch::Tensor& rerun, const MapFormat& format, PrecisionMapOp& into) {
    measureBy(true, runValues, referenceValues, rerun, format, into);
}

}  // namespace probe_detail

namespace {

constexpr size_t kMaxAlignCells = size_t{1} << 24;  // past this, position alone pairs a group's ops

// Pairs of positions in a and b: their longest common subsequence of op names.
std::vector<std::pair<size_t, size_t>> alignByName(const std::vector<const CapturedOp*>& a,
                                                   const std::vector<const CapturedOp*>& b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::pair<size_t, size_t>> pairs;
    if (n * m > kMaxAlignCells) {
        for (size_t k = 0; k < std::min(n, m); ++k)
            if (a[k]->op == b[k]->op) pairs.emplace_back(k, k);
        return pairs;
    }
    std::vector<uint32_t> length((n + 1) * (m + 1), 0);
    const auto at = [&](size_t i, size_t j) -> uint32_t& { return length[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a[i]->op == b[j]->op ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    for (size_t i = 0, j = 0; i < n && j < m;) {
        if (a[i]->op == b[j]->op) {
            pairs.emplace_back(i++, j++);
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
    return pairs;
}

std::string phaseOf(const CapturedOp& op) {
    return std::string(op.backward ? nonfinite_phase::kBackward : nonfinite_phase::kForward);
}

}  // namespace

PrecisionMapStream::Compared PrecisionMapStream::Compared::of(const torch::Tensor& t) {
    if (!t.defined()) return {};
    return {t.data_ptr(), t.sizes().vec(), t.strides().vec(), t.scalar_type(), static_cast<int64_t>(t._version())};
}

PrecisionMapStream::PrecisionMapStream(std::vector<CapturedOp> run, MapFormats formats)
    : run_(std::move(run)), formats_(std::move(formats)), partner_(run_.size(), -1), rows_(run_.size()) {
    for (size_t k = 0; k < run_.size(); ++k) groups_[{run_[k].backward, run_[k].module}].run.push_back(k);
}

void PrecisionMapStream::measure(size_t runIndex, size_t position, const CapturedOp& ref) {
    const CapturedOp& op = run_[runIndex];
    const CapturedOutput& out = op.outputs[position];
    auto& slot = rows_[runIndex][position];
    slot.reset();
    const auto match = std::find_if(ref.outputs.begin(), ref.outputs.end(),
                                    [&](const CapturedOutput& o) { return o.index == out.index; });
    if (match == ref.outputs.end() || match->value.numel() != out.value.numel()) return;
    PrecisionMapOp row;
    row.op = op.op;
    row.module = op.module;
    row.phase = phaseOf(op);
    row.node = op.node;
    row.output = out.index;
    measureOutput(out.value, match->value, out.rerunIsValue ? out.value : out.rerun,
                  op.backward ? formats_.backward : formats_.forward, row);
    slot = std::move(row);
}

void PrecisionMapStream::pair(size_t runIndex, std::vector<CapturedOp>& reference, size_t referenceIndex) {
    partner_[runIndex] = static_cast<long>(referenceIndex);
    referencePartner_[referenceIndex] = static_cast<long>(runIndex);
    CapturedOp& ref = reference[referenceIndex];
    rows_[runIndex].assign(run_[runIndex].outputs.size(), std::nullopt);
    for (size_t p = 0; p < run_[runIndex].outputs.size(); ++p) measure(runIndex, p, ref);
    for (size_t p = 0; p < ref.outputs.size(); ++p) {
        auto& value = ref.outputs[p].value;
        if (value.defined()) compared_[{referenceIndex, p}] = Compared::of(value);
        value = torch::Tensor();  // compared: dropped
    }
}

void PrecisionMapStream::opKept(std::vector<CapturedOp>& reference, size_t index) {
    if (referencePartner_.size() < reference.size()) referencePartner_.resize(reference.size(), -1);
    const CapturedOp& ref = reference[index];
    GroupState& group = groups_[{ref.backward, ref.module}];
    const size_t position = group.reference.size();
    group.reference.push_back(index);
    if (group.diverged) return;
    // The traceback of the longest common subsequence pairs the heads of both sequences
    // whenever their names agree, and so does pairing by position: the same pairs.
    if (position < group.run.size() && run_[group.run[position]].op == ref.op) {
        pair(group.run[position], reference, index);
        group.paired = position + 1;
        return;
    }
    group.diverged = true;  // kept whole from here on, aligned at finish()
}

void PrecisionMapStream::valueReplaced(std::vector<CapturedOp>& reference, size_t index, size_t output) {
    if (index >= referencePartner_.size() || referencePartner_[index] < 0) return;  // not compared yet
    const auto runIndex = static_cast<size_t>(referencePartner_[index]);
    CapturedOp& ref = reference[index];
    auto& value = ref.outputs[output].value;
    const Compared now = Compared::of(value);
    auto& before = compared_[{index, output}];
    if (!(now == before)) {
        const int replacedIndex = ref.outputs[output].index;
        for (size_t p = 0; p < run_[runIndex].outputs.size(); ++p)
            if (run_[runIndex].outputs[p].index == replacedIndex) measure(runIndex, p, ref);
        before = now;
    }
    value = torch::Tensor();
}

PrecisionMapRecord PrecisionMapStream::finish(const std::vector<CapturedOp>& reference) {
    if (referencePartner_.size() < reference.size()) referencePartner_.resize(reference.size(), -1);
    // The groups where the names disagreed: the rest of them aligned whole, as
    // comparePrecisionMaps's alignment (the longest common subsequence of the names) would
    // continue from the first disagreement.
    for (auto& [group, state] : groups_) {
        if (!state.diverged) continue;
        const size_t n = state.run.size(), m = state.reference.size(), from = state.paired;
        std::vector<const CapturedOp*> a, b;
        for (size_t k = from; k < n; ++k) a.push_back(&run_[state.run[k]]);
        for (size_t k = from; k < m; ++k) b.push_back(&reference[state.reference[k]]);
        std::vector<std::pair<size_t, size_t>> pairs;
        if (n * m > kMaxAlignCells) {
            for (size_t k = 0; k < std::min(a.size(), b.size()); ++k)
                if (a[k]->op == b[k]->op) pairs.emplace_back(k, k);
        } else {
            pairs = alignByName(a, b);
        }
        for (const auto& [i, j] : pairs) {
            const size_t runIndex = state.run[from + i], referenceIndex = state.reference[from + j];
            partner_[runIndex] = static_cast<long>(referenceIndex);
            referencePartner_[referenceIndex] = static_cast<long>(runIndex);
            rows_[runIndex].assign(run_[runIndex].outputs.size(), std::nullopt);
            for (size_t p = 0; p < run_[runIndex].outputs.size(); ++p) measure(runIndex, p, reference[referenceIndex]);
        }
    }

    PrecisionMapRecord record;
    record.formatForward = formats_.forward.name;
    record.formatBackward = formats_.backward.name;
    record.bitsForward = formats_.forward.bits;
    record.bitsBackward = formats_.backward.bits;
    const auto unmatched = [&](const char* side, const CapturedOp& op) {
        record.unmatched.push_back({side, op.op, op.module, phaseOf(op)});
    };
    std::map<std::pair<size_t, int>, size_t> rowOf;  // (run op, output index) -> row
    for (size_t k = 0; k < run_.size(); ++k) {
        const CapturedOp& op = run_[k];
        if (partner_[k] < 0) {
            unmatched("run", op);
            continue;
        }
        for (size_t p = 0; p < op.outputs.size(); ++p) {
            if (!rows_[k][p]) {
                unmatched("run", op);
                continue;
            }
            PrecisionMapOp row = std::move(*rows_[k][p]);
            for (const auto& from : op.inputsFrom)
                if (auto it = rowOf.find(from); it != rowOf.end())
                    row.inputError = std::max(row.inputError, record.ops[it->second].relError);
            rowOf[{k, op.outputs[p].index}] = record.ops.size();
            record.ops.push_back(std::move(row));
        }
    }
    for (size_t k = 0; k < reference.size(); ++k)
        if (referencePartner_[k] < 0) unmatched("reference", reference[k]);

    std::map<std::pair<std::string, std::string>, size_t> moduleIndex;
    for (size_t k = 0; k < record.ops.size(); ++k) {
        const auto& row = record.ops[k];
        auto [it, created] = moduleIndex.try_emplace({row.phase, row.module}, record.modules.size());
        if (created) {
            PrecisionMapModule m;
            m.module = row.module;
            m.phase = row.phase;
            m.firstOp = static_cast<int64_t>(k);
            m.inputError = row.inputError;
            record.modules.push_back(std::move(m));
        }
        auto& m = record.modules[it->second];
        m.ops += 1;
        m.outputError = row.relError;
    }
    return record;
}

PrecisionMapRecord comparePrecisionMaps(const std::vector<CapturedOp>& run, const std::vector<CapturedOp>& reference,
                                        const MapFormats& formats) {
    // The stream on the finished captures: its values are dropped as they are compared,
    // from copies of the handles.
    PrecisionMapStream stream(run, formats);
    std::vector<CapturedOp> kept = reference;
    for (size_t k = 0; k < kept.size(); ++k) stream.opKept(kept, k);
    return stream.finish(kept);
}

}  // namespace ampscope
