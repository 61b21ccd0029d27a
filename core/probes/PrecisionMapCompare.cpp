#include "probes/PrecisionMapCompare.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include <ATen/Parallel.h>
#include <cmath>
#include <map>
#include <utility>


#include "precision/formats/FormatTable.h"
#include "probes/HistogramProbe.h"
#include "probes/PrecisionMapCpuPass.h"
#include "probes/NonFiniteEvent.h"

namespace ampscope {

using map_pass::ErrorSums;
using map_pass::sumsOnCpu;

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

bool useVectorMapPass(bool allowed) { return map_pass::useVectorLoop(allowed); }

}  // namespace probe_detail

}  // namespace ampscope
