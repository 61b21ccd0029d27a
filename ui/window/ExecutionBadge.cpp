#include "window/ExecutionBadge.h"

#include "runset/RunFacts.h"

namespace ampscope::ui {

ExecutionBadge::ExecutionBadge(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("executionBadge"));
    setAlignment(Qt::AlignCenter);
    setExecution({false, "fp32 as is"});
}

void ExecutionBadge::setExecution(const ModeExecution& execution) {
    emulated_ = execution.emulated;
    recorded_ = isRecordedExecution(execution.how);
    if (recorded_) {
        // Neither the lab's real nor its emulated mode: a user's PyTorch process ran it.
        setText(tr("RECORDED"));
        setStyleSheet(
            QStringLiteral("QLabel { background: #1565c0; color: white; "
                           "font-weight: bold; border-radius: 3px; "
                           "padding: 1px 6px; }"));
    } else if (emulated_) {
        setText(tr("EMULATED"));
        setStyleSheet(
            QStringLiteral("QLabel { background: #d35400; color: white; "
                           "font-weight: bold; border-radius: 3px; "
                           "padding: 1px 6px; }"));
    } else {
        setText(tr("REAL"));
        setStyleSheet(
            QStringLiteral("QLabel { background: #2e7d32; color: white; "
                           "font-weight: bold; border-radius: 3px; "
                           "padding: 1px 6px; }"));
    }
    setToolTip(QString::fromStdString(execution.how));
}

}  // namespace ampscope::ui
