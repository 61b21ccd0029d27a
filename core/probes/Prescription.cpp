#include "probes/Prescription.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/InputError.h"

namespace ampscope {

std::vector<std::string> Prescription::kept() const {
    std::vector<std::string> names;
    for (const auto& layer : ranking)
        if (layer.kept) names.push_back(layer.layer);
    return names;
}

double Prescription::keptScoreShare() const {
    double total = 0.0, kept = 0.0;
    for (const auto& layer : ranking) {
        total += layer.score;
        if (layer.kept) kept += layer.score;
    }
    if (!std::isfinite(total)) return 1.0;
    return total > 0.0 ? kept / total : 0.0;
}

double Prescription::formatFlopsShare() const {
    double share = 1.0;
    for (const auto& layer : ranking)
        if (layer.kept) share -= layer.flopsShare;
    return share;
}

Prescription choosePrescription(const SensitivityRecord& sensitivity, const std::string& format, double budget) {
    if (!isPrescriptionBudget(budget))
        throw InputError("--budget: " + std::to_string(budget) +
                         " is not a share of FLOPs in (0, 1] (e.g. --budget 0.9: at least 90% stay in the format)");
    Prescription prescription;
    prescription.format = format;
    prescription.budget = budget;
    double totalFlops = 0.0, totalScore = 0.0;
    for (const auto& layer : sensitivity.layers) {
        totalFlops += layer.flops;
        if (const auto* s = layer.in(format)) totalScore += std::isnan(s->score) ? INFINITY : s->score;
    }
    const auto ranked = rankByScore(sensitivity, format);
    if (ranked.empty()) throw InputError("--format: " + format + " was not measured");
    double keptScore = 0.0, keptFlops = 0.0;
    for (const LayerSensitivity* layer : ranked) {
        PrescribedLayer entry;
        entry.layer = layer->layer;
        entry.score = layer->in(format)->score;
        entry.flopsShare = totalFlops > 0.0 ? layer->flops / totalFlops : 0.0;
        const bool covered = std::isfinite(totalScore) ? keptScore >= kPrescriptionScoreShare * totalScore
                                                        : !std::isnan(entry.score);
        // A layer of score 0 changes nothing in the format: there is no reason to keep it.
        const bool wanted = !covered && !(entry.score == 0.0);
        if (wanted && 1.0 - (keptFlops + entry.flopsShare) < budget - 1e-12) {
            entry.overBudget = true;
        } else if (wanted) {
            entry.kept = true;
            keptFlops += entry.flopsShare;
            keptScore += std::isnan(entry.score) ? 0.0 : entry.score;
        }
        prescription.ranking.push_back(entry);
    }
    return prescription;
}

namespace {

nlohmann::json number(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

nlohmann::json quantityJson(const ArmQuantity& q) {
    nlohmann::json j{{"seeds", q.seeds}, {"mean", number(q.mean)}, {"sd", number(q.sd)}};
    if (!q.label.empty()) {
        j["label"] = q.label;
        j["p"] = number(q.p);
    }
    return j;
}

}  // namespace

nlohmann::json prescriptionJson(const Prescription& prescription, const std::vector<PrescriptionArm>& arms,
                                const std::string& verdict) {
    nlohmann::json ranking = nlohmann::json::array();
    for (const auto& layer : prescription.ranking)
        ranking.push_back({{"layer", layer.layer},
                           {"score", number(layer.score)},
                           {"flops_share", layer.flopsShare},
                           {"kept", layer.kept},
                           {"over_budget", layer.overBudget}});
    nlohmann::json armList = nlohmann::json::array();
    for (const auto& arm : arms)
        armList.push_back({{"name", arm.name},
                           {"mode", arm.mode},
                           {"keep_fp32", arm.keptFp32},
                           {"trained", arm.trained},
                           {"runs", arm.runs},
                           {"val_loss", quantityJson(arm.valLoss)},
                           {"val_accuracy", quantityJson(arm.valAccuracy)}});
    return {{"format", prescription.format},
            {"budget", prescription.budget},
            {"score_share_rule", kPrescriptionScoreShare},
            {"kept", prescription.kept()},
            {"kept_score_share", number(prescription.keptScoreShare())},
            {"format_flops_share", prescription.formatFlopsShare()},
            {"ranking", ranking},
            {"arms", armList},
            {"verdict", verdict}};
}

namespace {

// A null number is a non-finite one (number() above writes NaN and infinities as null).
double numberOf(const nlohmann::json& value) { return value.is_number() ? value.get<double>() : NAN; }

ArmQuantity quantityFromJson(const nlohmann::json& j) {
    ArmQuantity q;
    q.seeds = j.at("seeds").get<int>();
    q.mean = numberOf(j.at("mean"));
    q.sd = numberOf(j.at("sd"));
    if (j.contains("label")) {
        q.label = j.at("label").get<std::string>();
        q.p = numberOf(j.at("p"));
    }
    return q;
}

}  // namespace

PrescriptionRecord prescriptionFromJson(const nlohmann::json& document) {
    PrescriptionRecord record;
    try {
        record.prescription.format = document.at("format").get<std::string>();
        record.prescription.budget = document.at("budget").get<double>();
        for (const auto& layer : document.at("ranking"))
            record.prescription.ranking.push_back({layer.at("layer").get<std::string>(), numberOf(layer.at("score")),
                                                   layer.at("flops_share").get<double>(), layer.at("kept").get<bool>(),
                                                   layer.at("over_budget").get<bool>()});
        for (const auto& arm : document.at("arms")) {
            PrescriptionArm entry;
            entry.name = arm.at("name").get<std::string>();
            entry.mode = arm.at("mode").get<std::string>();
            entry.keptFp32 = arm.at("keep_fp32").get<std::vector<std::string>>();
            entry.trained = arm.at("trained").get<bool>();
            entry.runs = arm.at("runs").get<std::vector<std::string>>();
            entry.valLoss = quantityFromJson(arm.at("val_loss"));
            entry.valAccuracy = quantityFromJson(arm.at("val_accuracy"));
            record.arms.push_back(std::move(entry));
        }
        record.verdict = document.at("verdict").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("prescription.json: not a prescription (") + e.what() + ")");
    }
    return record;
}

std::vector<std::string> prescriptionSnippets(const std::vector<std::string>& kept) {
    std::string set, list;
    for (const auto& name : kept) {
        set += (set.empty() ? "\"" : ", \"") + name + "\"";
        list += (list.empty() ? "\"" : ", \"") + name + "\"";
    }
    if (kept.empty())
        return {"No layer needs to stay in higher precision: convert every layer (torchao's default "
                "module_filter_fn, an empty torchtitan filter_fqns)."};
    return {
        "torchao (convert_to_float8_training / quantize_ with a filter):",
        "    def module_filter_fn(module, fqn):",
        "        return fqn not in {" + set + "}",
        "torchtitan (job config, [float8] or [mx] section):",
        "    filter_fqns = [" + list + "]",
        "Transformer Engine: build these modules as plain torch.nn layers (or run them outside",
        "    te.fp8_autocast / te.autocast); Megatron-LM: --first-last-layers-bf16 keeps only the first",
        "    and last transformer layers, so name these modules in your model's own precision rules.",
    };
}

}  // namespace ampscope
