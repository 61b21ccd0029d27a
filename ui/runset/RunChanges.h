#pragma once
// RunChange: what changed in a run set, the one vocabulary of RunSet::changed(run, what)
// (in the spirit of Avogadro's Molecule::changed(flags)): a view repaints what the flags
// name, for the run they name, and nothing else.
#include <QFlags>

namespace ampscope::ui {

// A run's id in its set: given when the run joins, never reused.
using RunId = int;
inline constexpr RunId kNoRun = -1;

enum class RunChange : unsigned {
    // Which runs a view shows (RunSet::shownRuns): the set's shape.
    Added = 1u << 0,     // the run joined the set
    Removed = 1u << 1,   // the run left (signalled while it can still be read)
    Focus = 1u << 2,     // the run is now the focused one
    Compared = 1u << 3,  // the run was checked or unchecked for comparison
    // What a view writes beside a run's data: its name, colour, badge, status, first
    // non-finite step.
    Identity = 1u << 4,
    // A run's data, one flag per store of RunModel.
    Steps = 1u << 5,       // steps and epochs (loss, scale, throughput)
    Histograms = 1u << 6,  // gradient histograms, the layer list
    Underflow = 1u << 7,   // fp16 class counts
    NonFinite = 1u << 8,   // the first non-finite value, the run's module tree
    Memory = 1u << 9,
    Lockstep = 1u << 10,
    FormatQuant = 1u << 11,  // per-tensor and block scaling of the format modes
    FormatSweep = 1u << 12,
    Updates = 1u << 13,  // how far optimizer steps moved each layer
    PrecisionMap = 1u << 14,  // a step's ops against the reference
    Sensitivity = 1u << 15,   // each layer's loss cost per format (sensitivity passes)
};
Q_DECLARE_FLAGS(RunChanges, RunChange)
Q_DECLARE_OPERATORS_FOR_FLAGS(RunChanges)

// The changes after which a view asks the set again which runs it shows.
inline constexpr RunChanges kShownRunsChange{RunChange::Added, RunChange::Removed, RunChange::Focus,
                                            RunChange::Compared};

}  // namespace ampscope::ui
