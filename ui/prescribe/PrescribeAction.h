#pragma once
// PrescribeAction: Run ▸ Prescribe… in the window. It runs the same command the CLI runs,
// `ampscope-cli prescribe` (PrescribeJob: a child process next to the window's own
// program), so the prescription the window shows is the command's, byte for byte, and a
// crash in training cannot take the window down.
//
// Contract:
// - The dialog (PrescribeDialog) offers the Configure panel's config (written to a
//   temporary CONFIG.json) and, when the focused run has ended, that run's config.json;
//   Prescribe starts the child with what it accepted.
// - While the child runs, a progress panel says run k of M, the run's step and the time
//   left (PrescribeFollowing), and each run joins the run set as it is written. Stop ends
//   the child; the runs so far stay on disk and in the set, and the panel says where.
//   Closing the window stops the child and waits for it.
// - When the child ends well: the runs followed leave the set and DIR opens as one set
//   (the three arms' bands in the Loss view), and the page (PrescriptionPage) shows the
//   result. ended(true) after both.
// - When it fails: its last stderr line as it wrote it (the command's one line for bad
//   input, exit 2); a missing ampscope-cli is one line naming where it was looked for.
//   ended(false). message() keeps the last line said.
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTemporaryDir>
#include <memory>

#include "prescribe/PrescribeDialog.h"
#include "prescribe/PrescribeFollowing.h"
#include "prescribe/PrescribeRequest.h"

class QAction;
class QDialog;
class QLabel;
class QProgressBar;
class QPushButton;

namespace ampscope::ui {

class MainWindow;
class PrescribeJob;
class PrescriptionPage;

class PrescribeAction : public QObject {
    Q_OBJECT
public:
    explicit PrescribeAction(MainWindow* window);
    ~PrescribeAction() override;

    QAction* action() const { return action_; }
    // ampscope-cli next to the window's program; a test names its build's.
    QString program() const { return program_; }
    void setProgram(const QString& path) { program_ = path; }

    // Shows the dialog (not blocking); Prescribe in it starts the child.
    PrescribeDialog* showDialog();
    PrescribeDialog* dialog() const { return dialog_; }
    bool start(const PrescribeRequest& request, QString* error);
    bool isRunning() const;
    void stop();

    QDialog* progressPanel() const { return panel_; }
    QString progressText() const;
    PrescriptionPage* page() const { return page_; }
    const QString& message() const { return message_; }

Q_SIGNALS:
    void progressChanged(const ampscope::ui::PrescribeProgress& progress);
    void ended(bool prescribed);

private:
    void buildPanel();
    void onFinished(int exitCode, const QString& line, bool stopped);
    void say(const QString& line, bool problem);

    MainWindow* window_;
    QAction* action_ = nullptr;
    QString program_;
    QPointer<PrescribeDialog> dialog_;
    std::unique_ptr<QTemporaryDir> configFolder_;  // the Configure panel's config, as CONFIG.json
    PrescribeJob* job_ = nullptr;
    PrescribeFollowing* following_ = nullptr;
    QString directory_;
    QDialog* panel_ = nullptr;
    QLabel* panelText_ = nullptr;
    QLabel* panelNote_ = nullptr;
    QProgressBar* panelBar_ = nullptr;
    QPushButton* panelStop_ = nullptr;
    PrescriptionPage* page_ = nullptr;
    QString message_;
};

}  // namespace ampscope::ui
