#include "plots/PlotExport.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPdfWriter>
#include <QSpinBox>
#include <QSvgGenerator>
#include <cmath>

#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {
namespace {

constexpr double kScreenDpi = 96.0;

// Draws into a painter already begun on `device`, at logical size `size`.
bool paintInto(QCustomPlot* plot, QCPPainter& painter, QSizeF size, const QString& title) {
    if (!painter.isActive()) return false;
    painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    paintPlot(plot, &painter, QRectF(QPointF(0, 0), size), title);
    return painter.end();
}

// The longest start of `word` that fits in `width` (at least one character).
int fittingPrefix(const QString& word, const QFontMetricsF& metrics, double width) {
    int length = 1;
    while (length < word.size() && metrics.horizontalAdvance(word.left(length + 1)) <= width) ++length;
    return length;
}

}  // namespace

QFont plotTitleFont(const QCustomPlot* plot) {
    QFont font = plot->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 1.15 : 11.0);
    return font;
}

QStringList plotTitleLines(const QString& title, const QFont& font, QPaintDevice* device, double width) {
    const QFontMetricsF metrics(font, device);
    QStringList lines;
    QString line;
    for (QString word : title.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString joined = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (metrics.horizontalAdvance(joined) <= width) {
            line = joined;
            continue;
        }
        if (!line.isEmpty()) lines << line;
        // A word wider than the line (a long layer path) is split where it must be.
        while (metrics.horizontalAdvance(word) > width && word.size() > 1) {
            const int length = fittingPrefix(word, metrics, width);
            lines << word.left(length);
            word = word.mid(length);
        }
        line = word;
    }
    if (!line.isEmpty()) lines << line;
    return lines;
}

void paintPlot(QCustomPlot* plot, QCPPainter* painter, const QRectF& rect, const QString& title,
               const QColor& titleColour) {
    painter->save();
    painter->translate(rect.topLeft());
    double top = 0.0;
    if (!title.isEmpty()) {
        // Wrapped to the plot's width: a title cut at both ends loses what it names.
        const QFont font = plotTitleFont(plot);
        painter->setFont(font);
        const QStringList lines = plotTitleLines(title, font, painter->device(), rect.width());
        const double lineHeight = QFontMetricsF(font, painter->device()).height();
        top = std::ceil(lineHeight * (lines.size() + 0.6));
        painter->setPen(titleColour);
        for (int i = 0; i < lines.size(); ++i)
            painter->drawText(QRectF(0, lineHeight * (0.3 + i), rect.width(), lineHeight), Qt::AlignCenter,
                              lines[i]);
    }
    painter->translate(0, top);
    plot->toPainter(painter, static_cast<int>(rect.width()),
                    std::max(1, static_cast<int>(rect.height() - top)));
    painter->restore();
}

QString savePlotImage(QCustomPlot* plot, const QString& path, const PlotImageOptions& options) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize size = options.size.isValid() ? options.size : plot->size();
    if (size.width() <= 0 || size.height() <= 0)
        return QStringLiteral("%1: the image size must be positive (got %2x%3)")
            .arg(path)
            .arg(size.width())
            .arg(size.height());
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        if (!(options.dpi >= 24.0 && options.dpi <= 2400.0))
            return QStringLiteral("%1: DPI must be between 24 and 2400 (got %2)")
                .arg(path)
                .arg(options.dpi);
        const double scale = options.dpi / kScreenDpi;
        QImage image(size, QImage::Format_ARGB32);
        const int dotsPerMeter = static_cast<int>(std::lround(options.dpi / 0.0254));
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        image.fill(Qt::white);
        QCPPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.scale(scale, scale);
        ok = paintInto(plot, painter, QSizeF(size) / scale, options.title) &&
             image.save(path, "PNG");
    } else if (suffix == QLatin1String("pdf")) {
        QPdfWriter writer(path);
        writer.setResolution(static_cast<int>(kScreenDpi));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setPageSize(
            QPageSize(QSizeF(size.width() * 72.0 / kScreenDpi, size.height() * 72.0 / kScreenDpi),
                      QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setTitle(options.title.isEmpty() ? plot->objectName() : options.title);
        writer.setCreator(QStringLiteral("AmpScope"));
        QCPPainter painter(&writer);
        ok = paintInto(plot, painter, QSizeF(size), options.title);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(static_cast<int>(kScreenDpi));
        generator.setTitle(options.title.isEmpty() ? plot->objectName() : options.title);
        QCPPainter painter(&generator);
        ok = paintInto(plot, painter, QSizeF(size), options.title);
    } else {
        return QStringLiteral("%1: unknown image type '%2' (use .png, .svg or .pdf)")
            .arg(path, suffix);
    }
    if (ok && QFileInfo(path).size() > 0) return {};
    return QStringLiteral("%1: could not be written").arg(path);
}

QString plotExportTitle(QCustomPlot* plot) {
    for (QWidget* w = plot->parentWidget(); w; w = w->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(w)) {
            const int plots = static_cast<int>(dock->findChildren<QCustomPlot*>().size());
            return plots > 1 ? dock->windowTitle() + QStringLiteral(" — ") + plot->objectName()
                             : dock->windowTitle();
        }
    return plot->objectName();
}

void savePlotWithDialog(QCustomPlot* plot, QWidget* parent, const QString& baseName) {
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("Save plot"));
    auto* form = new QFormLayout(&dialog);
    auto* format = new QComboBox(&dialog);
    format->addItem(QObject::tr("PNG image"), QStringLiteral("png"));
    format->addItem(QObject::tr("SVG drawing (vector)"), QStringLiteral("svg"));
    format->addItem(QObject::tr("PDF document (vector)"), QStringLiteral("pdf"));
    auto* width = new QSpinBox(&dialog);
    auto* height = new QSpinBox(&dialog);
    for (QSpinBox* box : {width, height}) {
        box->setRange(50, 20000);
        box->setSuffix(QObject::tr(" px"));
    }
    width->setValue(std::max(50, plot->width() * 2));
    height->setValue(std::max(50, plot->height() * 2));
    auto* dpi = new QSpinBox(&dialog);
    dpi->setRange(24, 2400);
    dpi->setValue(192);
    auto* title = new QLineEdit(plotExportTitle(plot), &dialog);
    form->addRow(QObject::tr("Format"), format);
    form->addRow(QObject::tr("Width"), width);
    form->addRow(QObject::tr("Height"), height);
    form->addRow(QObject::tr("DPI (PNG)"), dpi);
    form->addRow(QObject::tr("Title"), title);
    QObject::connect(format, &QComboBox::currentIndexChanged, &dialog, [=] {
        // Vector formats: the size is the page size in screen pixels, DPI does not apply.
        const bool png = format->currentData().toString() == QLatin1String("png");
        dpi->setEnabled(png);
        const QString unit = png ? QObject::tr(" px") : QObject::tr(" pt@96");
        width->setSuffix(unit);
        height->setSuffix(unit);
        if (!png) {
            width->setValue(std::max(50, plot->width()));
            height->setValue(std::max(50, plot->height()));
        }
    });
    auto* buttons =
        new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return;

    const QString suffix = format->currentData().toString();
    const QString name = baseName.isEmpty() ? QStringLiteral("plot") : baseName;
    const QString path = QFileDialog::getSaveFileName(
        parent, QObject::tr("Save plot"), name + QLatin1Char('.') + suffix,
        format->currentText() + QStringLiteral(" (*.") + suffix + QLatin1Char(')'));
    if (path.isEmpty()) return;
    const QString error = savePlotImage(
        plot, QFileInfo(path).suffix().isEmpty() ? path + QLatin1Char('.') + suffix : path,
        {title->text(), QSize(width->value(), height->value()), double(dpi->value())});
    if (!error.isEmpty()) QMessageBox::warning(parent, QObject::tr("Save plot"), error);
}

void installPlotExportMenu(QCustomPlot* plot) {
    if (plot->contextMenuPolicy() == Qt::CustomContextMenu) return;  // has its own
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot](const QPoint& at) {
        QMenu menu(plot);
        QAction* save = menu.addAction(QObject::tr("Save image…"));
        QObject::connect(save, &QAction::triggered, plot,
                         [plot] { savePlotWithDialog(plot, plot, plot->objectName()); });
        menu.exec(plot->mapToGlobal(at));
    });
}

void installPlotExportMenus(QWidget* root) {
    for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) installPlotExportMenu(plot);
}

}  // namespace ampscope::ui
