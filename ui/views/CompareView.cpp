#include "views/CompareView.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "run/JobNonFiniteOrigin.h"
#include "run/RunReader.h"
#include "views/ComparedRun.h"
#include "plots/RunOverlayPlot.h"

namespace ampscope::ui {

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
    // The runs' names are short; the plots get the width.
    left->setMaximumWidth(220);

    const QString none = tr("Add recorded runs to compare them");
    loss_ = new RunOverlayPlot(tr("training loss"), none, this);
    scale_ = new RunOverlayPlot(tr("log\u2082 loss scale"), none, this);
    underflow_ = new RunOverlayPlot(tr("mean flushed fraction (scaled grads)"),
                                    tr("No underflow probes in these runs"), this);
    auto* plots = new QSplitter(Qt::Horizontal, this);
    plots->setChildrenCollapsible(false);
    for (RunOverlayPlot* plot : {loss_, scale_, underflow_}) {
        // Three plots side by side in a dock a third of a laptop screen wide: few x ticks,
        // or their labels run together.
        plot->xAxis->ticker()->setTickCount(3);
        plot->setMinimumWidth(200);
        plots->addWidget(plot);
    }

    // With no runs listed one sentence says what goes here, instead of three plots each
    // cutting it off.
    emptyText_ = new QLabel(tr("No runs to compare yet. Add run… lists a recorded run "
                               "directory; the runs of a scenario with several runs are "
                               "listed here as they train."),
                            this);
    emptyText_->setObjectName(QStringLiteral("compareEmptyText"));
    emptyText_->setWordWrap(true);
    emptyText_->setAlignment(Qt::AlignCenter);
    emptyText_->setForegroundRole(QPalette::PlaceholderText);
    stack_ = new QStackedWidget(this);
    stack_->addWidget(emptyText_);
    stack_->addWidget(plots);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(stack_);
    split->setStretchFactor(1, 4);
    originLabel_ = new QLabel(this);
    originLabel_->setObjectName(QStringLiteral("compareJobOrigin"));
    originLabel_->setWordWrap(true);
    originLabel_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    originLabel_->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(originLabel_);
    layout->addWidget(split, 1);
}

bool CompareView::addRun(const QString& directory, QString* error, const QString& name) {
    // A run recorded under torch.distributed: one directory per rank, all compared.
    const std::vector<std::string> ranks = rankRunDirectories(QDir::cleanPath(directory).toStdString());
    if (!ranks.empty()) {
        for (const std::string& rank : ranks) {
            const QString rankDirectory = QString::fromStdString(rank);
            if (!addRun(rankDirectory, error, QFileInfo(rankDirectory).fileName())) return false;
        }
        try {
            jobOrigin_ = QString::fromStdString(jobNonFiniteOriginOf(ranks));
        } catch (const std::exception&) {
            jobOrigin_.clear();  // a rank that cannot be read now: its line says so
        }
        originLabel_->setText(tr("<b>%1</b>: %2.").arg(QFileInfo(directory).fileName().toHtmlEscaped(),
                                                      jobOrigin_.toHtmlEscaped()));
        originLabel_->setVisible(!jobOrigin_.isEmpty());
        return true;
    }
    try {
        // Refuses what is not a run (config.json read, no events held).
        (void)RunRecordReader(QDir::cleanPath(directory).toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    directories_ << directory;
    names_ << name;
    list_->addItem(name.isEmpty() ? QFileInfo(directory).fileName() : name);
    list_->item(list_->count() - 1)->setToolTip(directory);
    rebuild();
    return true;
}

void CompareView::removeRun(int index) {
    if (index < 0 || index >= directories_.size()) return;
    directories_.removeAt(index);
    names_.removeAt(index);
    delete list_->takeItem(index);
    rebuild();
}

void CompareView::clearRuns() {
    jobOrigin_.clear();
    originLabel_->hide();
    directories_.clear();
    names_.clear();
    list_->clear();
    rebuild();
}

void CompareView::refresh() {
    rebuild();
}

void CompareView::addRunWithDialog() {
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Add a run to compare"));
    if (directory.isEmpty()) return;
    QString error;
    if (!addRun(directory, &error)) QMessageBox::warning(this, tr("Compare"), error);
}

void CompareView::rebuild() {
    stack_->setCurrentIndex(directories_.isEmpty() ? 0 : 1);
    loss_->clearRuns();
    scale_->clearRuns();
    underflow_->clearRuns();
    std::vector<int64_t> nonFiniteSteps(static_cast<std::size_t>(directories_.size()), -1);
    std::vector<bool> received(static_cast<std::size_t>(directories_.size()), false);
    for (int i = 0; i < directories_.size(); ++i) {
        ComparedRun run;
        try {
            run = loadComparedRun(directories_[i], names_[i]);
        } catch (const std::exception&) {
            continue;  // it loaded when added; a run deleted since simply drops out
        }
        nonFiniteSteps[static_cast<std::size_t>(i)] = run.firstNonFiniteStep;
        received[static_cast<std::size_t>(i)] = run.nonFiniteReceived;
        loss_->addRun(run.legend, run.losses.xs(), run.losses.ys());
        scale_->addRun(run.legend, run.log2Scales.xs(), run.log2Scales.ys());
        underflow_->addRun(run.legend, run.flushed.xs(), run.flushed.ys());
    }
    // Which run (which rank, for a distributed run) went non-finite first, in the list: at
    // one step, a rank where it appeared before a rank that received it in the all-reduce.
    int64_t first = -1;
    bool firstReceived = false;
    firstNonFiniteRun_ = 0;
    for (std::size_t i = 0; i < nonFiniteSteps.size(); ++i) {
        const int64_t step = nonFiniteSteps[i];
        if (step >= 0 && (first < 0 || step < first || (step == first && firstReceived && !received[i]))) {
            first = step;
            firstReceived = received[i];
            firstNonFiniteRun_ = static_cast<int>(i);
        }
    }
    for (int i = 0; i < list_->count() && i < directories_.size(); ++i) {
        QString text = names_[i].isEmpty() ? QFileInfo(directories_[i]).fileName() : names_[i];
        const auto at = static_cast<std::size_t>(i);
        const int64_t step = nonFiniteSteps[at];
        if (step >= 0 && received[at])
            text += tr(" · via all-reduce, step %1").arg(step);
        else if (step >= 0)
            text += i == firstNonFiniteRun_ ? tr(" · first non-finite, step %1").arg(step)
                                            : tr(" · non-finite at step %1").arg(step);
        list_->item(i)->setText(text);
    }
}

}  // namespace ampscope::ui
