#include "prescribe/PrescribeFollowing.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>

#include "common/Text.h"
#include "feed/RunOpener.h"
#include "run/EventSchema.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

QString PrescribeProgress::text() const {
    if (phase == QLatin1String("sensitivity"))
        return steps > 0 && step > 0
                   ? QObject::tr("Measuring each layer's sensitivity (a short fp32 run) · step %1 of %2…")
                         .arg(step)
                         .arg(steps)
                   : QObject::tr("Measuring each layer's sensitivity (a short fp32 run)…");
    if (phase == QLatin1String("done")) return QObject::tr("Done: %1 runs").arg(runs);
    QString text = run > 0 ? QObject::tr("Run %1 of %2 (%3)").arg(run).arg(runs).arg(phase)
                           : QObject::tr("Starting %1…").arg(phase);
    if (run > 0 && steps > 0) text += QObject::tr(" · step %1 of %2").arg(step).arg(steps);
    if (etaSeconds >= 0.0)
        text += QObject::tr(" · about %1 left").arg(QString::fromStdString(formatDuration(etaSeconds)));
    return text;
}

PrescribeFollowing::PrescribeFollowing(RunSet* set, RunOpener* opener, const QString& directory, QObject* parent)
    : QObject(parent), set_(set), opener_(opener), directory_(directory) {
    clock_.start();
    poll_.setInterval(kPollMs);
    connect(&poll_, &QTimer::timeout, this, &PrescribeFollowing::poll);
    poll_.start();
}

void PrescribeFollowing::takePhase(const QJsonObject& fields) {
    const QString phase = fields.value(QStringLiteral("phase")).toString();
    progress_.runs = fields.value(QStringLiteral("runs")).toInt(progress_.runs);
    if (phase == QLatin1String("arm")) {
        poll();  // the previous arm's last run, before its prefix is forgotten
        prefix_ = fields.value(QStringLiteral("prefix")).toString();
        seeds_ = fields.value(QStringLiteral("seeds")).toInt();
        runsBefore_ = fields.value(QStringLiteral("runs_before")).toInt();
        progress_.phase = fields.value(QStringLiteral("arm")).toString();
    } else if (phase != QLatin1String("arm skipped")) {
        progress_.phase = phase;
    }
    if (phase == QLatin1String("sensitivity")) {
        // The scan is not a run folder to follow: its step comes with each pass it ends.
        progress_.step = fields.value(QStringLiteral("step")).toInteger(0);
        progress_.steps = fields.value(QStringLiteral("steps")).toInteger(0);
    } else if (phase == QLatin1String("arm")) {
        progress_.step = progress_.steps = 0;  // until the arm's first run is read
    }
    update();
}

void PrescribeFollowing::finish() {
    poll();
    poll_.stop();
}

void PrescribeFollowing::poll() {
    for (int k = 1; !prefix_.isEmpty() && k <= seeds_; ++k) {
        const QString folder = QStringLiteral("%1/%2seed-%3").arg(directory_, prefix_).arg(k);
        if (std::find(followed_.begin(), followed_.end(), folder) != followed_.end()) continue;
        // Opened once it holds a record: the reader refuses a run with none.
        const QFileInfo events(folder + QLatin1Char('/') + QString::fromLatin1(kEventsFileName.data()));
        if (!events.exists() || events.size() == 0) break;
        followed_.push_back(folder);
        QString error;
        if (!opener_->open(folder, &error) || opener_->openedRuns().empty()) continue;
        runs_.push_back(opener_->openedRuns().front());
        progress_.run = runsBefore_ + k;
        update();  // each run said on its own, however many one poll found
    }
    update();
}

void PrescribeFollowing::update() {
    PrescribeProgress next = progress_;
    const RunModel* latest = runs_.empty() ? nullptr : set_->run(runs_.back());
    if (latest) {
        next.step = latest->steps().lastStep();
        if (const auto& info = latest->outcome().info()) next.steps = info->totalSteps;
    }
    if (next.steps > 0 && next.runs > 0 && next.run > 0 && next.phase != QLatin1String("done")) {
        const double now = static_cast<double>(clock_.elapsed()) / 1000.0;
        const int64_t done = static_cast<int64_t>(next.run - 1) * next.steps + next.step;
        const int64_t total = static_cast<int64_t>(next.runs) * next.steps;
        // The mean rate since the first run began: each run also pays for its start and its
        // validation between the steps, and a rate over the last seconds alone would read
        // that pause as the pace of all that is left.
        if (firstRunAt_ < 0.0) firstRunAt_ = now;
        const double elapsed = now - firstRunAt_;
        next.etaSeconds = done > 0 && elapsed >= 0.5 ? elapsed * double(total - done) / double(done) : -1.0;
    } else if (next.phase == QLatin1String("done")) {
        next.etaSeconds = -1.0;
    }
    const PrescribeProgress& was = shown_;
    const bool changed = next.phase != was.phase || next.run != was.run || next.runs != was.runs ||
                         next.step != was.step || next.steps != was.steps ||
                         (next.etaSeconds >= 0.0) != (was.etaSeconds >= 0.0) ||
                         std::abs(next.etaSeconds - was.etaSeconds) >= 1.0;
    progress_ = next;
    if (!changed) return;
    shown_ = next;
    Q_EMIT progressChanged(progress_);
}

}  // namespace ampscope::ui
