#include "probes/PrecisionMapStream.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "probes/NonFiniteEvent.h"

namespace ampscope {

namespace {

constexpr size_t kMaxAlignCells = size_t{1} << 24;  // past this, position alone pairs a group's ops

// Pairs of positions in a and b: their longest common subsequence of op names.
std::vector<std::pair<size_t, size_t>> alignByName(const std::vector<const CapturedOp*>& a,
                                                   const std::vector<const CapturedOp*>& b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::pair<size_t, size_t>> pairs;
    if (n * m > kMaxAlignCells) {
        for (size_t k = 0; k < std::min(n, m); ++k)
            if (a[k]->op == b[k]->op) pairs.emplace_back(k, k);
        return pairs;
    }
    std::vector<uint32_t> length((n + 1) * (m + 1), 0);
    const auto at = [&](size_t i, size_t j) -> uint32_t& { return length[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a[i]->op == b[j]->op ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    for (size_t i = 0, j = 0; i < n && j < m;) {
        if (a[i]->op == b[j]->op) {
            pairs.emplace_back(i++, j++);
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
    return pairs;
}

std::string phaseOf(const CapturedOp& op) {
    return std::string(op.backward ? nonfinite_phase::kBackward : nonfinite_phase::kForward);
}

}  // namespace

PrecisionMapStream::Compared PrecisionMapStream::Compared::of(const torch::Tensor& t) {
    if (!t.defined()) return {};
    return {t.data_ptr(), t.sizes().vec(), t.strides().vec(), t.scalar_type(), static_cast<int64_t>(t._version())};
}

PrecisionMapStream::PrecisionMapStream(std::vector<CapturedOp> run, MapFormats formats)
    : run_(std::move(run)), formats_(std::move(formats)), partner_(run_.size(), -1), rows_(run_.size()) {
    for (size_t k = 0; k < run_.size(); ++k) groups_[{run_[k].backward, run_[k].module}].run.push_back(k);
}

void PrecisionMapStream::measure(size_t runIndex, size_t position, const CapturedOp& ref) {
    const CapturedOp& op = run_[runIndex];
    const CapturedOutput& out = op.outputs[position];
    auto& slot = rows_[runIndex][position];
    slot.reset();
    const auto match = std::find_if(ref.outputs.begin(), ref.outputs.end(),
                                    [&](const CapturedOutput& o) { return o.index == out.index; });
    if (match == ref.outputs.end() || match->value.numel() != out.value.numel()) return;
    PrecisionMapOp row;
    row.op = op.op;
    row.module = op.module;
    row.phase = phaseOf(op);
    row.node = op.node;
    row.output = out.index;
    measureOutput(out.value, match->value, out.rerunIsValue ? out.value : out.rerun,
                  op.backward ? formats_.backward : formats_.forward, row);
    slot = std::move(row);
}

void PrecisionMapStream::pair(size_t runIndex, std::vector<CapturedOp>& reference, size_t referenceIndex) {
    partner_[runIndex] = static_cast<long>(referenceIndex);
    referencePartner_[referenceIndex] = static_cast<long>(runIndex);
    CapturedOp& ref = reference[referenceIndex];
    rows_[runIndex].assign(run_[runIndex].outputs.size(), std::nullopt);
    for (size_t p = 0; p < run_[runIndex].outputs.size(); ++p) measure(runIndex, p, ref);
    for (size_t p = 0; p < ref.outputs.size(); ++p) {
        auto& value = ref.outputs[p].value;
        if (value.defined()) compared_[{referenceIndex, p}] = Compared::of(value);
        value = torch::Tensor();  // compared: dropped
    }
}

void PrecisionMapStream::opKept(std::vector<CapturedOp>& reference, size_t index) {
    if (referencePartner_.size() < reference.size()) referencePartner_.resize(reference.size(), -1);
    const CapturedOp& ref = reference[index];
    GroupState& group = groups_[{ref.backward, ref.module}];
    const size_t position = group.reference.size();
    group.reference.push_back(index);
    if (group.diverged) return;
    // The traceback of the longest common subsequence pairs the heads of both sequences
    // whenever their names agree, and so does pairing by position: the same pairs.
    if (position < group.run.size() && run_[group.run[position]].op == ref.op) {
        pair(group.run[position], reference, index);
        group.paired = position + 1;
        return;
    }
    group.diverged = true;  // kept whole from here on, aligned at finish()
}

void PrecisionMapStream::valueReplaced(std::vector<CapturedOp>& reference, size_t index, size_t output) {
    if (index >= referencePartner_.size() || referencePartner_[index] < 0) return;  // not compared yet
    const auto runIndex = static_cast<size_t>(referencePartner_[index]);
    CapturedOp& ref = reference[index];
    auto& value = ref.outputs[output].value;
    const Compared now = Compared::of(value);
    auto& before = compared_[{index, output}];
    if (!(now == before)) {
        const int replacedIndex = ref.outputs[output].index;
        for (size_t p = 0; p < run_[runIndex].outputs.size(); ++p)
            if (run_[runIndex].outputs[p].index == replacedIndex) measure(runIndex, p, ref);
        before = now;
    }
    value = torch::Tensor();
}

PrecisionMapRecord PrecisionMapStream::finish(const std::vector<CapturedOp>& reference) {
    if (referencePartner_.size() < reference.size()) referencePartner_.resize(reference.size(), -1);
    // The groups where the names disagreed: the rest of them aligned whole, as
    // comparePrecisionMaps's alignment (the longest common subsequence of the names) would
    // continue from the first disagreement.
    for (auto& [group, state] : groups_) {
        if (!state.diverged) continue;
        const size_t n = state.run.size(), m = state.reference.size(), from = state.paired;
        std::vector<const CapturedOp*> a, b;
        for (size_t k = from; k < n; ++k) a.push_back(&run_[state.run[k]]);
        for (size_t k = from; k < m; ++k) b.push_back(&reference[state.reference[k]]);
        std::vector<std::pair<size_t, size_t>> pairs;
        if (n * m > kMaxAlignCells) {
            for (size_t k = 0; k < std::min(a.size(), b.size()); ++k)
                if (a[k]->op == b[k]->op) pairs.emplace_back(k, k);
        } else {
            pairs = alignByName(a, b);
        }
        for (const auto& [i, j] : pairs) {
            const size_t runIndex = state.run[from + i], referenceIndex = state.reference[from + j];
            partner_[runIndex] = static_cast<long>(referenceIndex);
            referencePartner_[referenceIndex] = static_cast<long>(runIndex);
            rows_[runIndex].assign(run_[runIndex].outputs.size(), std::nullopt);
            for (size_t p = 0; p < run_[runIndex].outputs.size(); ++p) measure(runIndex, p, reference[referenceIndex]);
        }
    }

    PrecisionMapRecord record;
    record.formatForward = formats_.forward.name;
    record.formatBackward = formats_.backward.name;
    record.bitsForward = formats_.forward.bits;
    record.bitsBackward = formats_.backward.bits;
    const auto unmatched = [&](const char* side, const CapturedOp& op) {
        record.unmatched.push_back({side, op.op, op.module, phaseOf(op)});
    };
    std::map<std::pair<size_t, int>, size_t> rowOf;  // (run op, output index) -> row
    for (size_t k = 0; k < run_.size(); ++k) {
        const CapturedOp& op = run_[k];
        if (partner_[k] < 0) {
            unmatched("run", op);
            continue;
        }
        for (size_t p = 0; p < op.outputs.size(); ++p) {
            if (!rows_[k][p]) {
                unmatched("run", op);
                continue;
            }
            PrecisionMapOp row = std::move(*rows_[k][p]);
            for (const auto& from : op.inputsFrom)
                if (auto it = rowOf.find(from); it != rowOf.end())
                    row.inputError = std::max(row.inputError, record.ops[it->second].relError);
            rowOf[{k, op.outputs[p].index}] = record.ops.size();
            record.ops.push_back(std::move(row));
        }
    }
    for (size_t k = 0; k < reference.size(); ++k)
        if (referencePartner_[k] < 0) unmatched("reference", reference[k]);

    std::map<std::pair<std::string, std::string>, size_t> moduleIndex;
    for (size_t k = 0; k < record.ops.size(); ++k) {
        const auto& row = record.ops[k];
        auto [it, created] = moduleIndex.try_emplace({row.phase, row.module}, record.modules.size());
        if (created) {
            PrecisionMapModule m;
            m.module = row.module;
            m.phase = row.phase;
            m.firstOp = static_cast<int64_t>(k);
            m.inputError = row.inputError;
            record.modules.push_back(std::move(m));
        }
        auto& m = record.modules[it->second];
        m.ops += 1;
        m.outputError = row.relError;
    }
    return record;
}

PrecisionMapRecord comparePrecisionMaps(const std::vector<CapturedOp>& run, const std::vector<CapturedOp>& reference,
                                        const MapFormats& formats) {
    // The stream on the finished captures: its values are dropped as they are compared,
    // from copies of the handles.
    PrecisionMapStream stream(run, formats);
    std::vector<CapturedOp> kept = reference;
    for (size_t k = 0; k < kept.size(); ++k) stream.opKept(kept, k);
    return stream.finish(kept);
}

}  // namespace ampscope
