#include "plots/PlotExport.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSvgGenerator>

#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

QString savePlotImage(QCustomPlot* plot, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const int width = plot->width();
    const int height = plot->height();
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot->savePng(path, width, height, 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot->savePdf(path, width, height);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(QSize(width, height));
        generator.setViewBox(QRect(0, 0, width, height));
        generator.setTitle(plot->objectName());
        QCPPainter painter;
        ok = painter.begin(&generator);
        if (ok) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
    } else {
        return QStringLiteral("%1: unknown image type '%2' (use .png, .svg or .pdf)")
            .arg(path, suffix);
    }
    return ok ? QString() : QStringLiteral("%1: could not be written").arg(path);
}

void savePlotWithDialog(QCustomPlot* plot, QWidget* parent, const QString& baseName) {
    const QString name = baseName.isEmpty() ? QStringLiteral("plot") : baseName;
    const QString path = QFileDialog::getSaveFileName(
        parent, QObject::tr("Save plot"), name + QStringLiteral(".png"),
        QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return;
    const QString error = savePlotImage(plot, path);
    if (!error.isEmpty()) QMessageBox::warning(parent, QObject::tr("Save plot"), error);
}

}  // namespace ampscope::ui
