#include "report/ReportSink.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QPageLayout>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextDocument>
#include <algorithm>

#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "report/ReportText.h"

namespace ampscope::ui {
namespace {

constexpr int kDpi = 96;             // report coordinates are 96-dpi pixels
constexpr int kHtmlPlotWidth = 900;  // plots in the HTML file, before the browser scales them

// Plots side by side in `rect`, equal widths, each under its own title.
void paintRow(const std::vector<QCustomPlot*>& plots, const QStringList& titles, QCPPainter* painter,
              const QRectF& rect) {
    const double gap = plots.size() > 1 ? 8.0 : 0.0;
    const double width = (rect.width() - gap * static_cast<double>(plots.size() - 1)) / static_cast<double>(plots.size());
    for (std::size_t i = 0; i < plots.size(); ++i)
        paintPlot(plots[i], painter,
                  QRectF(rect.left() + static_cast<double>(i) * (width + gap), rect.top(), width, rect.height()),
                  titles.value(static_cast<qsizetype>(i)));
}

class PdfSink : public ReportSink {
public:
    PdfSink(const QString& path, const QString& title) : writer_(path) {
        writer_.setResolution(kDpi);
        writer_.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                          QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter));
        writer_.setTitle(title);
        writer_.setCreator(QStringLiteral("AmpScope"));
        painter_.begin(&writer_);
        const QRect page = writer_.pageLayout().paintRectPixels(kDpi);
        width_ = page.width();
        height_ = page.height();
    }

    void html(const QString& fragment) override {
        if (!painter_.isActive()) return;
        QTextDocument document;
        layOut(document, fragment);
        const double height = document.size().height();
        if (y_ > 0 && y_ + height > height_) newPage();
        // A fragment taller than a page continues on the next ones.
        for (double offset = 0; offset < height; offset += height_ - y_) {
            if (offset > 0) newPage();
            const double slice = std::min(height - offset, height_ - y_);
            painter_.save();
            painter_.translate(0, y_ - offset);
            document.drawContents(&painter_, QRectF(0, offset, width_, slice));
            painter_.restore();
            y_ += slice;
            if (offset + slice >= height) break;
        }
        y_ += 6;
    }

    void plot(QCustomPlot* plot, const QString& title, double aspect) override {
        if (!painter_.isActive()) return;
        const double height = std::min<double>(width_ * aspect, height_);
        if (y_ > 0 && y_ + height > height_) newPage();
        paintPlot(plot, &painter_, QRectF(0, y_, width_, height), title);
        y_ += height + 10;
    }

    void plotRow(const QString& heading, const std::vector<QCustomPlot*>& plots, const QStringList& titles,
                 double aspect) override {
        if (!painter_.isActive() || plots.empty()) return;
        const double height = std::min<double>(width_ * aspect, height_);
        QTextDocument document;
        layOut(document, heading);
        const double headingHeight = document.size().height() + 6;
        if (y_ > 0 && y_ + headingHeight + height > height_) newPage();
        html(heading);
        paintRow(plots, titles, &painter_, QRectF(0, y_, width_, height));
        y_ += height + 10;
    }

    void pageBreak() override {
        if (y_ > 0) newPage();
    }

    QString finish() override {
        if (!painter_.isActive() || !painter_.end()) return QStringLiteral("could not be written");
        return {};
    }

private:
    // A fragment as the page will draw it: the page's width, the report's styles.
    void layOut(QTextDocument& document, const QString& fragment) {
        document.documentLayout()->setPaintDevice(&writer_);
        document.setDocumentMargin(0);
        document.setDefaultStyleSheet(report_text::styleSheet());
        document.setHtml(fragment);
        document.setTextWidth(width_);
    }

    void newPage() {
        writer_.newPage();
        y_ = 0;
    }

    QPdfWriter writer_;
    QCPPainter painter_;
    double width_ = 0, height_ = 0, y_ = 0;
};

class HtmlSink : public ReportSink {
public:
    HtmlSink(QString path, const QString& title) : path_(std::move(path)) {
        body_ = QStringLiteral(
                    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"generator\" content=\"AmpScope\"><title>%1</title><style>")
                    .arg(title.toHtmlEscaped()) +
                report_text::styleSheet() +
                QStringLiteral(
                    " body { max-width: 960px; margin: 16px auto; font-size: 10.5pt; }"
                    " figure { margin: 10px 0; } figure img { width: 100%; height: auto; }"
                    " hr.page { border: 0; border-top: 2px solid #90a4ae; margin: 24px 0; }"
                    "</style></head><body>\n");
    }

    void html(const QString& fragment) override { body_ += fragment + QLatin1Char('\n'); }

    void plot(QCustomPlot* plot, const QString& title, double aspect) override {
        plotRow(QString(), {plot}, {title}, aspect);
    }

    void plotRow(const QString& heading, const std::vector<QCustomPlot*>& plots, const QStringList& titles,
                 double aspect) override {
        if (!heading.isEmpty()) html(heading);
        const QString title = titles.join(QStringLiteral(" | "));
        const QSize size(kHtmlPlotWidth, static_cast<int>(kHtmlPlotWidth * aspect));
        QBuffer svg;
        svg.open(QIODevice::WriteOnly);
        {
            QSvgGenerator generator;
            generator.setOutputDevice(&svg);
            generator.setSize(size);
            generator.setViewBox(QRect(QPoint(0, 0), size));
            generator.setResolution(kDpi);
            generator.setTitle(title);
            QCPPainter painter(&generator);
            painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
            paintRow(plots, titles, &painter, QRectF(QPointF(0, 0), QSizeF(size)));
            painter.end();
        }
        body_ += QStringLiteral(
                     "<figure><img alt=\"%1\" src=\"data:image/svg+xml;base64,%2\"></figure>\n")
                     .arg(title.toHtmlEscaped(), QString::fromLatin1(svg.data().toBase64()));
    }

    void pageBreak() override { body_ += QStringLiteral("<hr class=\"page\">\n"); }

    QString finish() override {
        body_ += QStringLiteral("</body></html>\n");
        QSaveFile file(path_);
        if (!file.open(QIODevice::WriteOnly))
            return QStringLiteral("cannot be written (%1)").arg(file.errorString());
        file.write(body_.toUtf8());
        if (!file.commit())
            return QStringLiteral("could not be written (%1)").arg(file.errorString());
        return {};
    }

private:
    QString path_;
    QString body_;
};

}  // namespace

std::unique_ptr<ReportSink> pdfReportSink(const QString& path, const QString& title) {
    return std::make_unique<PdfSink>(path, title);
}

std::unique_ptr<ReportSink> htmlReportSink(const QString& path, const QString& title) {
    return std::make_unique<HtmlSink>(path, title);
}

}  // namespace ampscope::ui
