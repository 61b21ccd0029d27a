#include "window/RunPaceControl.h"

#include <QSettings>
#include <QUrl>
#include <cmath>

namespace ampscope::ui {

namespace {

// Slow enough to follow one step at a time, up to where the plots still read as motion.
constexpr double kPaces[] = {0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0};

// A lesson's key is its path: encoded, so that its slashes are not settings groups (a
// built-in's name encodes to itself).
QString settingsKey(const QString& scenario) {
    return QStringLiteral("pace/") +
           (scenario.isEmpty() ? QStringLiteral("-") : QString::fromLatin1(QUrl::toPercentEncoding(scenario)));
}

}  // namespace

RunPaceControl::RunPaceControl(bool persist, QWidget* parent) : QComboBox(parent), persist_(persist) {
    setObjectName(QStringLiteral("runPace"));
    for (double pace : kPaces)
        addItem(pace == 0.0 ? tr("as fast as possible") : tr("%1 steps/s").arg(pace), pace);
    setToolTip(tr("How fast the run trains: as fast as possible, or a few steps a second so "
                  "that a class can watch it unfold (remembered per scenario)"));
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(this, &QComboBox::currentIndexChanged, this, [this] {
        const double pace = stepsPerSecond();
        if (!restoring_) remember(scenario_, pace);
        Q_EMIT paceChanged(pace);
    });
    showScenario(QString());
}

double RunPaceControl::stepsPerSecond() const {
    return currentData().toDouble();
}

void RunPaceControl::setStepsPerSecond(double stepsPerSecond) {
    int best = 0;
    for (int i = 1; i < count(); ++i)
        if (std::abs(itemData(i).toDouble() - stepsPerSecond) <
            std::abs(itemData(best).toDouble() - stepsPerSecond))
            best = i;
    setCurrentIndex(best);
}

void RunPaceControl::showScenario(const QString& name) {
    scenario_ = name;
    restoring_ = true;
    setStepsPerSecond(remembered(name));
    restoring_ = false;
}

double RunPaceControl::remembered(const QString& scenario) const {
    if (persist_) return QSettings().value(settingsKey(scenario), 0.0).toDouble();
    const auto it = memory_.find(scenario);
    return it == memory_.end() ? 0.0 : it->second;
}

void RunPaceControl::remember(const QString& scenario, double stepsPerSecond) {
    if (persist_)
        QSettings().setValue(settingsKey(scenario), stepsPerSecond);
    else
        memory_[scenario] = stepsPerSecond;
}

}  // namespace ampscope::ui
