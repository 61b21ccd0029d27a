#include "views/CompareView.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "engine/StepRecordText.h"
#include "probes/ProbeRecords.h"
#include "run/RunReader.h"
#include "plots/DecimatedSeries.h"
#include "views/RunOverlayPlot.h"

namespace ampscope::ui {

namespace {

// What one run shows here, bounded (DecimatedSeries keeps each bucket's extremes): a
// 10^6-step run compares in the memory of a short one.
struct ComparedRun {
    QString legend;
    DecimatedSeries losses, log2Scales;
    DecimatedSeries flushed;  // mean over the layers, per probe step
};

ComparedRun loadRun(const QString& directory) {
    ComparedRun run;
    int64_t probeStep = -1;  // the step whose underflow records are being summed
    double flushedSum = 0.0;
    int layers = 0;
    const auto endProbeStep = [&] {
        if (layers > 0) run.flushed.append(static_cast<double>(probeStep), flushedSum / layers);
        flushedSum = 0.0;
        layers = 0;
    };
    // Streamed: the records are looked at once and not kept.
    const RunData data = forEachRunRecord(
        QDir::cleanPath(directory).toStdString(), [&](const nlohmann::json& record) {
            const std::string type = recordType(record);
            if (type == "step") {
                if (const auto m = stepFromRecord(record)) {
                    const double x = static_cast<double>(m->step);
                    run.losses.append(x, m->loss);
                    run.log2Scales.append(x, m->scaleAfter > 0 ? std::log2(m->scaleAfter) : NAN);
                }
            } else if (type == "underflow") {
                try {
                    const UnderflowRecord u = underflowRecordFromJson(record);
                    if (u.kind != "param_grad_scaled" || u.multiplier != 1.0) return;
                    // A probe step's records are written together, in step order.
                    if (u.step != probeStep) {
                        endProbeStep();
                        probeStep = u.step;
                    }
                    flushedSum += u.counts.flushedFraction();
                    ++layers;
                } catch (const std::exception&) {
                    // A malformed record: the reader's warnings name it; the rest still compares.
                }
            }
        },
        [&](std::string_view line) {
            // Step lines without JSON (parseStepRecordText): nearly all of a run.
            StepMetrics m;
            if (!parseStepRecordText(line, m)) return false;
            const double x = static_cast<double>(m.step);
            run.losses.append(x, m.loss);
            run.log2Scales.append(x, m.scaleAfter > 0 ? std::log2(m.scaleAfter) : NAN);
            return true;
        });
    endProbeStep();
    const std::string mode = data.config.contains("precision") && data.config["precision"].is_object()
                                 ? data.config["precision"].value("mode", std::string("?"))
                                 : std::string("?");
    run.legend = QStringLiteral("%1 (%2)").arg(QFileInfo(directory).fileName(),
                                               QString::fromStdString(mode));
    return run;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("compare"));
    list_ = new QListWidget(this);
    list_->setToolTip(tr("Recorded runs shown together; add run directories to compare"));
    auto* add = new QPushButton(tr("Add run…"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    connect(add, &QPushButton::clicked, this, &CompareView::addRunWithDialog);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (list_->currentRow() >= 0) removeRun(list_->currentRow());
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(list_);
    leftLayout->addLayout(buttons);

    const QString none = tr("Add recorded runs to compare them");
    loss_ = new RunOverlayPlot(tr("training loss"), none, this);
    scale_ = new RunOverlayPlot(tr("log\u2082 loss scale"), none, this);
    underflow_ = new RunOverlayPlot(tr("mean flushed fraction (scaled grads)"),
                                    tr("No underflow probes in these runs"), this);
    auto* plots = new QSplitter(Qt::Horizontal, this);
    plots->addWidget(loss_);
    plots->addWidget(scale_);
    plots->addWidget(underflow_);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(plots);
    split->setStretchFactor(1, 4);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
}

bool CompareView::addRun(const QString& directory, QString* error) {
    try {
        // Refuses what is not a run (config.json read, no events held).
        (void)RunRecordReader(QDir::cleanPath(directory).toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    directories_ << directory;
    list_->addItem(QFileInfo(directory).fileName());
    list_->item(list_->count() - 1)->setToolTip(directory);
    rebuild();
    return true;
}

void CompareView::removeRun(int index) {
    if (index < 0 || index >= directories_.size()) return;
    directories_.removeAt(index);
    delete list_->takeItem(index);
    rebuild();
}

void CompareView::addRunWithDialog() {
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Add a run to compare"));
    if (directory.isEmpty()) return;
    QString error;
    if (!addRun(directory, &error)) QMessageBox::warning(this, tr("Compare"), error);
}

void CompareView::rebuild() {
    loss_->clearRuns();
    scale_->clearRuns();
    underflow_->clearRuns();
    for (const QString& directory : directories_) {
        ComparedRun run;
        try {
            run = loadRun(directory);
        } catch (const std::exception&) {
            continue;  // it loaded when added; a run deleted since simply drops out
        }
        loss_->addRun(run.legend, run.losses.xs(), run.losses.ys());
        scale_->addRun(run.legend, run.log2Scales.xs(), run.log2Scales.ys());
        underflow_->addRun(run.legend, run.flushed.xs(), run.flushed.ys());
    }
}

}  // namespace ampscope::ui
