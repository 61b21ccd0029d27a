#include "views/RunPairView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "runset/RunSet.h"
#include "views/RunTitle.h"

namespace ampscope::ui {

RunPairView::RunPairView(RunSet* set, RunChanges reads, QWidget* parent)
    : QWidget(parent), set_(set), reads_(reads) {}

QHBoxLayout* RunPairView::makeSides(const QString& titleName, const SideFill& fill) {
    auto* row = new QHBoxLayout;
    for (int side : {kA, kB}) {
        QWidget* box = new QWidget(this);
        boxes_[side] = box;
        titles_[side] =
            makeRunTitle(box, titleName + (side == kA ? QStringLiteral("A") : QStringLiteral("B")));
        const QList<QWidget*> widgets = fill(side, box);
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(1);
        layout->addWidget(titles_[side]);
        for (int i = 0; i < widgets.size(); ++i)
            layout->addWidget(widgets[i], i + 1 == widgets.size() ? 1 : 0);
        row->addWidget(box, 1);
    }
    return row;
}

void RunPairView::followRuns() {
    connect(set_, &RunSet::changed, this, &RunPairView::onChanged);
    takePair();
    showRuns();
}

void RunPairView::onChanged(RunId run, RunChanges what) {
    if (what & kShownRunsChange) {
        takePair();
        showRuns();
        return;
    }
    if (!(what & reads_)) return;
    const auto shows = [run](const RunModel* r) { return r && r->id() == run; };
    if (shows(runs_[kA]) || shows(runs_[kB])) shownRunChanged();
}

void RunPairView::takePair() {
    runs_[kA] = set_->focused();
    runs_[kB] = set_->partner();
    const bool both = runs_[kB] != nullptr;
    showRunTitle(titles_[kA], runs_[kA], both ? QStringLiteral("A") : QString());
    titles_[kA]->setVisible(both);
    showRunTitle(titles_[kB], runs_[kB], QStringLiteral("B"));
    boxes_[kB]->setVisible(both);
}

}  // namespace ampscope::ui
