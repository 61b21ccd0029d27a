#pragma once
// Plain (no torch). Which layers to keep in higher precision when a model trains in a
// low-precision format, chosen from its sensitivity (SensitivityRecord.h), and what
// training said of the choice: `ampscope-cli prescribe` writes it as prescription.json.
//
// The choice (choosePrescription): the layers in the order of their score (most
// sensitive first); each is kept (precision.keep_fp32) until the kept layers hold
// kPrescriptionScoreShare of the model's total score, so that what stays in the format
// carries at most the rest of the estimated squared loss change; a layer whose FLOPs
// would leave less than `budget` of the model's matmul/conv FLOPs in the format is
// passed over (and said so). The kept set is the smallest that covers that share in
// score order. A non-finite score ranks first and is kept when the budget allows.
//
// The verdicts: the reference (fp32), the model all in the format, and the prescription
// each trained with the same seeds; each compared arm's final validation loss and
// accuracy against the reference's seeds by Welch's one-sided t-test (stats/SeedBand.h):
// "inside" when the gap is within seed noise at alpha 0.05.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "probes/SensitivityRecord.h"

namespace ampscope {

inline constexpr double kPrescriptionScoreShare = 0.9;

// The budget's limits, for the CLI's --budget and the window's dialog alike: a share of
// the FLOPs in (0, 1] (0 would keep every layer, above 1 is no share).
inline bool isPrescriptionBudget(double budget) { return budget > 0.0 && budget <= 1.0; }

struct PrescribedLayer {
    std::string layer;
    double score = 0.0;       // SensitivityRecord's, in the prescribed format
    double flopsShare = 0.0;  // of the model's matmul/conv FLOPs
    bool kept = false;
    bool overBudget = false;  // would have been kept, but its FLOPs break the budget
};

struct Prescription {
    std::string format;
    double budget = 0.9;  // share of FLOPs that must stay in the format
    std::vector<PrescribedLayer> ranking;  // every measured layer, most sensitive first
    std::vector<std::string> kept() const;
    double keptScoreShare() const;   // of the total score (1 when the total is not finite)
    double formatFlopsShare() const; // the FLOPs that still run in the format
};

// InputError for a format the record did not measure or a budget outside (0, 1].
Prescription choosePrescription(const SensitivityRecord& sensitivity, const std::string& format, double budget);

// One trained arm of the verification and its comparison with the reference.
struct ArmQuantity {
    int seeds = 0;
    double mean = 0.0, sd = 0.0;
    std::string label;  // "inside", "outside", "no band"; empty for the reference itself
    double p = 1.0;     // Welch one-sided p-value (NaN without a band)
};
struct PrescriptionArm {
    std::string name;    // "reference", "all mxfp4", "prescribed"
    std::string mode;    // its precision.mode
    std::vector<std::string> keptFp32;
    std::vector<std::string> runs;  // its run directories, relative to DIR
    ArmQuantity valLoss, valAccuracy;
    bool trained = true;  // false: not needed (the all-format arm was inside already)
};

nlohmann::json prescriptionJson(const Prescription& prescription, const std::vector<PrescriptionArm>& arms,
                                const std::string& verdict);

// prescription.json read back (prescriptionJson's inverse): what the window shows of a
// finished prescription. InputError naming the field for a document that is not one.
struct PrescriptionRecord {
    Prescription prescription;
    std::vector<PrescriptionArm> arms;
    std::string verdict;
};
PrescriptionRecord prescriptionFromJson(const nlohmann::json& document);

// The kept layers in the words of the tools users train with: torchao's module_filter_fn,
// torchtitan's filter_fqns and a Transformer Engine / Megatron-LM note. The names are the
// lab's layer names (a TorchScript model's are its modules' qualified names).
std::vector<std::string> prescriptionSnippets(const std::vector<std::string>& kept);

}  // namespace ampscope
