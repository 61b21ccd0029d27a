#pragma once
// INTERNAL (includes torch). The sensitivity pass (probes/SensitivityRecord.h defines
// the score): what quantizing each matmul/conv layer alone, in each format, costs the
// loss of one batch, estimated from an fp32 twin of the run.
//
// On the batch of the trainer's last step, with its current weights:
// 1. the reference: an fp32 twin (fp32ShadowConfig: nothing kept, no scaler, no fault)
//    runs forward and backward; each layer's matmul/conv operands and outputs Y are kept,
//    and dL/dY (the gradient of the plain loss, unscaled) as the backward passes Y;
// 2. per format, a twin in that precision mode runs the forward only, with every layer's
//    activation operands swapped for the reference's (OperandTap) before they are
//    quantized, and every layer handing on the reference's Y: each output Y_q carries
//    its own layer's quantization error and no other's. Score: (sum dL/dY (Y_q - Y))^2,
//    and ModelOpt's diagonal sum (dL/dY)^2 (Y_q - Y)^2 beside it.
// Cost: one fp32 step's forward and backward, and one forward per format. The global
// CPU generator (dropout) is put back as it was found, so the run trains as it would
// without the pass; the trainer's own model is only read.
//
// Format twins keep their state between passes: delayed scaling's amax history is the
// passes' own, one entry per pass (fp8 with the run's recipe and margin).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/Trainer.h"
#include "probes/SensitivityRecord.h"

namespace ampscope {

class SensitivityPass {
public:
    // formats: precision modes among sensitivityFormats(), or "fp32"; an unknown name or
    // an empty list is an InputError naming the format.
    explicit SensitivityPass(std::vector<std::string> formats);
    ~SensitivityPass();

    // After Trainer::step (its lastInputs() and lastTargets() are the batch).
    SensitivityRecord measure(const Trainer& trainer, int64_t step);

private:
    std::vector<std::string> formats_;
    std::unique_ptr<Trainer> reference_;
    std::map<std::string, std::unique_ptr<Trainer>> twins_;
};

}  // namespace ampscope
