#pragma once
// PrecisionMapView: the "Precision map" dock. Where in a training step the run's precision
// mode loses accuracy against a reference: the step's ops in execution order, grouped by
// module, with each op's relative error and the error it adds itself (PrecisionMapPlot),
// the modules as a tree with the error entering and leaving each, forward and backward,
// and for a chosen op its values' log2|x| histogram in the run against the reference's
// (ExponentOverlayPlot). Numbers and their definitions: core/probes/PrecisionMapRecord.h.
//
// Contract:
// - A RunObserver: "precision_map" records come through takeRecord (parsed with
//   precisionMapRecordFromJson; one that does not read is skipped and counted); the step
//   chooser lists the mapped steps and follows the newest until the user picks another.
//   At most kMaxMaps maps are kept (the oldest go).
// - A click on an op (or setSelectedOp) selects its module in the tree, shows its
//   histograms and emits moduleSelected(module); a click on a module in the tree selects
//   its first op of the phase shown first.
// - overlayRunMap() adds the map of the shown step from another run directory (another
//   mode's run of the same config) as a second series; clearOverlays() removes them.
//   With the window's run set, compared runs are to feed this instead.
#include <QString>
#include <QWidget>
#include <cstdint>
#include <map>
#include <vector>

#include "RunObserver.h"
#include "probes/PrecisionMapRecord.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace ampscope::ui {

class ExponentOverlayPlot;
class PrecisionMapPlot;

class PrecisionMapView : public QWidget, public RunObserver {
    Q_OBJECT
public:
    static constexpr std::size_t kMaxMaps = 32;

    explicit PrecisionMapView(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeRecord(const nlohmann::json& record) override;
    void endOfBatch() override;

    // The shown map's step; -1 when none.
    int64_t shownStep() const { return shownStep_; }
    void showStep(int64_t step);
    const PrecisionMapRecord* shownMap() const;
    void setSelectedOp(int index);
    int selectedOp() const;
    // Another run's map of the shown step, drawn over this one; false (and *error says
    // why) when the directory is no run or has no map of that step.
    bool overlayRunMap(const QString& directory, QString* error);
    void clearOverlays();
    int64_t malformedRecords() const { return malformed_; }

    PrecisionMapPlot* plot() const { return plot_; }
    ExponentOverlayPlot* histograms() const { return histograms_; }
    QTreeWidget* moduleTree() const { return tree_; }
    QComboBox* stepChooser() const { return stepBox_; }
    QLabel* summaryLabel() const { return summary_; }

Q_SIGNALS:
    void moduleSelected(const QString& module);

private:
    struct Overlay {
        QString name;
        PrecisionMapRecord map;
    };
    void updateChooser();
    void redraw();
    void fillTree(const PrecisionMapRecord& map);
    void selectModuleInTree(const QString& module);
    void showHistograms(int index);
    void overlayWithDialog();

    PrecisionMapPlot* plot_ = nullptr;
    ExponentOverlayPlot* histograms_ = nullptr;
    QTreeWidget* tree_ = nullptr;
    QComboBox* stepBox_ = nullptr;
    QLabel* summary_ = nullptr;
    QPushButton* overlayButton_ = nullptr;

    QString runTitle_;
    std::map<int64_t, PrecisionMapRecord> maps_;  // by step
    std::vector<Overlay> overlays_;
    int64_t shownStep_ = -1;
    bool followLatest_ = true;
    bool dirty_ = false;
    bool updatingChooser_ = false;
    int64_t malformed_ = 0;
};

}  // namespace ampscope::ui
