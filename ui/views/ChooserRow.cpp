#include "views/ChooserRow.h"

#include <QHBoxLayout>
#include <QLabel>

namespace ampscope::ui {

namespace {

// A note squeezed narrower than this many characters (large text on a projector, a narrow
// dock) is left out: wrapped a word a line it would stand taller than the plots beneath.
constexpr int kLeastNoteCharacters = 12;

class DockNote : public QLabel {
public:
    using QLabel::QLabel;
    int heightForWidth(int width) const override { return roomy(width) ? QLabel::heightForWidth(width) : 0; }

protected:
    void paintEvent(QPaintEvent* event) override {
        if (roomy(width())) QLabel::paintEvent(event);
    }

private:
    bool roomy(int width) const { return width >= kLeastNoteCharacters * fontMetrics().averageCharWidth(); }
};

}  // namespace

QLabel* makeDockNote(QWidget* dock, const QString& objectName) {
    auto* note = new DockNote(dock);
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
