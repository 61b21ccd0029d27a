#include "runset/FormatQuantHistory.h"

#include <QtGlobal>
#include <algorithm>
#include <nlohmann/json.hpp>
#include "run/RecordCodec.h"
#include "probes/ProbeRecords.h"
#include "run/EventSchema.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

namespace {

const QChar kSeparator(0x1f);

double lostToQuantization(const FormatQuantMeasurement& m) {
    return m.saturatedFraction() + m.underflowFraction();
}

int operandOrder(const QString& operand) {
    static const QStringList kOrder = {QStringLiteral("input"), QStringLiteral("weight"), QStringLiteral("output")};
    const int index = static_cast<int>(kOrder.indexOf(operand));
    return index < 0 ? static_cast<int>(kOrder.size()) : index;
}

}  // namespace

void FormatQuantHistory::beginRun(const RunContext& context) {
    (void)context;
    malformed_.clear();
    clear();
    noteChange(RunChange::FormatQuant);
}

void FormatQuantHistory::takeRunInfo(const RunInfoRecord& info) {
    if (layers_.takeRunInfo(info.layers)) noteChange(RunChange::FormatQuant);
}

void FormatQuantHistory::takeRecord(const nlohmann::json& record) {
    if (record_codec::typeOf(record) == probe_record_type::kFormatQuant && take(record))
        noteChange(RunChange::FormatQuant);
}

void FormatQuantHistory::clear() {
    layers_.clear();
    series_.clear();
}

bool FormatQuantHistory::take(const nlohmann::json& record) {
    auto read = parsedRecord(record, formatQuantRecordFromJson, malformed_);
    if (!read) return false;
    const FormatQuantRecord& parsed = *read;
    const QString key = keyOf(parsed.point);
    Series& s = series_.try_emplace(key, kMaxKeptProbeSteps, lostToQuantization).first->second;
    FormatQuantMeasurement* entry = s.entryFor(parsed.step);
    if (!entry) return false;
    *entry = parsed.point;
    layers_.add(QString::fromStdString(parsed.point.layer));
    return true;
}

QString FormatQuantHistory::keyOf(const FormatQuantMeasurement& point) {
    return QString::fromStdString(point.layer) + kSeparator + QString::fromStdString(point.operand) +
           kSeparator + QString::fromStdString(point.direction);
}

QString FormatQuantHistory::label(const QString& key) {
    const QStringList parts = key.split(kSeparator);
    if (parts.size() != 3) return key;
    return QStringLiteral("%1: %2 (%3)").arg(parts[0], parts[1], parts[2]);
}

QStringList FormatQuantHistory::points() const {
    QStringList keys;
    for (const auto& [key, s] : series_) keys << key;
    std::sort(keys.begin(), keys.end(), [this](const QString& a, const QString& b) {
        const QStringList pa = a.split(kSeparator), pb = b.split(kSeparator);
        const auto rank = [this](const QStringList& p) {
            return std::make_tuple(layers_.indexOf(p.value(0)), p.value(2) == QLatin1String("forward") ? 0 : 1,
                                   operandOrder(p.value(1)), p.value(1));
        };
        return rank(pa) < rank(pb);
    });
    return keys;
}

const FormatQuantHistory::Series* FormatQuantHistory::series(const QString& key) const {
    const auto it = series_.find(key);
    return it == series_.end() ? nullptr : &it->second;
}

}  // namespace ampscope::ui
