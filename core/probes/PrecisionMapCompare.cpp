#include "probes/PrecisionMapCompare.h"

#include <algorithm>
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

// What one output's numbers are made of (sums over its elements).
struct ErrorSums {
    double errSq = 0, refSq = 0;    // elements finite on both sides
    double ulpsMax = 0, ulpsSq = 0;
    double finite = 0, flushed = 0, saturated = 0, newNan = 0, newInf = 0;
    double addSq = std::nan(""), rerunSq = std::nan("");  // against the op run again
};

// floor(log2 |x|) of a finite non-zero x, clamped below at an unscaled format's smallest
// normal exponent: the exponent of the format's spacing there is this - (bits - 1).
int spacingExponent(double magnitude, const MapFormat& format) {
    int e = std::ilogb(magnitude);
    if (format.minExponent) e = std::max(e, *format.minExponent);
    return e - (format.bits - 1);
}

// On the CPU: two passes over the elements, no temporaries (temporaries of an op's size
// cost more than the arithmetic, and every torch op a parallel launch).
ErrorSums sumsOnCpu(const torch::Tensor& runValues, const torch::Tensor& referenceValues, const torch::Tensor& rerun,
                    const MapFormat& format) {
    const auto mt = runValues.detach().to(torch::kFloat).contiguous();
    const auto rt = referenceValues.detach().to(torch::kDouble).contiguous();
    const auto at = rerun.defined() ? rerun.detach().to(torch::kDouble).contiguous() : torch::Tensor();
    const float* m = mt.data_ptr<float>();
    const double* r = rt.data_ptr<double>();
    const double* a = at.defined() ? at.data_ptr<double>() : nullptr;
    const int64_t n = mt.numel();
    double top = 0.0;  // the run's largest magnitude, for saturation
    for (int64_t i = 0; i < n; ++i)
        if (std::isfinite(m[i]) && std::isfinite(r[i])) top = std::max(top, std::abs(static_cast<double>(m[i])));
    const double saturatedBelow = top * (1.0 + std::ldexp(2.0, -format.bits));
    ErrorSums s;
    if (a) s.addSq = s.rerunSq = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double mi = m[i], ri = r[i];
        const bool mf = std::isfinite(mi), rf = std::isfinite(ri);
        if (std::isnan(mi) && !std::isnan(ri)) s.newNan += 1;
        if (std::isinf(mi) && rf) s.newInf += 1;
        if (a && mf && std::isfinite(a[i])) {
            s.addSq += (mi - a[i]) * (mi - a[i]);
            s.rerunSq += a[i] * a[i];
        }
        if (!(mf && rf)) continue;
        s.finite += 1;
        const double d = mi - ri;
        s.errSq += d * d;
        s.refSq += ri * ri;
        const double magnitude = ri != 0.0 ? std::abs(ri) : std::abs(mi);
        const double ulps = magnitude > 0.0 ? std::abs(d) / std::ldexp(1.0, spacingExponent(magnitude, format)) : 0.0;
        s.ulpsMax = std::max(s.ulpsMax, ulps);
        s.ulpsSq += ulps * ulps;
        if (mi == 0.0 && ri != 0.0) s.flushed += 1;
        if (top > 0.0 && std::abs(mi) == top && std::abs(ri) > saturatedBelow) s.saturated += 1;
    }
    return s;
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
    ErrorSums s{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
    if (rerun.defined()) {
        s.addSq = v[9];
        s.rerunSq = v[10];
    }
    return s;
}

}  // namespace

MapFormats mapFormatsOf(const ComputePolicy& policy) {
    const auto& e = policy.emulation;
    return MapFormats{slotFormat(e.operandForward, policy), slotFormat(e.operandBackward, policy)};
}

void measureOutput(const torch::Tensor& runValues, const torch::Tensor& referenceValues, const torch::Tensor& rerun,
                   const MapFormat& format, PrecisionMapOp& into) {
    torch::NoGradGuard noGrad;
    const torch::Tensor again = rerun.defined() && rerun.numel() == runValues.numel() ? rerun : torch::Tensor();
    const ErrorSums s = runValues.device().is_cpu() ? sumsOnCpu(runValues, referenceValues, again, format)
                                                    : sumsWithTorchOps(runValues, referenceValues, again, format);
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
    into.run = computeExponentHistogram(runValues.detach().to(torch::kFloat));
    into.reference = computeExponentHistogram(referenceValues.detach().to(torch::kFloat));
}

namespace {

using Group = std::pair<bool, std::string>;  // (backward, module)

// Pairs of positions in a and b: their longest common subsequence of op names.
std::vector<std::pair<size_t, size_t>> alignByName(const std::vector<const CapturedOp*>& a,
                                                   const std::vector<const CapturedOp*>& b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::pair<size_t, size_t>> pairs;
    constexpr size_t kMaxCells = size_t{1} << 24;  // past this, position alone pairs them
    if (n * m > kMaxCells) {
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

PrecisionMapRecord comparePrecisionMaps(const std::vector<CapturedOp>& run, const std::vector<CapturedOp>& reference,
                                        const MapFormats& formats) {
    std::map<Group, std::vector<size_t>> runGroups, referenceGroups;
    for (size_t k = 0; k < run.size(); ++k) runGroups[{run[k].backward, run[k].module}].push_back(k);
    for (size_t k = 0; k < reference.size(); ++k) referenceGroups[{reference[k].backward, reference[k].module}].push_back(k);

    std::vector<long> partner(run.size(), -1);
    std::vector<bool> referenceMatched(reference.size(), false);
    for (const auto& [group, runIndices] : runGroups) {
        auto it = referenceGroups.find(group);
        if (it == referenceGroups.end()) continue;
        std::vector<const CapturedOp*> a, b;
        for (size_t k : runIndices) a.push_back(&run[k]);
        for (size_t k : it->second) b.push_back(&reference[k]);
        for (const auto& [i, j] : alignByName(a, b)) {
            partner[runIndices[i]] = static_cast<long>(it->second[j]);
            referenceMatched[it->second[j]] = true;
        }
    }

    PrecisionMapRecord record;
    record.formatForward = formats.forward.name;
    record.formatBackward = formats.backward.name;
    record.bitsForward = formats.forward.bits;
    record.bitsBackward = formats.backward.bits;
    const auto unmatched = [&](const char* side, const CapturedOp& op) {
        record.unmatched.push_back({side, op.op, op.module, phaseOf(op)});
    };
    std::map<std::pair<size_t, int>, size_t> rowOf;  // (run op, output index) -> row
    for (size_t k = 0; k < run.size(); ++k) {
        const CapturedOp& op = run[k];
        if (partner[k] < 0) {
            unmatched("run", op);
            continue;
        }
        const CapturedOp& ref = reference[static_cast<size_t>(partner[k])];
        for (const auto& out : op.outputs) {
            const auto match = std::find_if(ref.outputs.begin(), ref.outputs.end(),
                                            [&](const CapturedOutput& o) { return o.index == out.index; });
            if (match == ref.outputs.end() || match->value.numel() != out.value.numel()) {
                unmatched("run", op);
                continue;
            }
            PrecisionMapOp row;
            row.op = op.op;
            row.module = op.module;
            row.phase = phaseOf(op);
            row.node = op.node;
            row.output = out.index;
            measureOutput(out.value, match->value, out.rerun, op.backward ? formats.backward : formats.forward, row);
            for (const auto& from : op.inputsFrom)
                if (auto it = rowOf.find(from); it != rowOf.end())
                    row.inputError = std::max(row.inputError, record.ops[it->second].relError);
            rowOf[{k, out.index}] = record.ops.size();
            record.ops.push_back(std::move(row));
        }
    }
    for (size_t k = 0; k < reference.size(); ++k)
        if (!referenceMatched[k]) unmatched("reference", reference[k]);

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

}  // namespace ampscope
