#include "prescribe/PrescribeJob.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QTimer>

namespace ampscope::ui {

PrescribeJob::PrescribeJob(QObject* parent) : QObject(parent) {
    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &PrescribeJob::readProgress);
    connect(process_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        readProgress();
        QString line;
        const QStringList lines =
            QString::fromUtf8(process_->readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        if (!lines.isEmpty()) line = lines.last().trimmed();
        if (status == QProcess::CrashExit && !stopping_)
            line = tr("ampscope-cli prescribe crashed%1").arg(line.isEmpty() ? QString() : QStringLiteral(": ") + line);
        const bool stopped = stopping_;
        stopping_ = false;
        Q_EMIT finished(status == QProcess::CrashExit ? -1 : exitCode, line, stopped);
    });
}

PrescribeJob::~PrescribeJob() {
    if (!isRunning()) return;
    // No signal to a parent that is being destroyed.
    disconnect(process_, nullptr, this, nullptr);
    stopAndWait();
}

bool PrescribeJob::start(const QString& program, const QStringList& arguments, QString* error) {
    const QFileInfo file(program);
    if (!file.isFile() || !file.isExecutable()) {
        if (error)
            *error = tr("ampscope-cli was not found at %1: Prescribe… runs it, and it is installed (and built) "
                        "next to the window's own program")
                         .arg(program);
        return false;
    }
    pending_.clear();
    stopping_ = false;
    process_->start(program, arguments);
    if (!process_->waitForStarted(10000)) {
        if (error) *error = tr("%1 did not start: %2").arg(program, process_->errorString());
        return false;
    }
    return true;
}

bool PrescribeJob::isRunning() const {
    return process_->state() != QProcess::NotRunning;
}

void PrescribeJob::stop() {
    if (!isRunning()) return;
    stopping_ = true;
    process_->terminate();
    QTimer::singleShot(kStopGraceMs, process_, [process = process_] {
        if (process->state() != QProcess::NotRunning) process->kill();
    });
}

void PrescribeJob::stopAndWait() {
    if (!isRunning()) return;
    stopping_ = true;
    process_->terminate();
    if (!process_->waitForFinished(kStopGraceMs)) {
        process_->kill();
        process_->waitForFinished(kStopGraceMs);
    }
}

void PrescribeJob::readProgress() {
    pending_ += process_->readAllStandardOutput();
    int newline = 0;
    while ((newline = pending_.indexOf('\n')) >= 0) {
        const QByteArray line = pending_.left(newline);
        pending_.remove(0, newline + 1);
        const QJsonDocument document = QJsonDocument::fromJson(line);
        const QJsonObject fields = document.object().value(QStringLiteral("prescribe_progress")).toObject();
        if (!fields.isEmpty()) Q_EMIT phase(fields);
    }
}

}  // namespace ampscope::ui
