#pragma once
// ampscope-cli prescribe CONFIG.json --format FORMAT --out DIR [--budget 0.9] [--seeds 3]
//                        [--steps N] [--set key.path=value ...] [--quiet]
//
// Which layers must stay in higher precision for the config's model to train in FORMAT,
// chosen from their sensitivity and verified by training (probes/Prescription.h):
// 1. the sensitivity of every matmul/conv layer in FORMAT (engine/SensitivityScan.h: the
//    config trained in fp32 for min(N, 40) steps, four passes): DIR/sensitivity.{txt,json};
// 2. the reference (fp32) and the model all in FORMAT, each trained N steps with the
//    seeds: DIR/reference-seed-K/ and DIR/<format>-seed-K/;
// 3. when the all-FORMAT runs are outside the reference's band, the prescription (the
//    kept layers in precision.keep_fp32) trained the same way: DIR/prescribed-seed-K/;
//    when they are inside, no layer needs keeping and the prescription is that;
// 4. DIR/prescription.json and .txt: the ranking, the kept layers with their scores and
//    FLOP shares, each arm's verdict against the reference (Welch, one-sided, p-values),
//    and the kept names as torchao / torchtitan / Transformer Engine settings.
// DIR opens as one set of runs in the window and in `report`. --set applies to every run.
// --progress: one JSON line per phase on stdout, {"prescribe_progress": {"phase": ...}}:
// "sensitivity" (its steps; again with "step" as each of its passes ends), "arm" (name, prefix of its run folders, seeds, runs_before,
// runs: the most runs the prescription trains), "arm skipped" (runs: the new total) and
// "done"; with --quiet they are all stdout holds. The window's Prescribe… reads them.
// Bad input (an unknown format, a budget outside (0, 1], fewer than 2 seeds, a model with
// no matmul/conv layer, a DIR that is not new or empty) is one line, exit 2, before any run.
#include <cstdio>

#include "CliArguments.h"

namespace ampscope::app {

int runPrescribeCommand(const CliRequest& request, std::FILE* out, std::FILE* err);

}  // namespace ampscope::app
