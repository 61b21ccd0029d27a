#include "runset/RunDirectoryLoading.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include "RecordDispatcher.h"
#include "config/ConfigJson.h"
#include "run/RunReader.h"
#include "run/RunSetFolder.h"

namespace ampscope::ui {

namespace {

// Records per batch (the run takes them without telling anyone).
constexpr std::size_t kBatchRecords = 16384;
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

RunContext recordedRunContext(const QString& directory, QString* note) {
    const QString dir = QDir::cleanPath(directory);
    RunRecordReader reader(dir.toStdString());  // refuses what is not a run
    return contextFor(dir, reader.data().config, note);
}

LoadedRun loadRunDirectory(RunSet& set, const QString& directory, RunSet::AddOptions options,
                           const std::function<void(double)>& progress) {
    LoadedRun loaded;
    const QString dir = QDir::cleanPath(directory);
    std::unique_ptr<RunRecordReader> reader;
    try {
        reader = std::make_unique<RunRecordReader>(dir.toStdString());
    } catch (const std::exception& e) {
        loaded.error = QString::fromUtf8(e.what());
        return loaded;
    }
    loaded.complete = reader->data().complete;
    loaded.run = set.addRun(contextFor(dir, reader->data().config, &loaded.note), options);
    std::vector<RunObserver*> observers{loaded.run};
    RunSet* owner = &set;
    const RunId id = loaded.run->id();
    RecordDispatcher::Hooks hooks;
    hooks.error = [owner, id](const std::string& message) {
        owner->setErrorMessage(id, QString::fromStdString(message));
    };
    RecordDispatcher dispatcher(observers, hooks);
    QElapsedTimer sinceProgress;
    sinceProgress.start();
    const auto afterBatch = [&] {
        if (!progress || sinceProgress.elapsed() < kProgressMilliseconds) return;
        const double total = static_cast<double>(reader->totalBytes());
        progress(total > 0 ? std::min(1.0, static_cast<double>(reader->bytesRead()) / total) : 1.0);
        sinceProgress.restart();
    };
    try {
        dispatchRunRecords(*reader, dispatcher, {}, afterBatch, kBatchRecords);
    } catch (const std::exception& e) {
        loaded.error = QString::fromUtf8(e.what());  // EIO after the start: what was read stays
    }
    dispatcher.endBatch();
    for (const std::string& w : reader->data().warnings) loaded.warnings << QString::fromStdString(w);
    const auto& summary = reader->data().summary;
    QString status = QStringLiteral("incomplete");
    if (loaded.complete && summary && summary->is_object())
        status = QString::fromStdString(summary->value("status", std::string("finished")));
    set.setStatus(id, status);
    return loaded;
}

std::vector<RunId> loadRunFolder(RunSet& set, const QString& folder, RunSet::AddOptions options,
                                 QStringList* errors) {
    std::vector<RunId> ids;
    const QString cleaned = QDir::cleanPath(folder);
    options.focus = false;
    for (const std::string& dir : runSetDirectories(cleaned.toStdString())) {
        const LoadedRun loaded = loadRunDirectory(set, QString::fromStdString(dir), options);
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
