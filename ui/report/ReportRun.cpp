#include "report/ReportRun.h"

#include <algorithm>

#include "run/EventSchema.h"
#include "common/InputError.h"
#include "run/RunReader.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"

namespace ampscope::ui {
namespace {

QString text(const nlohmann::json& object, const char* key) {
    if (!object.is_object()) return {};
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                 : QString();
}

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
std::optional<ReportModelFile> modelFileOf(const nlohmann::json& config, const NonFiniteFacts& facts) {
    const nlohmann::json model =
        config.is_object() && config.contains("model") ? config["model"] : nlohmann::json();
    const bool hasRecord = facts.hasModulesRecord();
    if (text(model, "name") != QLatin1String("torchscript") && !hasRecord) return std::nullopt;
    ReportModelFile file;
    file.path = text(model, "path");
    file.sha256 = text(model, "sha256");
    if (model.is_object()) {
        const auto bytes = model.find("file_bytes");
        if (bytes != model.end() && bytes->is_number_integer()) file.bytes = bytes->get<int64_t>();
    }
    if (hasRecord) {
        if (file.path.isEmpty()) file.path = facts.modulesFile();
        if (file.sha256.isEmpty()) file.sha256 = facts.modulesFileSha256();
        file.modules = facts.modules();
        file.hasModuleRecord = true;
    }
    return file;
}

QString compactValue(const nlohmann::json& value) {
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    return QString::fromStdString(value.dump());
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}

// The format_sweep records of the run's last sweep step: layers in model order, then the
// gradient before the activation, formats in the order the records first named them.
std::vector<FormatSweepRecord> lastSweep(const FormatSweepSeries& sweep) {
    std::vector<const FormatSweepSeries::TensorData*> tensors;
    for (const std::string_view tensor : {format_sweep_tensor::kGradient, format_sweep_tensor::kActivation})
        if (const auto* data = sweep.data(QString::fromUtf8(tensor.data(), static_cast<qsizetype>(tensor.size())));
            data && data->size() > 0)
            tensors.push_back(data);
    int64_t last = -1;
    for (const auto* data : tensors) last = std::max(last, data->steps().back());
    std::vector<FormatSweepRecord> records;
    for (const QString& layer : sweep.layers().names())
        for (const auto* data : tensors) {
            if (data->steps().back() != last) continue;
            const auto& step = data->entry(data->size() - 1);
            const auto byLayer = step.find(layer);
            if (byLayer == step.end()) continue;
            for (const QString& format : sweep.formats())
                if (const auto record = byLayer->second.find(format); record != byLayer->second.end())
                    records.push_back(record->second);
        }
    return records;
}

// The format_quant measurements of the run's last probe step, in the points' order.
std::vector<FormatQuantRecord> lastQuantization(const FormatQuantHistory& history) {
    int64_t last = -1;
    const QStringList points = history.points();
    for (const QString& key : points)
        if (const auto* series = history.series(key); series && series->size() > 0)
            last = std::max(last, series->steps().back());
    std::vector<FormatQuantRecord> records;
    for (const QString& key : points)
        if (const auto* series = history.series(key); series && series->size() > 0 && series->steps().back() == last)
            records.push_back({last, series->entry(series->size() - 1)});
    return records;
}

void takeRunInfo(ReportRun& run, const RunInfoRecord& info) {
    run.device = q(info.device);
    run.deviceName = q(info.deviceName);
    run.threads = info.threads;
    run.torchVersion = q(info.torchVersion);
    run.cudaVersion = q(info.cudaVersion);
    if (!info.source.empty()) run.source = q(info.source);
    run.model = q(info.model);
    run.parameters = info.parameters;
    if (!info.mode.empty()) {  // a run_info without its precision object says nothing of it
        run.mode = q(info.mode);
        run.emulated = info.emulated;
        run.execution = q(info.execution);
    }
}

// The summary is the later word on how the run went.
void takeSummary(ReportRun& run, const RunSummary& s) {
    if (!s.device.empty()) run.device = q(s.device);
    if (!s.deviceName.empty()) run.deviceName = q(s.deviceName);
    if (s.threads > 0) run.threads = s.threads;
    if (!s.torchVersion.empty()) run.torchVersion = q(s.torchVersion);
    if (!s.mode.empty() || !s.execution.empty()) {
        run.mode = q(s.mode);
        run.emulated = s.emulated;
        run.execution = q(s.execution);
    }
    if (!s.model.empty()) run.model = q(s.model);
    run.dataset = q(s.dataset);
    if (!s.error.empty()) run.errorMessage = q(s.error);
    run.underflow = s.underflow;
}

}  // namespace

bool ReportRun::recorded() const {
    return source == QLatin1String(record_source::kPyTorchRecorder.data(),
                                   static_cast<qsizetype>(record_source::kPyTorchRecorder.size()));
}

ReportRun reportRunOf(const RunModel& model, const LoadedRun& loaded) {
    ReportRun run;
    run.directory = model.directory();
    run.shownDirectory = model.directory();
    run.title = model.name();
    run.complete = loaded.complete;
    run.config = loaded.configJson ? *loaded.configJson : nlohmann::json::object();
    run.warnings = loaded.warnings;
    if (!loaded.problem.isEmpty()) run.warnings << loaded.problem;  // summary fields of another type
    if (!loaded.error.isEmpty()) run.warnings << loaded.error;      // a read error after the start
    const RunOutcome& outcome = model.outcome();
    if (const auto& start = outcome.start()) {
        run.startTime = q(start->time);
        run.ampscopeVersion = q(start->ampscopeVersion);
        run.source = q(start->source);
    }
    if (const auto& info = outcome.info()) takeRunInfo(run, *info);
    run.errorMessage = model.errorMessage();
    if (const auto& summary = outcome.summary(); summary && run.complete) {
        run.status = model.status();
        takeSummary(run, summary->summary);
    } else {
        run.status = QStringLiteral("incomplete");
    }
    run.results = outcome.results();
    run.nonFinite = model.nonFinite().record();
    if (const int64_t step = model.steps().firstNonFiniteLossStep(); step >= 0) run.firstNonFiniteLossStep = step;
    run.formatSweep = lastSweep(model.formatSweep());
    run.formatQuant = lastQuantization(model.formatQuant());
    if (const PrecisionMapRecord* map = model.precisionMap().map(model.precisionMap().latestStep()))
        run.precisionMap = *map;
    if (const SensitivityRecord* mean = model.sensitivity().mean()) {
        run.sensitivity = *mean;
        run.sensitivityPasses = static_cast<int64_t>(model.sensitivity().passes().size());
    }
    if (run.mode.isEmpty() && run.config.contains("precision"))
        run.mode = text(run.config["precision"], "mode");
    if (run.dataset.isEmpty() && run.config.contains("data"))
        run.dataset = text(run.config["data"], "dataset");
    if (run.model.isEmpty() && run.config.contains("model"))
        run.model = text(run.config["model"], "name");
    run.narrativeMarkdown = readNarrative(run.directory, run.config);
    run.modelFile = modelFileOf(run.config, model.nonFinite());
    return run;
}

ReportRun loadReportRun(const QString& directory) {
    RunSet set;
    const LoadedRun loaded = loadRunDirectory(set, directory, {true, true});
    if (!loaded.run) throw InputError(loaded.error.toStdString());
    return reportRunOf(*loaded.run, loaded);
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
