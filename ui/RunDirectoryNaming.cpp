#include "RunDirectoryNaming.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ampscope::ui {

QString defaultRunsRoot() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/runs");
}

QString runDisplayName(const RunConfig& config) {
    if (!config.name.empty()) return QString::fromStdString(config.name);
    return QString::fromStdString(config.model.name + "-" + config.precision.mode);
}

QString newRunDirectory(const QString& runsRoot, const RunConfig& config, const QDateTime& when) {
    QString name;
    for (QChar c : runDisplayName(config)) {
        const bool safe = (c.isLetterOrNumber() && c.unicode() < 128) || c == QLatin1Char('-') ||
                          c == QLatin1Char('_') || c == QLatin1Char('.');
        name += safe ? c : QLatin1Char('-');
    }
    if (name.isEmpty()) name = QStringLiteral("run");
    const QString base = runsRoot + QLatin1Char('/') +
                         when.toString(QStringLiteral("yyyy-MM-ddTHH-mm-ss")) + QLatin1Char('-') +
                         name;
    QString candidate = base;
    for (int n = 2; QFileInfo::exists(candidate); ++n)
        candidate = base + QLatin1Char('-') + QString::number(n);
    return candidate;
}

}  // namespace ampscope::ui
