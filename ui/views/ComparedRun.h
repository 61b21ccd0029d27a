#pragma once
// ComparedRun: what a recorded run contributes to an overlay of runs (the Compare dock,
// the loss plot's earlier runs of a scenario): its training loss, log2 loss scale and the
// mean flushed fraction of its scaled parameter gradients per probe step, bounded
// (DecimatedSeries keeps each bucket's extremes) so that a 10^6-step run compares in the
// memory of a short one. Reads a complete run or one still being written (what is there
// now); throws the reader's error for a directory that is not a run. The legend says
// where the run first went non-finite, so ranks of one distributed run show which went
// first.
#include <QString>
#include <cstdint>

#include "plots/DecimatedSeries.h"

namespace ampscope::ui {

struct ComparedRun {
    QString legend;  // "name (mode)"
    DecimatedSeries losses, log2Scales;
    DecimatedSeries flushed;  // mean over the layers, per probe step
    int64_t firstNonFiniteStep = -1;  // the step of its nonfinite record; -1: none
    bool nonFiniteReceived = false;   // that record came through the gradient all-reduce
};

// name: the legend's run name; empty: the directory's name.
ComparedRun loadComparedRun(const QString& directory, const QString& name = QString());

}  // namespace ampscope::ui
