#include "prescribe/PrescribeRequest.h"

#include <QDir>
#include <QFileInfo>

#include "probes/Prescription.h"
#include "probes/SensitivityRecord.h"
#include "stats/SeedBand.h"

namespace ampscope::ui {

QStringList prescribeFormats() {
    QStringList formats;
    for (const std::string& format : sensitivityFormats()) formats << QString::fromStdString(format);
    return formats;
}

QString prescribeRequestProblem(const PrescribeRequest& request) {
    if (!prescribeFormats().contains(request.format))
        return QStringLiteral("Format: \"%1\" is not one the prescription takes (%2)")
            .arg(request.format, prescribeFormats().join(QStringLiteral(", ")));
    bool ok = false;
    const double budget = request.budget.trimmed().toDouble(&ok);
    if (!ok || !isPrescriptionBudget(budget))
        return QStringLiteral("Budget: \"%1\" is not a share of FLOPs in (0, 1] (0.9: at least 90% of the "
                              "FLOPs stay in the format)")
            .arg(request.budget);
    const int seeds = request.seeds.trimmed().toInt(&ok);
    if (!ok || seeds < stats::kMinimumSeeds)
        return QStringLiteral("Seeds: \"%1\" is too few: a seed band needs at least %2 seeds")
            .arg(request.seeds)
            .arg(stats::kMinimumSeeds);
    if (!request.steps.trimmed().isEmpty()) {
        const qlonglong steps = request.steps.trimmed().toLongLong(&ok);
        if (!ok || steps < 1)
            return QStringLiteral("Steps: \"%1\" is not a number of steps (1 or more; empty: the config's own "
                                  "length)")
                .arg(request.steps);
    }
    if (request.outDirectory.trimmed().isEmpty()) return QStringLiteral("Output folder: none chosen");
    const QFileInfo out(request.outDirectory);
    if (out.exists() && !out.isDir())
        return QStringLiteral("Output folder: %1 is a file (choose a new or empty folder)").arg(request.outDirectory);
    if (out.isDir() && !QDir(request.outDirectory).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
        return QStringLiteral("Output folder: %1 is not empty (choose a new or empty folder: nothing recorded is "
                              "overwritten)")
            .arg(request.outDirectory);
    if (request.configPath.isEmpty() || !QFileInfo(request.configPath).isFile())
        return QStringLiteral("Config: %1 is not a file").arg(request.configPath);
    return {};
}

QStringList prescribeArguments(const PrescribeRequest& request) {
    QStringList arguments{QStringLiteral("prescribe"), request.configPath,
                          QStringLiteral("--format"), request.format,
                          QStringLiteral("--budget"), request.budget.trimmed(),
                          QStringLiteral("--seeds"), request.seeds.trimmed(),
                          QStringLiteral("--out"), request.outDirectory};
    if (!request.steps.trimmed().isEmpty()) arguments << QStringLiteral("--steps") << request.steps.trimmed();
    arguments << QStringLiteral("--quiet") << QStringLiteral("--progress");
    return arguments;
}

}  // namespace ampscope::ui
