#pragma once
// PrescribeJob: `ampscope-cli prescribe … --quiet --progress` run as a child process, so
// the prescription the window shows is the command's own, and a crash in training ends
// the child, not the window.
//
// Contract:
// - start(program, arguments): false with one line when the program is not an executable
//   file (the window looks for ampscope-cli next to itself) or does not start.
// - phase(fields) for each progress line the child prints ({"prescribe_progress": {...}},
//   PrescribeCommand.h); other stdout is ignored.
// - finished(exitCode, line, stopped) once the child has ended: `line` is the last line it
//   wrote to stderr (the command's one line for bad input, exit 2), as it wrote it;
//   `stopped` when stop() ended it. A child that crashed says so in `line`.
// - stop(): SIGTERM (each run the child trains stops after its current step and keeps its
//   summary), then a kill after kStopGraceMs. stopAndWait(): the same, blocking until it
//   has ended (the window closing). Destroying a running job stops it so.
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ampscope::ui {

class PrescribeJob : public QObject {
    Q_OBJECT
public:
    static constexpr int kStopGraceMs = 5000;

    explicit PrescribeJob(QObject* parent = nullptr);
    ~PrescribeJob() override;

    bool start(const QString& program, const QStringList& arguments, QString* error);
    bool isRunning() const;
    void stop();
    void stopAndWait();

Q_SIGNALS:
    void phase(const QJsonObject& fields);
    void finished(int exitCode, const QString& line, bool stopped);

private:
    void readProgress();

    QProcess* process_ = nullptr;
    QByteArray pending_;  // stdout after its last newline
    bool stopping_ = false;
};

}  // namespace ampscope::ui
