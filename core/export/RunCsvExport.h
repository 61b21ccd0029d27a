#pragma once
// Exporting a run directory's data as CSV files (plain C++, no torch, no Qt), for
// spreadsheets, pandas or R. One folder per run:
//
//   steps.csv        one row per "step" record: every per-step scalar the run wrote
//   epochs.csv       one row per "epoch" record
//   histograms.csv   long form: step, layer, kind, bin, count. bin is the exponent k of
//                    [2^k, 2^(k+1)) or one of below, above, zero, nan, pos_inf, neg_inf;
//                    bins with count 0 are left out (a missing bin is an empty one)
//   underflow.csv    long form: step, layer, kind, multiplier, exact, class, count; the
//                    seven fp16 classes of every underflow record, zeros included
//   precision_map.csv, precision_map_modules.csv
//                    the precision maps: one row per op of each map (step, its index in
//                    execution order, phase, module, op and the errors of
//                    probes/PrecisionMapRecord.h), one per module and phase (the error
//                    entering, leaving, the gain) (PrecisionMapCsv.h)
//   <type>.csv       any other record type (update_ratio, nonfinite, error, format_sweep,
//                    format_quant and the types later probes add): one row per record, one
//                    column per top-level field; format_quant's block_scale_exponents as
//                    one cell "-3:12 -2:40" (exponent:blocks, lowest first)
//   config.json      the run's resolved config; summary.json when the run has one
//
// Columns of the flat tables: step, epoch, layer, kind, tensor, operand, direction,
// format, recipe first (those present), then the
// union of the other fields in first-seen order ("type" left out); a field a record
// lacks is an empty cell. Cell rules: CsvWriter.h.
// Framing records (run_start, run_info, run_end) are not series and are not exported.
// Malformed probe records are skipped with a warning; the export goes on.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "run/RunReader.h"

namespace ampscope {

struct CsvExportResult {
    std::vector<std::string> files;           // paths written, in writing order
    std::map<std::string, int64_t> dataRows;  // file name (no folder) -> rows after the header
    std::vector<std::string> warnings;
};

// Writes the files into `outDirectory` (created when missing). Throws InputError naming
// the path when the folder cannot be created or a file cannot be written.
CsvExportResult exportRunCsv(const RunData& run, const std::string& outDirectory);
// The same from a run directory on disk, streamed (forEachRunRecord) in two passes,
// columns then rows, so a 10^6-step run exports without being held in memory. Refuses
// what readRunDirectory refuses, before anything is written.
CsvExportResult exportRunCsv(const std::string& runDirectory, const std::string& outDirectory);

}  // namespace ampscope
