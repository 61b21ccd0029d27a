#pragma once
// Plain (no torch). The one list of events.jsonl record types this build
// knows: the engine's (EventSchema.h) and the probes' (probes/ProbeRecords.h).
// The readers skip records of any other type (a newer schema's), with one
// warning per type.
#include <string_view>
#include <vector>

namespace ampscope {

const std::vector<std::string_view>& knownRecordTypes();
bool isKnownRecordType(std::string_view type);

}  // namespace ampscope
