#pragma once
// ExecutionBadge: a coloured label that says plainly whether the precision mode runs for
// real or is emulated (DESIGN.md: the UI says so plainly). Orange "EMULATED" or green
// "REAL"; blue "RECORDED" for a run recorded from a user's PyTorch process (its "how"
// opens with "recorded from a PyTorch run", RunFacts.h). The tooltip holds the one-line
// "how" from describeExecution(), or the recorder's versions and device.
#include <QLabel>

#include "precision/PrecisionMode.h"

namespace ampscope::ui {

class ExecutionBadge : public QLabel {
    Q_OBJECT
public:
    explicit ExecutionBadge(QWidget* parent = nullptr);

    void setExecution(const ModeExecution& execution);
    bool isEmulated() const { return emulated_; }
    bool isRecorded() const { return recorded_; }

private:
    bool emulated_ = false;
    bool recorded_ = false;
};

}  // namespace ampscope::ui
