#include "runset/RunDirectoryLoading.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "runset/OpenedBandMembers.h"
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

// How many runs parse at once; the others wait their turn, opened but not started. Parsing
// is most of the work and each reader's thread keeps one core busy, so one reader per core
// (at least 2: one run's parsing overlaps the stores taking another's) reads as fast as
// any number; each reader beyond them only adds its batches in flight (up to
// ParsedRunReader::kQueuedBatches + 2 of kBatchRecords records, a few MiB), and a job of
// 512 ranks read all at once held 0.8 GiB of them at its peak. At most 8: past that the
// calling thread, which hands every record to its run's stores, is what takes the time.
std::size_t runsReadAtOnce() {
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 2, 8);
}

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
                                          const std::function<void(double)>& progress,
                                          const std::vector<bool>& bandMembers) {
    std::vector<LoadedRun> loaded(static_cast<std::size_t>(directories.size()));
    std::vector<RunBeingRead> reads(loaded.size());
    std::vector<RunContext> contexts(loaded.size());
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        const QString dir = QDir::cleanPath(directories[static_cast<qsizetype>(i)]);
        RunBeingRead& read = reads[i];
        try {
            // Opened now (refusals, config, summary); parsed later, a few runs at a time.
            read.reader = std::make_unique<ParsedRunReader>(dir.toStdString(), kBatchRecords,
                                                            recordTypesNoViewReads(), ParsedRunReader::Start::Later);
        } catch (const std::exception& e) {
            loaded[i].error = QString::fromUtf8(e.what());
            continue;
        }
        loaded[i].complete = read.reader->startData().complete;
        loaded[i].configJson = std::make_shared<const nlohmann::json>(read.reader->startData().config);
        contexts[i] = contextFor(dir, read.reader->startData().config, &loaded[i].note);
    }
    // Which runs a band will draw, by the plots' own rule, among the runs opened here
    // (unless the caller decided among more), before any store takes a step.
    std::vector<bool> members = bandMembers;
    if (members.size() != loaded.size()) {
        std::vector<std::string> opened;
        for (const RunContext& context : contexts) opened.push_back(context.runDirectory.toStdString());
        members = openedBandMembers(
            opened, [&](std::size_t i) -> std::optional<nlohmann::json> { return configToJson(contexts[i].config); },
            [&](std::size_t i) { return reads[i].reader != nullptr; });
    }
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        RunBeingRead& read = reads[i];
        if (!read.reader) continue;
        contexts[i].bandMember = members[i];
        loaded[i].run = set.addRun(contexts[i], options);
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
    // The runs in their order, at most runsReadAtOnce() of them parsing at a time.
    const std::size_t atOnce = runsReadAtOnce();
    std::int64_t totalBytes = 0, finishedBytes = 0;
    for (const RunBeingRead& read : reads)
        if (read.reader) totalBytes += read.reader->totalBytes();
    std::vector<std::size_t> active;
    std::size_t nextToStart = 0;
    const auto startMore = [&] {
        while (active.size() < atOnce && nextToStart < reads.size()) {
            const std::size_t i = nextToStart++;
            if (!reads[i].reading) continue;
            reads[i].reader->start();
            active.push_back(i);
        }
    };
    startMore();
    QElapsedTimer sinceProgress;
    sinceProgress.start();
    std::vector<ParsedRecord> batch;
    // The run at active[k]: its next batch to its stores (true), or its end (false: it
    // leaves `active`).
    const auto takeBatch = [&](std::size_t k) {
        const std::size_t i = active[k];
        RunBeingRead& read = reads[i];
        try {
            if (read.reader->next(batch)) {
                for (ParsedRecord& record : batch) read.dispatcher->take(std::move(record));
                read.dispatcher->flushSteps();
                return true;
            }
        } catch (const std::exception& e) {
            loaded[i].error = QString::fromUtf8(e.what());  // EIO after the start: what was read stays
        }
        finishRun(set, read, loaded[i], QDir::cleanPath(directories[static_cast<qsizetype>(i)]));
        finishedBytes += read.reader->bytesRead();
        read.reader.reset();  // its worker and buffers go now, not after every run
        read.dispatcher.reset();
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
        return false;
    };
    while (!active.empty()) {
        // A batch of each run whose reader has one ready, in turn; waiting only when none
        // has: waiting for one while another's queue is full would idle both parsers.
        bool took = false;
        for (std::size_t k = 0; k < active.size();) {
            if (!reads[active[k]].reader->ready()) {
                ++k;
                continue;
            }
            took = true;
            if (takeBatch(k)) ++k;
        }
        if (!took) takeBatch(0);
        startMore();
        if (progress && sinceProgress.elapsed() >= kProgressMilliseconds) {
            std::int64_t done = finishedBytes;
            for (const std::size_t i : active) done += reads[i].reader->bytesRead();
            progress(totalBytes > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(totalBytes)) : 1.0);
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
