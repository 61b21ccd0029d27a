#include "runset/ParsedRecord.h"

#include <QtCore/QtGlobal>
#include <algorithm>

namespace ampscope::ui {

void MalformedRecords::note(const std::string& typeName, const std::string& reason) {
    ++count_;
    const std::string type = typeName.empty() ? std::string("untyped") : typeName;
    auto kind = std::find_if(kinds_.begin(), kinds_.end(), [&](const Kind& k) { return k.type == type; });
    if (kind != kinds_.end()) {
        ++kind->count;
        return;
    }
    kinds_.push_back({type, reason, 1});
    qWarning("%s: skipped a %s record: %s", reader_, type.c_str(), reason.c_str());
}

void MalformedRecords::clear() {
    count_ = 0;
    kinds_.clear();
}

QStringList MalformedRecords::warnings() const {
    QStringList lines;
    for (const Kind& kind : kinds_) {
        QString line = QStringLiteral("events.jsonl: a %1 record does not read (%2)")
                           .arg(QString::fromStdString(kind.type), QString::fromStdString(kind.reason));
        if (kind.count > 1) line += QStringLiteral("; %1 more").arg(kind.count - 1);
        lines << line;
    }
    return lines;
}

}  // namespace ampscope::ui
