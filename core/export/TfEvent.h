#pragma once
// The TensorBoard Event messages AmpScope writes, as plain structs (no protobuf in this
// header), and their protobuf encoding (TfEventCodec.cpp, libprotobuf-lite, messages in
// tensorboard_event.proto). One event holds either the file version (the first event of
// a file) or a summary of scalar and histogram values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

struct TfHistogram {
    double min = 0.0;
    double max = 0.0;
    double num = 0.0;  // values counted
    double sum = 0.0;
    double sumSquares = 0.0;
    std::vector<double> bucketLimits;  // bucket i: (bucketLimits[i-1], bucketLimits[i]]
    std::vector<double> buckets;       // counts
};

struct TfValue {
    std::string tag;
    std::string description;  // optional: shown by TensorBoard under the chart
    std::optional<float> simpleValue;
    std::optional<TfHistogram> histogram;
};

struct TfEvent {
    double wallTime = 0.0;  // seconds since 1970
    int64_t step = 0;
    std::string fileVersion;  // set in a file's first event only
    std::vector<TfValue> values;
};

inline constexpr std::string_view kTfEventsFileVersion = "brain.Event:2";

// False when this build was made without libprotobuf: encode/decode then throw InputError.
bool tfEventCodecAvailable();
std::string encodeTfEvent(const TfEvent& event);
// Throws InputError when `bytes` is not an Event message.
TfEvent decodeTfEvent(std::string_view bytes);

}  // namespace ampscope
