#pragma once
// PrecisionMapPlot: one training step's ops along x in execution order (forward, then
// backward), y the relative error of each op's output against the reference on a log
// axis; what each op adds itself as hollow markers. The ops of one module sit in a
// shaded band labelled with its name; a line parts forward from backward; a dashed line
// per phase is the format's unit roundoff u (2^-8 bf16, 2^-11 fp16, the element format's
// for fp8/MX/NVFP4); the first op past the tolerance is marked. Further maps of the same
// step (other runs' modes) overlay as more series on the first one's x positions.
//
// Contract:
// - setMap() draws the numbers it is handed (a view decodes the records); series[0] is
//   the map whose ops, bands and lines are drawn; the others are drawn by op index.
// - An error of 0 (the op matches the reference bit for bit) sits on the axis floor
//   (kExactFloor) and its tooltip says "exact"; a NaN (not measured) is not drawn.
// - A left click on an op (nearest within a few pixels) selects it (a ring) and emits
//   opClicked(index); setSelectedOp() selects without the signal (-1: none).
// - The tooltip is the view's text for the op under the mouse.
#include <QColor>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "plots/InteractivePlot.h"

namespace ampscope::ui {

class PrecisionMapPlot : public InteractivePlot {
    Q_OBJECT
public:
    static constexpr double kExactFloor = 1e-9;

    struct Band {
        QString label;  // the module
        int firstOp = 0;
        int ops = 0;
    };
    struct Series {
        QString name;
        QColor color;
        std::vector<double> relError;    // per op
        std::vector<double> addedError;  // per op; NaN: not measured
    };
    struct Map {
        std::vector<Series> series;
        std::vector<Band> bands;
        int firstBackward = -1;  // index of the first backward op; -1: none
        double unitRoundoffForward = 0.0, unitRoundoffBackward = 0.0;
        QString formatForward, formatBackward;
        std::optional<int> firstPastTolerance;
        double tolerance = 0.0;  // of the forward (the marker's label)
        QStringList tooltips;    // per op of series[0]
    };

    explicit PrecisionMapPlot(QWidget* parent = nullptr);

    void setMap(const Map& map);
    void clearMap(const QString& why);
    void setSelectedOp(int index);
    int selectedOp() const { return selected_; }
    int opCount() const;
    // Runs drawn: the shown run and those drawn over it.
    int seriesCount() const { return static_cast<int>(map_.series.size()); }
    // The pixel of an op's relative error (series 0), for tests and the click.
    QPoint opPixel(int index) const;
    QString placeholderText() const;

    QString tooltipText(QPoint pixel) const override;

public Q_SLOTS:
    void resetView() override;

Q_SIGNALS:
    void opClicked(int index);

protected:
    void leftClicked(QPoint pixel) override;

private:
    int opAt(QPoint pixel) const;
    static double shown(double error);
    void clearItems();
    void addBands();
    void addLines();

    Map map_;
    std::vector<QCPAbstractItem*> items_;
    QCPGraph* selectedGraph_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    int selected_ = -1;
};

}  // namespace ampscope::ui
