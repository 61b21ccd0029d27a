#include "views/ChooserRow.h"

#include <QHBoxLayout>
#include <QLabel>

namespace ampscope::ui {

QLabel* makeDockNote(QWidget* dock, const QString& objectName) {
    auto* note = new QLabel(dock);
    note->setObjectName(objectName);
    note->setWordWrap(true);
    // Ignored width: a long note wraps instead of widening the dock.
    note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return note;
}

QHBoxLayout* makeChooserRow(QWidget* dock, std::initializer_list<LabelledChooser> choosers,
                            QLabel* note) {
    auto* row = new QHBoxLayout;
    for (const LabelledChooser& c : choosers) {
        if (!c.label.isEmpty()) row->addWidget(new QLabel(c.label, dock));  // a check box names itself
        row->addWidget(c.chooser);
        row->addSpacing(8);
    }
    row->addWidget(note, 1);
    return row;
}

}  // namespace ampscope::ui
