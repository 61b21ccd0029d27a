#include "export/TfEventsExport.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/InputError.h"
#include "export/TfEvent.h"
#include "export/TfRecordFile.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/PrecisionMapRecord.h"
#include "probes/ProbeRecords.h"
#include "run/EventSchema.h"
#include "run/RecordCodec.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope {
namespace {

bool isScalerField(const std::string& key) {
    return key.rfind("scale", 0) == 0 || key == "growth_tracker" || key == "found_inf" ||
           key == "step_skipped";
}

// A record's numeric field, with the run-directory rules for non-finite values; nullopt
// when absent or null without a tag (not measured).
std::optional<double> numberField(const nlohmann::json& record, const std::string& key) {
    auto it = record.find(key);
    if (it == record.end()) return std::nullopt;
    if (it->is_boolean()) return it->get<bool>() ? 1.0 : 0.0;
    if (it->is_number()) return it->get<double>();
    if (!it->is_null()) return std::nullopt;
    auto tag = record.find(record_codec::nonFiniteKey(key));
    if (tag == record.end() || !tag->is_string()) return std::nullopt;
    const std::string t = tag->get<std::string>();
    if (t == "nan") return NAN;
    if (t == "inf") return INFINITY;
    if (t == "-inf") return -INFINITY;
    return std::nullopt;
}

// A scalar only where the value is finite: an SNR of +inf (nothing changed) or an MX
// point's NaN scale would be a point TensorBoard cannot draw.
void addFinite(std::vector<TfValue>& values, std::string tag, double value);

TfValue scalar(std::string tag, double value) {
    TfValue v;
    v.tag = std::move(tag);
    v.simpleValue = static_cast<float>(value);
    return v;
}

void addFinite(std::vector<TfValue>& values, std::string tag, double value) {
    if (std::isfinite(value)) values.push_back(scalar(std::move(tag), value));
}

TfHistogram log2Histogram(const ExponentHistogram& h) {
    TfHistogram out;
    int lowest = -1, highest = -1;
    for (std::size_t i = 0; i < h.counts.size(); ++i)
        if (h.counts[i] > 0) {
            if (lowest < 0) lowest = static_cast<int>(i);
            highest = static_cast<int>(i);
        }
    const auto addBucket = [&](double left, double right, double count) {
        out.bucketLimits.push_back(right);
        out.buckets.push_back(count);
        out.num += count;
        const double centre = 0.5 * (left + right);
        out.sum += count * centre;
        out.sumSquares += count * centre * centre;
    };
    const double belowEdge = kMinExponent;
    if (h.below > 0) addBucket(belowEdge - 1.0, belowEdge, static_cast<double>(h.below));
    if (lowest >= 0)
        for (int i = lowest; i <= highest; ++i) {
            const double k = kMinExponent + i;
            addBucket(k, k + 1.0, static_cast<double>(h.counts[static_cast<std::size_t>(i)]));
        }
    const double aboveEdge = kMinExponent + static_cast<double>(h.counts.size());
    if (h.above > 0) addBucket(aboveEdge, aboveEdge + 1.0, static_cast<double>(h.above));
    if (!out.bucketLimits.empty()) {
        out.max = out.bucketLimits.back();
        out.min = h.below > 0 ? belowEdge - 1.0 : kMinExponent + lowest;
    }
    return out;
}

}  // namespace

double unixSecondsFromIsoUtc(const std::string& text) {
    std::tm tm{};
    const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || (*end != 'Z' && *end != '\0')) return -1.0;
    return static_cast<double>(timegm(&tm));
}

namespace {

// Pulls the next record into `record`; false at the end.
using NextRecord = std::function<bool(const nlohmann::json*& record)>;

// One pass over the records (`facts` gives the warnings, read once `next` is exhausted).
TfEventsExportResult exportRecordsTfEvents(const NextRecord& next, const RunData& facts,
                                           const std::string& outDirectory) {
    if (!tfEventCodecAvailable()) encodeTfEvent({});  // throws the one-line reason
    std::error_code error;
    std::filesystem::create_directories(outDirectory, error);
    if (error || !std::filesystem::is_directory(outDirectory))
        throw InputError(outDirectory + ": cannot create the export folder" +
                         (error ? " (" + error.message() + ")" : std::string()));

    // run_start, when it is the first record, dates the file.
    const nlohmann::json* record = nullptr;
    bool haveRecord = next(record);
    double startTime = -1.0;
    if (const auto start = haveRecord ? runStartFromJson(*record) : std::nullopt)
        startTime = unixSecondsFromIsoUtc(start->time);
    if (startTime < 0) startTime = static_cast<double>(std::time(nullptr));

    TfEventsExportResult result;
    result.path =
        (std::filesystem::path(outDirectory) /
         ("events.out.tfevents." + std::to_string(static_cast<int64_t>(startTime)) + ".ampscope"))
            .string();
    TfRecordWriter writer(result.path);
    const auto emit = [&](const TfEvent& event) {
        writer.write(encodeTfEvent(event));
        ++result.events;
        for (const TfValue& v : event.values) {
            if (v.simpleValue) ++result.scalars;
            if (v.histogram) ++result.histograms;
        }
    };

    TfEvent header;
    header.wallTime = startTime;
    header.fileVersion = std::string(kTfEventsFileVersion);
    emit(header);

    double elapsed = 0.0;  // step time so far, for wall times
    int malformed = 0;
    for (; haveRecord; haveRecord = next(record)) {
        const nlohmann::json& r = *record;
        const std::string type = record_codec::typeOf(r);
        const auto step = r.find("step");
        if (step == r.end() || !step->is_number_integer()) continue;
        TfEvent event;
        event.step = step->get<int64_t>();
        try {
            if (type == event_type::kStep) {
                if (auto seconds = numberField(r, "step_seconds");
                    seconds && std::isfinite(*seconds))
                    elapsed += *seconds;
                for (auto it = r.begin(); it != r.end(); ++it) {
                    const std::string& key = it.key();
                    if (key == "type" || key == "step" || key == "epoch") continue;
                    const auto value = numberField(r, key);
                    if (!value) continue;
                    event.values.push_back(
                        scalar((isScalerField(key) ? "amp/" : "train/") + key, *value));
                }
            } else if (type == event_type::kEpoch) {
                const std::pair<const char*, const char*> fields[] = {
                    {"train_loss", "epoch/train_loss"},
                    {"val_loss", "val/loss"},
                    {"val_accuracy", "val/accuracy"}};
                for (const auto& [key, tag] : fields)
                    if (const auto value = numberField(r, key))
                        event.values.push_back(scalar(tag, *value));
            } else if (type == probe_record_type::kUnderflow) {
                const UnderflowRecord u = underflowRecordFromJson(r);
                if (u.multiplier != 1.0) continue;
                const std::string prefix = "underflow/" + u.kind + "/" + u.layer + "/";
                event.values.push_back(scalar(prefix + "flushed", u.counts.flushedFraction()));
                event.values.push_back(scalar(prefix + "subnormal", u.counts.subnormalFraction()));
                event.values.push_back(scalar(prefix + "overflow", u.counts.overflowFraction()));
            } else if (type == probe_record_type::kHistogram) {
                const HistogramRecord h = histogramRecordFromJson(r);
                TfValue value;
                value.tag = "log2_abs_grad/" + h.kind + "/" + h.layer;
                value.description =
                    "x: log2|x| of the elements (zeros, NaN and Inf not included); "
                    "fp16 flushes below -24, is subnormal below -14, overflows from 16";
                value.histogram = log2Histogram(h.histogram);
                event.values.push_back(std::move(value));
            } else if (type == probe_record_type::kFormatSweep) {
                const FormatSweepRecord s = formatSweepRecordFromJson(r);
                const auto tag = [&s](const char* metric) {
                    return "format_sweep/" + s.tensor + "/" + metric + "/" + s.format + "/" + s.layer;
                };
                event.values.push_back(scalar(tag("underflow"), s.underflowFraction()));
                event.values.push_back(scalar(tag("saturated"), s.saturatedFraction()));
                addFinite(event.values, tag("snr_db"), s.snrDb());
            } else if (type == probe_record_type::kFormatQuant) {
                const FormatQuantMeasurement p = formatQuantRecordFromJson(r).point;
                const std::string prefix = "format_quant/" + p.layer + "/" + p.operand + "_" + p.direction + "/";
                event.values.push_back(scalar(prefix + "underflow", p.underflowFraction()));
                event.values.push_back(scalar(prefix + "saturated", p.saturatedFraction()));
                addFinite(event.values, prefix + "snr_db", p.snrDb());
                addFinite(event.values, prefix + "amax", p.amax);
                addFinite(event.values, prefix + "scale", p.scale);
                if (p.blocks > 0) event.values.push_back(scalar(prefix + "crushed", p.crushedFraction()));
            } else if (type == probe_record_type::kPrecisionMap) {
                const PrecisionMapRecord map = precisionMapRecordFromJson(r);
                for (const auto& m : map.modules) {
                    const std::string prefix = "precision_map/" + m.phase + "/" + m.module + "/";
                    addFinite(event.values, prefix + "input_error", m.inputError);
                    addFinite(event.values, prefix + "output_error", m.outputError);
                    addFinite(event.values, prefix + "gain", m.gain());
                }
                for (size_t k = 0; k < map.ops.size(); ++k) {
                    const auto& o = map.ops[k];
                    char index[24];  // any size_t in decimal
                    std::snprintf(index, sizeof index, "%04zu", k);
                    const std::string prefix = "precision_map_op/" + o.phase + "/" + index + " " + o.module + " " +
                                               o.op + (o.output ? "[" + std::to_string(o.output) + "]" : "") + "/";
                    addFinite(event.values, prefix + "rel_error", o.relError);
                    addFinite(event.values, prefix + "added_error", o.addedError);
                }
            } else if (type == probe_record_type::kUpdateRatio) {
                const std::string layer = r.value("layer", "");
                if (const auto ratio = numberField(r, "ratio"); ratio && !layer.empty())
                    event.values.push_back(scalar("update_ratio/" + layer, *ratio));
            }
        } catch (const std::exception&) {
            ++malformed;
            continue;
        }
        if (event.values.empty()) continue;
        event.wallTime = startTime + elapsed;
        emit(event);
    }
    writer.close();
    if (malformed)
        result.warnings.push_back(std::to_string(malformed) +
                                  " malformed probe record(s) were left out");
    for (const auto& w : facts.warnings) result.warnings.push_back(w);
    return result;
}

}  // namespace

TfEventsExportResult exportRunTfEvents(const RunData& run, const std::string& outDirectory) {
    std::size_t index = 0;
    return exportRecordsTfEvents(
        [&](const nlohmann::json*& record) {
            if (index >= run.events.size()) return false;
            record = &run.events[index++];
            return true;
        },
        run, outDirectory);
}

TfEventsExportResult exportRunTfEvents(const std::string& runDirectory,
                                       const std::string& outDirectory) {
    RunRecordReader reader(runDirectory);  // refusals before anything is written
    std::vector<nlohmann::json> batch;
    std::size_t index = 0;
    return exportRecordsTfEvents(
        [&](const nlohmann::json*& record) {
            if (index >= batch.size()) {
                batch.clear();
                index = 0;
                if (!reader.read(batch, 1024)) return false;
            }
            record = &batch[index++];
            return true;
        },
        reader.data(), outDirectory);
}

}  // namespace ampscope
