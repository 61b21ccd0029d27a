#include "runset/RunDirectoryLoading.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <nlohmann/json.hpp>

#include "runset/RecordDispatcher.h"
#include "config/ConfigJson.h"
#include "engine/RunRecords.h"
#include "run/EventSchema.h"
#include "run/ParsedRunReader.h"
#include "run/RunReader.h"
#include "run/RunSetFolder.h"

namespace ampscope::ui {

namespace {

// Records per batch (the run takes them without telling anyone): several runs read at once
// keep a few batches each waiting.
constexpr std::size_t kBatchRecords = 8192;
constexpr qint64 kProgressMilliseconds = 100;

RunContext contextFor(const QString& directory, const nlohmann::json& config, QString* note) {
    RunContext context;
    context.title = QFileInfo(directory).fileName();
    context.runDirectory = directory;
    context.live = false;
    try {
        context.config = configFromJson(config);
    } catch (const std::exception& e) {
        if (note) *note = QObject::tr("its config.json does not load here: %1").arg(QString::fromUtf8(e.what()));
    }
    return context;
}

}  // namespace

RecordedEnd recordedEnd(const nlohmann::json& summary, const QString& directory) {
    return recordedEnd(readSummaryChecked(summary), directory);
}

RecordedEnd recordedEnd(const SummaryReading& read, const QString& directory) {
    RecordedEnd end;
    end.status = read.hasStatus ? QString::fromStdString(read.summary.status) : QStringLiteral("finished");
    if (read.statusMistyped) end.status = QObject::tr("ended, status unknown");
    QStringList problems;
    for (const std::string& problem : read.problems) problems << QString::fromStdString(problem);
    if (!problems.isEmpty())
        end.problem = QStringLiteral("%1/%2: %3")
                          .arg(directory, QString::fromUtf8(kSummaryFileName.data(), kSummaryFileName.size()),
                               problems.join(QStringLiteral("; ")));
    return end;
}

RunContext recordedRunContext(const QString& directory, QString* note) {
    const QString dir = QDir::cleanPath(directory);
    RunRecordReader reader(dir.toStdString());  // refuses what is not a run
    return contextFor(dir, reader.data().config, note);
}

LoadedRun loadRunDirectory(RunSet& set, const QString& directory, RunSet::AddOptions options,
                           const std::function<void(double)>& progress) {
    return loadRunDirectories(set, {directory}, options, progress).front();
}

namespace {

// One run being read: its reader (parsing on its own thread) and the dispatcher feeding it.
struct RunBeingRead {
    std::unique_ptr<ParsedRunReader> reader;
    std::vector<RunObserver*> observers;  // the dispatcher holds a reference: kept here
    std::unique_ptr<RecordDispatcher> dispatcher;
    bool reading = false;
};

// The run's end: its warnings and its status, as its summary says; or, when not one of
// its lines was a record, its refusal.
void finishRun(RunSet& set, RunBeingRead& read, LoadedRun& loaded, const QString& directory) {
    read.dispatcher->endBatch();
    read.reading = false;
    const RunData& data = read.reader->data();
    const std::string unreadable = noRecordText(directory.toStdString(), data.any_record,
                                                data.skipped_lines + (data.torn_last_line ? 1 : 0));
    if (!unreadable.empty()) {
        set.removeRun(loaded.run->id());
        loaded.run = nullptr;
        loaded.error = QString::fromStdString(unreadable);
        return;
    }
    for (const std::string& w : data.warnings) loaded.warnings << QString::fromStdString(w);
    if (data.start) loaded.run->takeRunStart(*data.start);
    const auto& summary = read.reader->startData().summary;
    QString status = QStringLiteral("incomplete");
    if (loaded.complete && summary) {
        const SummaryReading reading = readSummaryChecked(*summary);
        const RecordedEnd end = recordedEnd(reading, directory);
        status = end.status;
        loaded.problem = end.problem;
        loaded.run->takeSummary(reading);
    }
    set.setStatus(loaded.run->id(), status);
}

}  // namespace

std::vector<LoadedRun> loadRunDirectories(RunSet& set, const QStringList& directories,
                                          RunSet::AddOptions options,
                                          const std::function<void(double)>& progress) {
    std::vector<LoadedRun> loaded(static_cast<std::size_t>(directories.size()));
    std::vector<RunBeingRead> reads(loaded.size());
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        const QString dir = QDir::cleanPath(directories[static_cast<qsizetype>(i)]);
        RunBeingRead& read = reads[i];
        try {
            // Every run parses on a thread of its own from now on, while this one feeds them.
            read.reader = std::make_unique<ParsedRunReader>(dir.toStdString(), kBatchRecords,
                                                            recordTypesNoViewReads());
        } catch (const std::exception& e) {
            loaded[i].error = QString::fromUtf8(e.what());
            continue;
        }
        loaded[i].complete = read.reader->startData().complete;
        loaded[i].configJson = std::make_shared<const nlohmann::json>(read.reader->startData().config);
        loaded[i].run = set.addRun(contextFor(dir, read.reader->startData().config, &loaded[i].note), options);
        read.observers = {loaded[i].run};
        RecordDispatcher::Hooks hooks;
        RunSet* owner = &set;
        const RunId id = loaded[i].run->id();
        hooks.error = [owner, id](const std::string& message) {
            owner->setErrorMessage(id, QString::fromStdString(message));
        };
        read.dispatcher = std::make_unique<RecordDispatcher>(read.observers, hooks);
        read.reading = true;
    }
    QElapsedTimer sinceProgress;
    sinceProgress.start();
    std::vector<ParsedRecord> batch;
    for (bool anyReading = true; anyReading;) {
        anyReading = false;
        // A batch of each run in turn: each reader has parsed ahead meanwhile.
        for (std::size_t i = 0; i < reads.size(); ++i) {
            RunBeingRead& read = reads[i];
            if (!read.reading) continue;
            try {
                if (read.reader->next(batch)) {
                    for (ParsedRecord& record : batch) read.dispatcher->take(std::move(record));
                    read.dispatcher->flushSteps();
                    anyReading = true;
                    continue;
                }
            } catch (const std::exception& e) {
                loaded[i].error = QString::fromUtf8(e.what());  // EIO after the start: what was read stays
            }
            finishRun(set, read, loaded[i], QDir::cleanPath(directories[static_cast<qsizetype>(i)]));
        }
        if (progress && sinceProgress.elapsed() >= kProgressMilliseconds) {
            double done = 0.0, total = 0.0;
            for (const RunBeingRead& read : reads)
                if (read.reader) {
                    done += static_cast<double>(read.reader->bytesRead());
                    total += static_cast<double>(read.reader->totalBytes());
                }
            progress(total > 0 ? std::min(1.0, done / total) : 1.0);
            sinceProgress.restart();
        }
    }
    return loaded;
}

std::vector<RunId> loadRunFolder(RunSet& set, const QString& folder, RunSet::AddOptions options,
                                 QStringList* errors) {
    std::vector<RunId> ids;
    const QString cleaned = QDir::cleanPath(folder);
    options.focus = false;
    QStringList directories;
    for (const std::string& dir : runSetDirectories(cleaned.toStdString())) directories << QString::fromStdString(dir);
    for (const LoadedRun& loaded : loadRunDirectories(set, directories, options)) {
        if (loaded.run) ids.push_back(loaded.run->id());
        if (!loaded.error.isEmpty() && errors) *errors << loaded.error;
    }
    if (ids.empty() && errors && errors->isEmpty())
        *errors << QObject::tr("%1: no run in it (a run directory holds config.json; a recorded job, "
                               "rank-N/ directories; a scenario's output folder, one run per folder)")
                       .arg(cleaned);
    set.focusFirstNonFinite(ids);
    return ids;
}

}  // namespace ampscope::ui
