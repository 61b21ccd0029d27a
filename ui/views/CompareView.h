#pragma once
// CompareView: recorded runs side by side. A list of run directories (Add run…,
// Remove) and three overlays of the chosen runs: training loss, log2 of the loss scale,
// and the mean flushed fraction of the scaled parameter gradients over the layers (the
// probe steps' underflow records), each with a legend "run name (mode)".
// A directory that does not load is refused with the reader's one line; the runs
// already listed stay. A job folder of torch.distributed ranks lists every rank, and a
// line above the plots names the rank its first NaN came from (JobNonFiniteOrigin.h). refresh() reads the listed runs again: a scenario's runs are
// listed as they start and refreshed while they are written.
#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QStackedWidget;

namespace ampscope::ui {

class RunOverlayPlot;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);

    // Adds a run directory (complete or still being written: what is there now), shown
    // as `name` (empty: the directory's name).
    bool addRun(const QString& directory, QString* error, const QString& name = QString());
    // The index of the run that went non-finite first, 0 when none did (or none listed).
    int firstNonFiniteRun() const { return firstNonFiniteRun_; }
    // The last job folder added: which rank its NaN came from; empty: none went non-finite.
    QString jobOrigin() const { return jobOrigin_; }
    QLabel* jobOriginText() const { return originLabel_; }
    void removeRun(int index);
    void clearRuns();
    void refresh();
    QStringList runDirectories() const { return directories_; }

    RunOverlayPlot* lossPlot() const { return loss_; }
    RunOverlayPlot* scalePlot() const { return scale_; }
    RunOverlayPlot* underflowPlot() const { return underflow_; }
    QListWidget* runList() const { return list_; }
    // The sentence shown instead of the plots while no run is listed.
    QLabel* emptyText() const { return emptyText_; }

public Q_SLOTS:
    void addRunWithDialog();

private:
    void rebuild();

    QStringList directories_;
    QStringList names_;
    int firstNonFiniteRun_ = 0;
    QString jobOrigin_;
    QLabel* originLabel_ = nullptr;
    QListWidget* list_ = nullptr;
    RunOverlayPlot* loss_ = nullptr;
    RunOverlayPlot* scale_ = nullptr;
    RunOverlayPlot* underflow_ = nullptr;
    QLabel* emptyText_ = nullptr;
    QStackedWidget* stack_ = nullptr;
};

}  // namespace ampscope::ui
