#pragma once
// Where a report goes (ReportWriter.h): a PDF (A4, 96-dpi coordinates, vector plots,
// paginated so that a fragment or a plot row starts a new page rather than being cut,
// a fragment taller than a page continuing on the next) or a self-contained HTML file
// (the report's styles inline, each plot row an embedded SVG). The sections are written
// once, to a ReportSink, whichever it is.
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

class QCustomPlot;

namespace ampscope::ui {

// The report as the two outputs receive it.
class ReportSink {
public:
    virtual ~ReportSink() = default;
    virtual void html(const QString& fragment) = 0;
    virtual void plot(QCustomPlot* plot, const QString& title, double aspect) = 0;
    // Plots side by side, each its own title, in one row `aspect` x the width high.
    // `heading` (HTML) stays on the page of the row it introduces.
    virtual void plotRow(const QString& heading, const std::vector<QCustomPlot*>& plots, const QStringList& titles,
                         double aspect) = 0;
    virtual void pageBreak() = 0;
    // Empty, or one line saying what failed.
    virtual QString finish() = 0;
};

// The PDF at `path` (the caller checked that it can be written: QPdfWriter cannot say).
std::unique_ptr<ReportSink> pdfReportSink(const QString& path, const QString& title);
// The HTML file at `path`, written whole (QSaveFile) by finish().
std::unique_ptr<ReportSink> htmlReportSink(const QString& path, const QString& title);

}  // namespace ampscope::ui
