#pragma once
// RunPaceControl: the run controls' pace, "as fast as possible" or a number of steps per
// second, so that a class can watch a tiny teaching run unfold step by step.
//
// Contract:
// - stepsPerSecond() is 0 for "as fast as possible"; paceChanged is emitted on every change,
//   by the user or by setStepsPerSecond()/showScenario().
// - The pace is remembered per scenario: showScenario(name) restores the pace last chosen
//   while that scenario was shown ("as fast as possible" when none was), and a change is
//   remembered for the scenario shown (an empty name stands for runs outside scenarios).
//   With persist, the choices live in QSettings and survive restarts; without, in memory.
#include <QComboBox>
#include <QString>
#include <map>

namespace ampscope::ui {

class RunPaceControl : public QComboBox {
    Q_OBJECT
public:
    explicit RunPaceControl(bool persist, QWidget* parent = nullptr);

    double stepsPerSecond() const;
    // Picks the closest offered pace (0: as fast as possible).
    void setStepsPerSecond(double stepsPerSecond);
    void showScenario(const QString& name);
    QString shownScenario() const { return scenario_; }

Q_SIGNALS:
    void paceChanged(double stepsPerSecond);

private:
    double remembered(const QString& scenario) const;
    void remember(const QString& scenario, double stepsPerSecond);

    bool persist_;
    QString scenario_;
    std::map<QString, double> memory_;
    bool restoring_ = false;
};

}  // namespace ampscope::ui
