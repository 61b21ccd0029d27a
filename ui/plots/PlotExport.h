#pragma once
// Saving a plot for a write-up: PNG (chosen pixel size and DPI), SVG or PDF (vector),
// chosen by the file's suffix. What is saved is what the plot shows (its ranges, the
// layers selected in it, its legend), with a title drawn above it.
//
// Contract:
// - savePlotImage() returns an empty string on success, else one line naming the file
//   and what failed (an unknown suffix, a size that is not positive, a write error).
// - size: PNG in pixels, SVG and PDF in points at 96 per inch (1 px on a 96 dpi screen);
//   an unset size (QSize()) takes the plot's on-screen size. dpi (PNG only) sets how large text
//   and lines are drawn: at 192 dpi a 1600x1000 image looks like the 800x500 plot on
//   screen, twice as sharp; the DPI is also written into the PNG.
// - paintPlot() draws a plot with its title into a rectangle of any painter (a PDF
//   page, an SVG, an image) as vectors; reports use it. A title wider than the rectangle
//   wraps onto more lines (plotTitleLines), never cut.
// - installPlotExportMenu() gives a plot without a context menu of its own one with
//   "Save image…" (the time-series plots have theirs, with the same entry).
#include <QColor>
#include <QFont>
#include <QRectF>
#include <QStringList>
#include <QSize>
#include <QString>

class QCustomPlot;
class QCPPainter;
class QPaintDevice;
class QWidget;

namespace ampscope::ui {

struct PlotImageOptions {
    QString title;       // drawn above the plot; empty: no title row
    QSize size;          // see above; unset: the plot's own size
    double dpi = 192.0;  // PNG only
};

QString savePlotImage(QCustomPlot* plot, const QString& path, const PlotImageOptions& options = {});
void paintPlot(QCustomPlot* plot, QCPPainter* painter, const QRectF& rect, const QString& title,
               const QColor& titleColour = Qt::black);
// The title's font, and its lines at `width` on `device`: whole words where they fit, a
// word wider than the line split where it must be; joined with spaces they give the title
// back, so nothing of it is cut.
QFont plotTitleFont(const QCustomPlot* plot);
QStringList plotTitleLines(const QString& title, const QFont& font, QPaintDevice* device, double width);
// The title a plot is exported with: its dock's title (and the plot's own name when the
// dock holds several plots), else its object name.
QString plotExportTitle(QCustomPlot* plot);

// Asks for format, size, DPI and title, then for a file name (suggesting `baseName`);
// reports failures in a box.
void savePlotWithDialog(QCustomPlot* plot, QWidget* parent, const QString& baseName);
void installPlotExportMenu(QCustomPlot* plot);
// Every QCustomPlot under root that has no context menu yet gets the export one.
void installPlotExportMenus(QWidget* root);

}  // namespace ampscope::ui
