#pragma once
// ExecutionBadge: a coloured label that says plainly whether the precision mode runs for
// real or is emulated (DESIGN.md: the UI says so plainly). Orange "EMULATED" or green
// "REAL"; the tooltip holds the one-line "how" from describeExecution().
#include <QLabel>

#include "precision/PrecisionMode.h"

namespace ampscope::ui {

class ExecutionBadge : public QLabel {
    Q_OBJECT
public:
    explicit ExecutionBadge(QWidget* parent = nullptr);

    void setExecution(const ModeExecution& execution);
    bool isEmulated() const { return emulated_; }

private:
    bool emulated_ = false;
};

}  // namespace ampscope::ui
