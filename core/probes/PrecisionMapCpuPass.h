#pragma once
// INTERNAL (includes torch). The precision map's pass over one output's elements on the
// CPU (PrecisionMapCompare.h measures an output with it): the sums its numbers are made
// of and both histograms, in parallel chunks of 2^16 elements, each chunk's sums added
// in element order (the records' bits depend on that order), the chunks' in turn.
#include <algorithm>
#include <array>
#include <cmath>

#include <torch/torch.h>

#include "probes/HistogramProbe.h"
#include "probes/PrecisionMapCompare.h"

namespace ampscope::map_pass {

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

// run against reference, and against rerun (undefined: none) for the added error.
ErrorSums sumsOnCpu(const torch::Tensor& run, const torch::Tensor& reference, const torch::Tensor& rerun,
                    const MapFormat& format);

// Whether the AVX-512 loop may be used (it is where the CPU has it); returns whether it is.
bool useVectorLoop(bool allowed);

}  // namespace ampscope::map_pass
