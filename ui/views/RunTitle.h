#pragma once
// The caption over a run's plot where runs stand side by side (histograms, underflow
// maps, format sweeps, scaling, block scales): a square in the run's colour and its name,
// so that a plot says whose it is in the colour every other view gives that run.
#include <QString>

#include "runset/RunChanges.h"

class QLabel;
class QWidget;

namespace ampscope::ui {

class RunModel;

QLabel* makeRunTitle(QWidget* parent, const QString& objectName);
// The run's square and name, and `role` after it ("A", "B"; empty: nothing).
void showRunTitle(QLabel* title, const RunModel* run, const QString& role = QString());
// The captions of a dock that stands two runs side by side, A against B (format sweep,
// scaling, block scales): B's side shows only when there is a B, and only then do the
// captions say "A" and "B".
void showSideTitles(QLabel* titleA, QLabel* titleB, QWidget* sideB, const RunModel* a, const RunModel* b);
// Whether `run` is one of the runs shown (a side without a run shows none).
bool isShownRun(RunId run, const RunModel* a, const RunModel* b);
// "■ name" as rich text, for labels and list items that name a run.
QString runTitleHtml(const RunModel& run);

}  // namespace ampscope::ui
