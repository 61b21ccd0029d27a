#pragma once
// The row above a probe dock's plots: each chooser after its label, a little space
// between them, then a note that wraps and takes the rest of the width (the dock says
// there how to read what its plots show). The gradient histogram and underflow docks
// build their controls with it, so that they line up alike.
#include <QString>
#include <initializer_list>

class QHBoxLayout;
class QLabel;
class QWidget;

namespace ampscope::ui {

struct LabelledChooser {
    QString label;  // "Layer:"
    QWidget* chooser = nullptr;
};

// A word-wrapping label for the note, named `objectName` (tests find it by name); left
// out (no height, nothing drawn) where it gets less than twelve characters' width.
QLabel* makeDockNote(QWidget* dock, const QString& objectName);

// The row: labels and choosers in order, then `note` stretched. The caller adds the row
// to its layout.
QHBoxLayout* makeChooserRow(QWidget* dock, std::initializer_list<LabelledChooser> choosers,
                            QLabel* note);

}  // namespace ampscope::ui
