#include "feed/RunDirectoryNaming.h"

#include <QDir>
#include <QStandardPaths>

#include "run/RunNaming.h"

namespace ampscope::ui {

QString defaultRunsRoot() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/runs");
}

QString runDisplayName(const RunConfig& config) {
    return QString::fromStdString(ampscope::runName(config));
}

QString newRunDirectory(const QString& runsRoot, const RunConfig& config, const QDateTime& when) {
    return QString::fromStdString(ampscope::newRunDirectory(
        runsRoot.toStdString(), ampscope::runName(config),
        static_cast<std::time_t>(when.toSecsSinceEpoch())));
}

QString shownPath(const QString& path) {
    const QString home = QDir::homePath();
    if (!home.isEmpty() && home != QLatin1String("/") && path.startsWith(home + QLatin1Char('/')))
        return QStringLiteral("~") + path.mid(home.size());
    return QDir::toNativeSeparators(path);
}

}  // namespace ampscope::ui
