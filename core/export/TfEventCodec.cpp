// Encoding of TfEvent with the protobuf classes generated from tensorboard_event.proto.
// Without libprotobuf at build time (AMPSCOPE_HAVE_PROTOBUF unset) every call says so.
#include "common/InputError.h"
#include "export/TfEvent.h"

#ifdef AMPSCOPE_HAVE_PROTOBUF
#include "tensorboard_event.pb.h"
#endif

namespace ampscope {

#ifdef AMPSCOPE_HAVE_PROTOBUF

bool tfEventCodecAvailable() {
    return true;
}

std::string encodeTfEvent(const TfEvent& event) {
    tensorboard::Event message;
    message.set_wall_time(event.wallTime);
    message.set_step(event.step);
    if (!event.fileVersion.empty()) {
        message.set_file_version(event.fileVersion);
    } else {
        tensorboard::Summary* summary = message.mutable_summary();
        for (const TfValue& value : event.values) {
            tensorboard::Summary::Value* out = summary->add_value();
            out->set_tag(value.tag);
            if (!value.description.empty())
                out->mutable_metadata()->set_summary_description(value.description);
            if (value.simpleValue) {
                out->set_simple_value(*value.simpleValue);
            } else if (value.histogram) {
                const TfHistogram& h = *value.histogram;
                tensorboard::HistogramProto* histo = out->mutable_histo();
                histo->set_min(h.min);
                histo->set_max(h.max);
                histo->set_num(h.num);
                histo->set_sum(h.sum);
                histo->set_sum_squares(h.sumSquares);
                for (double limit : h.bucketLimits) histo->add_bucket_limit(limit);
                for (double count : h.buckets) histo->add_bucket(count);
            }
        }
    }
    return message.SerializeAsString();
}

TfEvent decodeTfEvent(std::string_view bytes) {
    tensorboard::Event message;
    if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        throw InputError("not a TensorBoard Event message (" + std::to_string(bytes.size()) +
                         " bytes)");
    TfEvent event;
    event.wallTime = message.wall_time();
    event.step = message.step();
    if (message.has_file_version()) event.fileVersion = message.file_version();
    if (message.has_summary()) {
        for (const auto& value : message.summary().value()) {
            TfValue out;
            out.tag = value.tag();
            if (value.has_metadata()) out.description = value.metadata().summary_description();
            if (value.value_case() == tensorboard::Summary::Value::kSimpleValue)
                out.simpleValue = value.simple_value();
            if (value.value_case() == tensorboard::Summary::Value::kHisto) {
                const auto& histo = value.histo();
                TfHistogram h;
                h.min = histo.min();
                h.max = histo.max();
                h.num = histo.num();
                h.sum = histo.sum();
                h.sumSquares = histo.sum_squares();
                h.bucketLimits.assign(histo.bucket_limit().begin(), histo.bucket_limit().end());
                h.buckets.assign(histo.bucket().begin(), histo.bucket().end());
                out.histogram = std::move(h);
            }
            event.values.push_back(std::move(out));
        }
    }
    return event;
}

#else

namespace {
[[noreturn]] void noCodec() {
    throw InputError(
        "this build has no TensorBoard export (it was built without protobuf: "
        "libprotobuf-dev and protobuf-compiler missing, or AMPSCOPE_TFEVENTS=OFF)");
}
}  // namespace

bool tfEventCodecAvailable() {
    return false;
}
std::string encodeTfEvent(const TfEvent&) {
    noCodec();
}
TfEvent decodeTfEvent(std::string_view) {
    noCodec();
}

#endif

}  // namespace ampscope
