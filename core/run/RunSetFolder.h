#pragma once
// Which runs a folder holds, for opening it as one set of runs (the window's run set, a
// report of several runs): a run directory is one run; a job recorded under
// torch.distributed is its ranks (RUN/rank-N); a scenario's output folder
// (`ampscope-cli run --scenario NAME --out DIR`: DIR/<run-name>/ per run) is its runs.
//
// Contract:
// - runSetDirectories(folder): the rank directories (rankRunDirectories) when there are
//   any; else {folder} when folder itself holds a config.json; else every immediate
//   subdirectory holding a config.json (a plain file), in the order the runs started:
//   run_start's "time" (events.jsonl's first line), then config.json's modification
//   time (finer than run_start's seconds: a scenario's short runs start within one),
//   then the name. Symbolic links are not followed. Empty when the folder holds no run
//   (or does not exist): the caller says so in one line.
// No torch, no Qt.
#include <string>
#include <vector>

namespace ampscope {

std::vector<std::string> runSetDirectories(const std::string& folder);

}  // namespace ampscope
