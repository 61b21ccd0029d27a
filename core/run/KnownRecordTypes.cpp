#include "run/KnownRecordTypes.h"

#include <algorithm>

#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/PrecisionMapRecord.h"
#include "probes/ProbeRecords.h"
#include "probes/SensitivityRecord.h"
#include "run/EventSchema.h"

namespace ampscope {

const std::vector<std::string_view>& knownRecordTypes() {
    static const std::vector<std::string_view> types = {
        event_type::kRunStart,         event_type::kRunInfo,          event_type::kStep,
        event_type::kEpoch,            event_type::kFault,            event_type::kModelModules,            event_type::kError,
        event_type::kRunEnd,           probe_record_type::kHistogram, probe_record_type::kUnderflow,
        probe_record_type::kNonFinite, probe_record_type::kUpdateRatio, probe_record_type::kShadow,
        probe_record_type::kLockstep,  probe_record_type::kOpDtypes,  probe_record_type::kMemory,
        probe_record_type::kFormatQuant, probe_record_type::kFormatSweep,
        probe_record_type::kPrecisionMap, probe_record_type::kSensitivity};
    return types;
}

bool isKnownRecordType(std::string_view type) {
    const auto& types = knownRecordTypes();
    return std::find(types.begin(), types.end(), type) != types.end();
}

}  // namespace ampscope
