// record_vocabulary: the run-directory vocabulary as the C++ core defines it, for the
// Python suite that keeps the recorder's mirror (python/ampscope/schema.py) and the
// records the recorder writes equal to it (tests/python/test_schema_mirror.py).
//
//   record_vocabulary
//
// Prints one JSON object:
//   "records":   {record type or file name: keys}, each record's keys as its field list
//                says (run/RecordKeys.h: "read" required | optional | written only,
//                "nonfinite", nested "fields"); config.json's from config/ConfigSchema.h
//   "record_types": every type this build reads (knownRecordTypes())
//   "constants": the core's values of the names schema.py mirrors, under schema.py's
//                names, so the suite can compare them one by one
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/ConfigSchema.h"
#include "config/ConfigValidation.h"
#include "config/RunConfig.h"
#include "engine/RunRecords.h"
#include "engine/RunSummary.h"
#include "kernels/ProbeElementRules.h"
#include "precision/Fp16Limits.h"
#include "probes/ComparisonRecords.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/NonFiniteEvent.h"
#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"
#include "run/EventSchema.h"
#include "run/KnownRecordTypes.h"
#include "run/ModelModulesRecord.h"
#include "run/RunLifecycleRecords.h"
#include "run/RunWriter.h"
#include "run/StepRecordCodec.h"

namespace {

using nlohmann::json;
using namespace ampscope;

// config.json: every key optional (a missing one keeps RunConfig's default); the strict
// reader refuses any key not listed.
struct ConfigKeys {
    json keys = json::object();

    template <class T>
    void field(const char* key, const T&) {
        keys[key] = {{"read", "optional"}};
    }
    void field(const char* key, const std::vector<FaultConfig>&) {
        ConfigKeys fault;
        const FaultConfig defaults;
        config_schema::visitFault(fault, defaults);
        keys[key] = {{"read", "optional"}, {"list", true}, {"fields", fault.keys}};
    }
    template <class T, class Visit>
    void section(const char* key, const T& value, Visit visit) {
        ConfigKeys sub;
        visit(sub, value);
        keys[key] = {{"read", "optional"}, {"fields", sub.keys}};
    }
};

json configKeys() {
    ConfigKeys collector;
    const RunConfig defaults;
    config_schema::visitRun(collector, defaults);
    return collector.keys;
}

json records() {
    json all = json::object();
    for (const json& part : {stepRecordKeys(), runLifecycleRecordKeys(), summaryRecordKeys(), probeRecordKeys(),
                             stepAuditRecordKeys(), comparisonRecordKeys(), formatSweepRecordKeys(),
                             formatQuantRecordKeys(), modelModulesRecordKeys()})
        all.update(part);
    all[std::string(kConfigFileName)] = configKeys();
    return all;
}

json constants() {
    namespace rules = probe_rules;
    const double flushSeconds = std::chrono::duration<double>(RunWriter::kFlushInterval).count();
    return {
        {"EVENTS_SCHEMA_VERSION", kEventsSchemaVersion},
        {"CONFIG_SCHEMA_VERSION", kConfigSchemaVersion},
        {"SUMMARY_SCHEMA_VERSION", kSummarySchemaVersion},
        {"CONFIG_FILE", kConfigFileName},
        {"EVENTS_FILE", kEventsFileName},
        {"SUMMARY_FILE", kSummaryFileName},
        {"FLUSH_BYTES", RunWriter::kFlushBytes},
        {"FLUSH_INTERVAL_SECONDS", flushSeconds},
        {"SOURCE_FIELD", kSourceField},
        {"SOURCE_RECORDER", record_source::kPyTorchRecorder},
        {"RECORDED_EXECUTION", record_source::kRecordedExecution},
        {"RUN_START", event_type::kRunStart},
        {"RUN_INFO", event_type::kRunInfo},
        {"STEP", event_type::kStep},
        {"EPOCH", event_type::kEpoch},
        {"ERROR", event_type::kError},
        {"RUN_END", event_type::kRunEnd},
        {"HISTOGRAM", probe_record_type::kHistogram},
        {"UNDERFLOW", probe_record_type::kUnderflow},
        {"NONFINITE", probe_record_type::kNonFinite},
        {"UPDATE_RATIO", probe_record_type::kUpdateRatio},
        {"MEMORY", probe_record_type::kMemory},
        {"PARAM_GRAD", probe_kind::kParamGrad},
        {"PARAM_GRAD_SCALED", probe_kind::kParamGradScaled},
        {"ACTIVATION_GRAD", probe_kind::kActivationGrad},
        {"FINISHED", run_status::kFinished},
        {"STOPPED", run_status::kStopped},
        {"STATUS_ERROR", run_status::kError},
        {"LOCATED_BY_CHECK", nonfinite_located_by::kCheck},
        {"NONFINITE_PARAM_GRAD", nonfinite_tensor::kParamGrad},
        {"VIA_GRADIENT_ALLREDUCE", nonfinite_via::kGradientAllReduce},
        {"MIN_EXPONENT", rules::kMinExponent},
        {"MAX_EXPONENT", rules::kMaxExponent},
        {"EXPONENT_BINS", rules::kExponentBins},
        {"SLOT_BELOW", rules::kBelowSlot},
        {"SLOT_ABOVE", rules::kAboveSlot},
        {"SLOT_ZERO", rules::kZeroSlot},
        {"SLOT_NAN", rules::kNanSlot},
        {"SLOT_POS_INF", rules::kPosInfSlot},
        {"SLOT_NEG_INF", rules::kNegInfSlot},
        {"HISTOGRAM_SLOTS", rules::kHistogramSlots},
        {"FP16_FLUSH_BOUND", fp16::kFlushBound},
        {"FP16_NORMAL_BOUND", fp16::kNormalBound},
        {"FP16_OVERFLOW_BOUND", fp16::kOverflowBound},
        {"CLASS_ZERO", rules::kClassZero},
        {"CLASS_FLUSHED", rules::kClassFlushed},
        {"CLASS_SUBNORMAL", rules::kClassSubnormal},
        {"CLASS_NORMAL", rules::kClassNormal},
        {"CLASS_OVERFLOW", rules::kClassOverflow},
        {"CLASS_NAN", rules::kClassNan},
        {"CLASS_POS_INF", rules::kClassPosInf},
        {"CLASS_NEG_INF", rules::kClassNegInf},
        {"CLASS_SLOTS", rules::kClassCount},
        // The engine keeps probes.ring_steps frames before a non-finite event; the
        // recorder keeps as many as a run with the default config.
        {"FRAME_CAPACITY", ProbeConfig{}.ring_steps},
        {"PRECISION_MODES", allowedModes()},
    };
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 1) {
        std::cerr << argv[0] << ": takes no arguments (prints the run-directory vocabulary)\n";
        return 2;
    }
    json types = json::array();
    for (const auto type : knownRecordTypes()) types.push_back(type);
    std::cout << json{{"records", records()}, {"record_types", types}, {"constants", constants()}}.dump(1)
              << "\n";
    return 0;
}
