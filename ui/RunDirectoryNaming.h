#pragma once
// Where runs started from the window are recorded:
//   <AppDataLocation>/runs/<yyyy-MM-ddTHH-mm-ss>-<name>
// with <name> the config's name (or "<model>-<mode>"), reduced to characters that are
// safe in any file system. A directory that already exists gets "-2", "-3", ... so that
// a new run never lands in an old one (the writer would refuse it anyway).
#include <QDateTime>
#include <QString>

#include "config/RunConfig.h"

namespace ampscope::ui {

QString defaultRunsRoot();
QString runDisplayName(const RunConfig& config);
QString newRunDirectory(const QString& runsRoot, const RunConfig& config,
                        const QDateTime& when = QDateTime::currentDateTime());

}  // namespace ampscope::ui
