#include "RunDirectoryNaming.h"

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

}  // namespace ampscope::ui
