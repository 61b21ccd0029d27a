#pragma once
// Which rank of a torch.distributed job a NaN came from: one sentence from each rank's
// first non-finite event (its `nonfinite` record), for the window's job view and the
// report of a job.
//
// A rank whose event came `via` the gradient all-reduce received the value from another
// rank; the others went non-finite on their own. The origin is the rank (or ranks)
// whose own event has the earliest step:
//   "rank 1 went non-finite first, at step 15 in body.2 (forward); rank 0 received it
//    through the gradient all-reduce at step 15"
// Other ranks follow, ranks with the same fate at the same step together ("ranks 0, 2
// and 3 received it ..."), then ranks that went non-finite on their own later ("rank 2
// went non-finite at step 18 in fc (backward)"). When every rank's event arrived through
// the all-reduce, the rank it came from recorded nothing (or was not recorded): the
// sentence says so. When no rank recorded an event but a rank's loss was not finite (a
// run without the non-finite probe), the sentence says whose loss went first:
//   "no rank recorded where it went non-finite; the loss went non-finite first on rank 7,
//    at step 30"
// A loss non-finite before every recorded event is said at the end ("the loss went
// non-finite earlier on rank 0, at step 5, with no record of where").
// Empty when no rank went non-finite. No torch, no Qt.
#include <optional>
#include <string>
#include <vector>

#include "probes/NonFiniteEvent.h"

namespace ampscope {

struct RankNonFinite {
    long long rank = 0;
    std::optional<NonFiniteEvent> first;  // the rank's nonfinite record, if any
    std::optional<long long> firstNonFiniteLossStep;  // the rank's first step whose loss was not finite
};

std::string jobNonFiniteOrigin(std::vector<RankNonFinite> ranks);

// The same for rank directories on disk (rankRunDirectories), from each rank's
// `nonfinite` record. Only lines that mention it are parsed, so a long run costs a scan
// of its events, not a parse. Throws what the reader throws (InputError).
std::string jobNonFiniteOriginOf(const std::vector<std::string>& rankDirectories);

}  // namespace ampscope
