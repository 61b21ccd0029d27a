#pragma once
// Where runs started from the window are recorded:
//   <AppDataLocation>/runs/<yyyy-MM-ddTHH-mm-ss>-<name>
// The naming rule itself is core's (run/RunNaming.h), shared with the CLI; these are the
// window's Qt-typed entry points to it.
#include <QDateTime>
#include <QString>

#include "config/RunConfig.h"

namespace ampscope::ui {

QString defaultRunsRoot();
QString runDisplayName(const RunConfig& config);
QString newRunDirectory(const QString& runsRoot, const RunConfig& config,
                        const QDateTime& when = QDateTime::currentDateTime());
// A path as the status bar names it: under the home directory as ~/..., which is how
// people read them.
QString shownPath(const QString& path);

}  // namespace ampscope::ui
