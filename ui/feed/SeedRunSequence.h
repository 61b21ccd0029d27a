#pragma once
// SeedRunSequence: the Configure dock's config trained with N seeds, one run after another
// through the window's run control (the Seeds field; `ampscope-cli run --seeds` is the same
// on the command line). Seed K is core's seedRunConfig (RunNaming.h): the config's seed +
// K - 1, named "<name> seed S", so the seeds are one seed group in the set and the Loss
// view draws their band, the Runs list and status bar judge the other runs against it.
//
// Contract:
// - start(config, seeds): seeds >= 2 (stats::kMinimumSeeds); starts seed 1 now, the next
//   when the previous one finished; a run that is stopped or fails ends the sequence. False
//   (nothing started) when the run control is busy or the first run does not start.
// - While it trains, the seeds already finished stay compared beside the live one (the
//   band grows as they come); the runs shown before are left as they were.
// - runStarted(k, n) for each seed as it starts (1-based), finished() after the last.
#include <QObject>
#include <vector>

#include "config/RunConfig.h"
#include "runset/RunChanges.h"

namespace ampscope {
struct RunSummary;
}

namespace ampscope::ui {

class RunControl;
class RunSet;

class SeedRunSequence : public QObject {
    Q_OBJECT
public:
    SeedRunSequence(RunControl* control, RunSet* set, QObject* parent = nullptr);

    bool start(const RunConfig& config, int seeds);
    bool isRunning() const { return running_; }
    // The set's runs of the last sequence, in seed order.
    const std::vector<RunId>& runIds() const { return ids_; }

Q_SIGNALS:
    void runStarted(int seed, int seeds);
    void finished();

private:
    void startSeed(int k);
    void onRunEnded(const ampscope::RunSummary& summary);

    RunControl* control_;
    RunSet* set_;
    RunConfig config_;
    int seeds_ = 0;
    int current_ = 0;
    bool running_ = false;
    std::vector<RunId> ids_;
};

}  // namespace ampscope::ui
