#include "report/ReportRun.h"

#include <QDir>
#include <QFileInfo>
#include <cmath>

#include "engine/RunRecords.h"
#include "probes/ProbeRecords.h"
#include "run/EventSchema.h"
#include "run/FlatRecordText.h"
#include "run/ModelModulesRecord.h"
#include "run/RecordCodec.h"
#include "run/RunLifecycleRecords.h"
#include "run/RunReader.h"
#include "run/StepRecordCodec.h"
#include "runset/ParsedRecord.h"

namespace ampscope::ui {
namespace {

QString text(const nlohmann::json& object, const char* key) {
    if (!object.is_object()) return {};
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                 : QString();
}

// A number that may be written null with a "_nonfinite" tag (EventSchema.md).
std::optional<double> number(const nlohmann::json& record, const std::string& key) {
    auto it = record.find(key);
    if (it == record.end()) return std::nullopt;
    if (it->is_number()) return it->get<double>();
    auto tag = record.find(key + "_nonfinite");
    if (tag != record.end() && tag->is_string()) {
        const std::string t = tag->get<std::string>();
        return t == "nan" ? NAN : (t == "inf" ? INFINITY : -INFINITY);
    }
    return std::nullopt;
}

ReportResults resultsFromSummary(const nlohmann::json& j) {
    const RunSummary s = summaryFromJson(j);
    ReportResults r;
    r.steps = s.steps;
    r.wallSeconds = s.wallSeconds;
    r.samplesPerSecond = s.samplesPerSecond;
    r.peakMemoryBytes = s.peakMemoryBytes;
    r.finalTrainLoss = number(j, "final_train_loss");
    r.valLoss = number(j, "val_loss");
    r.valAccuracy = number(j, "val_accuracy");
    r.skippedSteps = s.skippedSteps;
    r.finalScale = number(j, "final_scale");
    r.scaleBackoffs = s.scaleBackoffs;
    r.scaleGrowths = s.scaleGrowths;
    return r;
}

// What the events say when there is no summary: steps done, the last finite loss,
// skipped steps and scale changes counted, the last epoch's validation. Fed one record
// at a time, so a long run is never held.
class ResultsFromEvents {
public:
    void take(const StepMetrics& m) {
        r_.steps = std::max(r_.steps, m.step);
        if (std::isfinite(m.loss)) r_.finalTrainLoss = m.loss;
        if (m.stepSkipped) ++r_.skippedSteps;
        if (m.scaleChange == ScaleChange::Backoff) ++r_.scaleBackoffs;
        if (m.scaleChange == ScaleChange::Growth) ++r_.scaleGrowths;
        r_.finalScale = m.scaleAfter;
        if (std::isfinite(m.stepSeconds) && std::isfinite(m.samplesPerSecond)) {
            seconds_ += m.stepSeconds;
            samples_ += m.stepSeconds * m.samplesPerSecond;
        }
    }
    // An epoch's validation: NaN where it was not finite or not measured.
    void take(const EpochMetrics& e) {
        r_.valLoss = e.valLoss;
        r_.valAccuracy = e.valAccuracy;
    }
    ReportResults results() const {
        ReportResults r = r_;
        if (seconds_ > 0) {
            r.wallSeconds = seconds_;  // training-step time only: the wall clock is unknown
            r.samplesPerSecond = samples_ / seconds_;
        }
        return r;
    }

private:
    ReportResults r_;
    double seconds_ = 0.0, samples_ = 0.0;
};

QString readNarrative(const QString& directory, const nlohmann::json& config) {
    // Under the reader's rule for a run directory's files: a link is refused (InputError).
    if (const auto narrative = readRunDirectoryFile(directory.toStdString(), "narrative.md"))
        return QString::fromStdString(*narrative);
    if (const QString top = text(config, "narrative"); !top.isEmpty()) return top;
    if (config.is_object() && config.contains("scenario"))
        return text(config["scenario"], "narrative");
    return {};
}

// config.json's model section says which file (it holds the absolute path, size and
// SHA-256 the engine found); the record says what was in it.
std::optional<ReportModelFile> modelFileOf(const nlohmann::json& config,
                                           const std::optional<ModelModulesRecord>& modules) {
    const nlohmann::json model =
        config.is_object() && config.contains("model") ? config["model"] : nlohmann::json();
    if (text(model, "name") != QLatin1String("torchscript") && !modules) return std::nullopt;
    ReportModelFile file;
    file.path = text(model, "path");
    file.sha256 = text(model, "sha256");
    if (model.is_object()) {
        const auto bytes = model.find("file_bytes");
        if (bytes != model.end() && bytes->is_number_integer()) file.bytes = bytes->get<int64_t>();
    }
    if (modules) {
        if (file.path.isEmpty()) file.path = QString::fromStdString(modules->path);
        if (file.sha256.isEmpty()) file.sha256 = QString::fromStdString(modules->sha256);
        file.modules = modules->modules;
        file.hasModuleRecord = true;
    }
    return file;
}

// Keeps the records of the latest step only: a later step's first record replaces the
// earlier step's.
template <class Record>
void keepLatestStep(std::vector<Record>& kept, std::optional<Record> record) {
    if (!record) return;
    if (!kept.empty() && record->step > kept.front().step) kept.clear();
    if (kept.empty() || record->step == kept.front().step) kept.push_back(std::move(*record));
}

QString compactValue(const nlohmann::json& value) {
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    return QString::fromStdString(value.dump());
}

void takeRunInfo(ReportRun& run, const RunInfoRecord& info) {
    run.device = QString::fromStdString(info.device);
    run.deviceName = QString::fromStdString(info.deviceName);
    run.threads = info.threads;
    run.torchVersion = QString::fromStdString(info.torchVersion);
    run.cudaVersion = QString::fromStdString(info.cudaVersion);
    if (!info.source.empty()) run.source = QString::fromStdString(info.source);
    run.model = QString::fromStdString(info.model);
    run.parameters = info.parameters;
    if (!info.mode.empty()) {  // a run_info without its precision object says nothing of it
        run.mode = QString::fromStdString(info.mode);
        run.emulated = info.emulated;
        run.execution = QString::fromStdString(info.execution);
    }
}

}  // namespace

bool ReportRun::recorded() const {
    return source == QLatin1String(record_source::kPyTorchRecorder.data(),
                                   static_cast<qsizetype>(record_source::kPyTorchRecorder.size()));
}

ReportRun loadReportRun(const QString& directory) {
    const QString cleaned = QDir::cleanPath(directory);
    // Streamed (RunRecordReader): of the records only what the text needs is kept.
    RunRecordReader reader(cleaned.toStdString());  // throws InputError
    ReportRun run;
    run.directory = cleaned;
    run.shownDirectory = cleaned;
    run.title = QFileInfo(cleaned).fileName();
    ResultsFromEvents fromEvents;
    std::optional<ModelModulesRecord> modules;
    bool first = true;
    MalformedRecords malformed("report");
    // With a summary the results come from it, and the step lines (nearly all of a run)
    // only need recognising, not parsing into JSON; the histogram and underflow records
    // are the plots' (ReportRunViews), not the text's.
    const bool complete = reader.data().complete;
    const auto skipStepLine = [complete](std::string_view line) {
        record_text::FlatLine flat;
        if (!flat.split(line)) return false;
        const std::string_view type = flat.type();
        if (type == probe_record_type::kHistogram || type == probe_record_type::kUnderflow) return true;
        StepMetrics ignored;
        return complete && type == event_type::kStep && parseStepRecordText(flat, ignored);
    };
    const auto onRecord = [&](const nlohmann::json& e) {
        const std::string type = record_codec::typeOf(e);
        if (const auto start = first ? runStartFromJson(e) : std::nullopt) {
            run.startTime = QString::fromStdString(start->time);
            run.ampscopeVersion = QString::fromStdString(start->ampscopeVersion);
            run.source = QString::fromStdString(start->source);
        }
        first = false;
        if (type == event_type::kStep) {
            if (!complete)
                if (const auto step = parsedRecord(e, stepFromJson, malformed)) fromEvents.take(*step);
        } else if (type == event_type::kEpoch) {
            if (!complete)
                if (const auto epoch = parsedRecord(e, epochFromJson, malformed)) fromEvents.take(*epoch);
        } else if (type == event_type::kRunInfo) {
            if (const auto info = parsedRecord(e, runInfoFromJson, malformed)) takeRunInfo(run, *info);
        } else if (type == probe_record_type::kNonFinite && !run.nonFinite) {
            run.nonFinite = parsedRecord(e, nonFiniteRecordFromJson, malformed);
        } else if (type == event_type::kModelModules && !modules) {
            modules = parsedRecord(e, modelModulesFromJson, malformed);
        } else if (type == probe_record_type::kFormatSweep) {
            keepLatestStep(run.formatSweep, parsedRecord(e, formatSweepRecordFromJson, malformed));
        } else if (type == probe_record_type::kFormatQuant) {
            keepLatestStep(run.formatQuant, parsedRecord(e, formatQuantRecordFromJson, malformed));
        } else if (type == probe_record_type::kPrecisionMap) {
            auto map = parsedRecord(e, precisionMapRecordFromJson, malformed);
            if (map && (!run.precisionMap || map->step >= run.precisionMap->step)) run.precisionMap = std::move(map);
        } else if (type == event_type::kError) {
            if (const auto error = parsedRecord(e, errorFromJson, malformed))
                run.errorMessage = QString::fromStdString(error->message);
        }
    };
    while (reader.visit(onRecord, skipStepLine, 16384)) {
    }
    const RunData& data = reader.data();
    run.complete = data.complete;
    run.config = data.config;
    QStringList readerWarnings;
    for (const auto& w : data.warnings) readerWarnings << QString::fromStdString(w);
    run.warnings = readerWarnings + malformed.warnings();  // the reader's first
    if (data.summary && data.summary->is_object()) {
        const nlohmann::json& s = *data.summary;
        run.status = text(s, "status");
        run.results = resultsFromSummary(s);
        run.underflow = summaryFromJson(s).underflow;
        // The summary is the later word on how the run went.
        if (const QString v = text(s, "device"); !v.isEmpty()) run.device = v;
        if (const QString v = text(s, "device_name"); !v.isEmpty()) run.deviceName = v;
        if (s.value("threads", 0) > 0) run.threads = s.value("threads", 0);
        if (const QString v = text(s, "torch_version"); !v.isEmpty()) run.torchVersion = v;
        if (const QString v = text(s, "ampscope_version"); !v.isEmpty()) run.ampscopeVersion = v;
        if (s.contains("precision") && s["precision"].is_object()) {
            run.mode = text(s["precision"], "mode");
            run.emulated = s["precision"].value("emulated", false);
            run.execution = text(s["precision"], "execution");
        }
        if (const QString v = text(s, "model"); !v.isEmpty()) run.model = v;
        run.dataset = text(s, "dataset");
        if (const QString v = text(s, "error"); !v.isEmpty()) run.errorMessage = v;
    } else {
        run.status = QStringLiteral("incomplete");
        run.results = fromEvents.results();
    }
    if (run.mode.isEmpty() && run.config.contains("precision"))
        run.mode = text(run.config["precision"], "mode");
    if (run.dataset.isEmpty() && run.config.contains("data"))
        run.dataset = text(run.config["data"], "dataset");
    if (run.model.isEmpty() && run.config.contains("model"))
        run.model = text(run.config["model"], "name");
    run.narrativeMarkdown = readNarrative(cleaned, run.config);
    run.modelFile = modelFileOf(run.config, modules);
    return run;
}

QStringList configSummaryLines(const nlohmann::json& config) {
    QStringList lines;
    if (!config.is_object()) return lines;
    QStringList top;
    for (const char* key : {"name", "seed", "device", "threads"})
        if (config.contains(key) && !config[key].is_object())
            top << QStringLiteral("%1 %2").arg(QLatin1String(key), compactValue(config[key]));
    if (!top.isEmpty()) lines << top.join(QStringLiteral(", "));
    for (const char* section : {"data", "model", "precision", "optim", "train", "probes"}) {
        auto it = config.find(section);
        if (it == config.end() || !it->is_object()) continue;
        QStringList parts;
        for (auto field = it->begin(); field != it->end(); ++field)
            parts << QStringLiteral("%1 %2").arg(QString::fromStdString(field.key()),
                                                 compactValue(field.value()));
        lines << QStringLiteral("%1: %2").arg(QLatin1String(section),
                                              parts.join(QStringLiteral(", ")));
    }
    return lines;
}

}  // namespace ampscope::ui
