#pragma once
// Saving a plot as a file for a write-up: PNG (2x for sharp slides), SVG or PDF, chosen
// by the file's suffix.
#include <QString>

class QCustomPlot;
class QWidget;

namespace ampscope::ui {

// Returns an empty string on success, else one line saying what failed.
QString savePlotImage(QCustomPlot* plot, const QString& path);
// Asks for a file name (suggesting `baseName`.png) and saves; reports failures in a box.
void savePlotWithDialog(QCustomPlot* plot, QWidget* parent, const QString& baseName);

}  // namespace ampscope::ui
