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
// "■ name" as rich text, for labels and list items that name a run.
QString runTitleHtml(const RunModel& run);

}  // namespace ampscope::ui
