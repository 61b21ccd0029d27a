#include "export/PrecisionMapCsv.h"

namespace ampscope {

PrecisionMapCsv::PrecisionMapCsv(const std::string& opsPath, const std::string& modulesPath)
    : ops_(opsPath), modules_(modulesPath) {
    ops_.writeRow({"step", "index", "mode", "reference", "phase", "module", "op", "node", "output", "elements",
                   "rel_error", "snr_db", "added_error", "input_error", "ulps_max", "ulps_rms", "flushed",
                   "saturated", "new_nan", "new_inf", "unit_roundoff"});
    modules_.writeRow({"step", "mode", "reference", "phase", "module", "first_op", "ops", "input_error",
                       "output_error", "gain"});
}

void PrecisionMapCsv::write(const PrecisionMapRecord& r) {
    const std::string step = std::to_string(r.step);
    for (size_t k = 0; k < r.ops.size(); ++k) {
        const auto& o = r.ops[k];
        ops_.writeRow({step, std::to_string(k), csvEscape(r.mode), csvEscape(r.reference), csvEscape(o.phase),
                       csvEscape(o.module), csvEscape(o.op), csvEscape(o.node), std::to_string(o.output),
                       std::to_string(o.elements), csvNumber(o.relError), csvNumber(o.snrDb),
                       csvNumber(o.addedError), csvNumber(o.inputError), csvNumber(o.ulpsMax),
                       csvNumber(o.ulpsRms), csvNumber(o.flushed), csvNumber(o.saturated),
                       std::to_string(o.newNan), std::to_string(o.newInf), csvNumber(r.unitRoundoff(o.phase))});
    }
    for (const auto& m : r.modules)
        modules_.writeRow({step, csvEscape(r.mode), csvEscape(r.reference), csvEscape(m.phase), csvEscape(m.module),
                           std::to_string(m.firstOp), std::to_string(m.ops), csvNumber(m.inputError),
                           csvNumber(m.outputError), csvNumber(m.gain())});
}

int64_t PrecisionMapCsv::close() {
    ops_.close();
    modules_.close();
    return ops_.rows() - 1;
}

}  // namespace ampscope
