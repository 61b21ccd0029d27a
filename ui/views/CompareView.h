#pragma once
// CompareView: recorded runs side by side. A list of run directories (Add run…,
// Remove) and three overlays of the chosen runs: training loss, log2 of the loss scale,
// and the mean flushed fraction of the scaled parameter gradients over the layers (the
// probe steps' underflow records), each with a legend "run name (mode)".
// A directory that does not load is refused with the reader's one line; the runs
// already listed stay.
#include <QStringList>
#include <QWidget>

class QListWidget;

namespace ampscope::ui {

class RunOverlayPlot;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);

    // Adds a run directory (complete or still being written: what is there now).
    bool addRun(const QString& directory, QString* error);
    void removeRun(int index);
    QStringList runDirectories() const { return directories_; }

    RunOverlayPlot* lossPlot() const { return loss_; }
    RunOverlayPlot* scalePlot() const { return scale_; }
    RunOverlayPlot* underflowPlot() const { return underflow_; }
    QListWidget* runList() const { return list_; }

public Q_SLOTS:
    void addRunWithDialog();

private:
    void rebuild();

    QStringList directories_;
    QListWidget* list_ = nullptr;
    RunOverlayPlot* loss_ = nullptr;
    RunOverlayPlot* scale_ = nullptr;
    RunOverlayPlot* underflow_ = nullptr;
};

}  // namespace ampscope::ui
