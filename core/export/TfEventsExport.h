#pragma once
// Exporting a run directory as a TensorBoard event file, so the run opens in
// TensorBoard next to users' other runs (`tensorboard --logdir PARENT`).
//
// What is written, one Event per source record, at the record's step (1-based, as in
// events.jsonl); wall time = run_start's time + the step times so far:
//   step records    every numeric or boolean field: the scaler's (scale, scale_after,
//                   growth_tracker, found_inf, step_skipped) as amp/<field>, the rest
//                   (loss, lr, grad_norm, grad_norm_clipped, samples_per_second, ...) as
//                   train/<field>; booleans as 0/1; a non-finite value as NaN/±Inf
//   epoch records   epoch/train_loss, val/loss, val/accuracy
//   underflow       (multiplier 1) underflow/<kind>/<layer>/{flushed,subnormal,overflow}
//                   as fractions of the tensor's elements
//   histogram       log2_abs_grad/<kind>/<layer>: a histogram of log2|x| (bucket k+1 holds
//                   bin [2^k, 2^(k+1))); zeros, NaN and Inf have no log2 and are left out
//   update_ratio    update_ratio/<layer>
//   format_sweep    format_sweep/<tensor>/{underflow,saturated,snr_db}/<format>/<layer>,
//                   fractions of the tensor's elements and the SNR in dB
//   format_quant    format_quant/<layer>/<operand>_<direction>/{underflow,saturated,snr_db,
//                   amax,scale} and, for block formats, crushed (fraction of elements
//                   zeroed by their block's outlier)
//   precision_map   precision_map/<phase>/<module>/{input_error,output_error,gain} and, per
//                   op, precision_map_op/<phase>/<index> <module> <op>/{rel_error,added_error}
//                   (index: the op's place in the map, 4 digits, so tags sort in order)
//   An SNR of +inf (the format held the tensor exactly) and an MX point's NaN scale are
//   left out: TensorBoard cannot draw them.
// Other record types are not written. The file is
// OUT/events.out.tfevents.<run start, unix seconds>.ampscope.
#include <cstdint>
#include <string>
#include <vector>

#include "run/RunReader.h"

namespace ampscope {

struct TfEventsExportResult {
    std::string path;
    int64_t events = 0;  // file_version included
    int64_t scalars = 0;
    int64_t histograms = 0;
    std::vector<std::string> warnings;
};

// Creates `outDirectory` when missing. Throws InputError naming the path when it cannot
// write, or when this build has no protobuf encoder (TfEvent.h).
TfEventsExportResult exportRunTfEvents(const RunData& run, const std::string& outDirectory);
// The same from a run directory on disk, streamed in one pass (RunRecordReader), so a
// 10^6-step run exports without being held in memory.
TfEventsExportResult exportRunTfEvents(const std::string& runDirectory,
                                       const std::string& outDirectory);

// Parses an ISO 8601 UTC time ("2024-05-01T12:34:56Z") to unix seconds; -1 when it is not one.
double unixSecondsFromIsoUtc(const std::string& text);

}  // namespace ampscope
