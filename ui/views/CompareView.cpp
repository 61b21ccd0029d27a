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
#include <map>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "probes/ProbeRecords.h"
#include "run/RunReader.h"
#include "views/RunOverlayPlot.h"

namespace ampscope::ui {

namespace {

struct ComparedRun {
    QString legend;
    std::vector<double> steps, losses, log2Scales;
    std::vector<double> probeSteps, flushed;
};

ComparedRun loadRun(const QString& directory) {
    const RunData data = readRunDirectory(QDir::cleanPath(directory).toStdString());
    ComparedRun run;
    const std::string mode = data.config.contains("precision") && data.config["precision"].is_object()
                                 ? data.config["precision"].value("mode", std::string("?"))
                                 : std::string("?");
    run.legend = QStringLiteral("%1 (%2)").arg(QFileInfo(directory).fileName(),
                                               QString::fromStdString(mode));
    std::map<int64_t, std::pair<double, int>> flushedByStep;  // sum, layers
    for (const nlohmann::json& record : data.events) {
        const std::string type = recordType(record);
        if (type == "step") {
            if (const auto m = stepFromRecord(record)) {
                run.steps.push_back(static_cast<double>(m->step));
                run.losses.push_back(m->loss);
                run.log2Scales.push_back(m->scaleAfter > 0 ? std::log2(m->scaleAfter) : NAN);
            }
        } else if (type == "underflow") {
            try {
                const UnderflowRecord u = underflowRecordFromJson(record);
                if (u.kind != "param_grad_scaled" || u.multiplier != 1.0) continue;
                auto& [sum, layers] = flushedByStep[u.step];
                sum += u.counts.flushedFraction();
                ++layers;
            } catch (const std::exception&) {
                // A malformed record: the reader's warnings name it; the rest still compares.
            }
        }
    }
    for (const auto& [step, sumAndCount] : flushedByStep) {
        run.probeSteps.push_back(static_cast<double>(step));
        run.flushed.push_back(sumAndCount.first / sumAndCount.second);
    }
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
        (void)readRunDirectory(QDir::cleanPath(directory).toStdString());
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
        loss_->addRun(run.legend, run.steps, run.losses);
        scale_->addRun(run.legend, run.steps, run.log2Scales);
        underflow_->addRun(run.legend, run.probeSteps, run.flushed);
    }
}

}  // namespace ampscope::ui
