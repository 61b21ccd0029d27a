#include "report/ReportWriter.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPageLayout>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextDocument>
#include <memory>
#include <vector>

#include "plots/LossPlot.h"
#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "plots/ScalePlot.h"
#include "report/ReportRun.h"
#include "report/ReportRunViews.h"
#include "report/ReportText.h"
#include "run/JobNonFiniteOrigin.h"
#include "run/RunReader.h"
#include "views/GradientHistogramView.h"

namespace ampscope::ui {
namespace {

constexpr int kDpi = 96;              // report coordinates are 96-dpi pixels
constexpr int kHtmlPlotWidth = 900;   // plots in the HTML file, before the browser scales them
constexpr double kPlotAspect = 0.42;  // height / width of a time-series plot
constexpr double kHeatmapAspect = 0.55;

// The report as the two outputs receive it.
class ReportSink {
public:
    virtual ~ReportSink() = default;
    virtual void html(const QString& fragment) = 0;
    virtual void plot(QCustomPlot* plot, const QString& title, double aspect) = 0;
    virtual void pageBreak() = 0;
    // Empty, or one line saying what failed.
    virtual QString finish() = 0;
};

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
        document.documentLayout()->setPaintDevice(&writer_);
        document.setDocumentMargin(0);
        document.setDefaultStyleSheet(report_text::styleSheet());
        document.setHtml(fragment);
        document.setTextWidth(width_);
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

    void pageBreak() override {
        if (y_ > 0) newPage();
    }

    QString finish() override {
        if (!painter_.isActive() || !painter_.end()) return QStringLiteral("could not be written");
        return {};
    }

private:
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
            paintPlot(plot, &painter, QRectF(QPointF(0, 0), QSizeF(size)), title);
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

void writeRunSection(const ReportRun& run, bool comparison, ReportSink& sink) {
    using namespace report_text;
    sink.html(runFactsHtml(run, comparison) + resultsTableHtml(run));
    if (const QString narrative = narrativeHtml(run); !narrative.isEmpty()) sink.html(narrative);

    ReportRunViews views(run);
    const QString prefix = comparison ? run.title + QStringLiteral(": ") : QString();
    sink.plot(views.loss(), prefix + QStringLiteral("Loss"), kPlotAspect);
    sink.plot(views.scale(), prefix + QStringLiteral("Loss scale"), kPlotAspect);
    if (views.hasHistograms()) {
        QStringList layers = views.affectedLayers(2);
        if (layers.isEmpty()) layers << views.histograms()->layer();  // the view's own choice
        for (const QString& layer : layers) {
            if (!views.showHistogramOf(layer) && layer != views.histograms()->layer()) continue;
            sink.plot(views.histogramHeatmap(),
                      prefix + QStringLiteral("Gradient histogram: %1, %2")
                                   .arg(layer, views.histogramKindText()),
                      kHeatmapAspect);
        }
        if (views.affectedLayers(2).isEmpty())
            sink.html(QStringLiteral("<p class=\"note\">No layer lost gradient elements to fp16 "
                                     "(flushed, subnormal or overflowed) at the probe steps; the "
                                     "histogram shows %1.</p>")
                          .arg(views.histograms()->layer().toHtmlEscaped()));
    } else {
        sink.html(QStringLiteral(
            "<p class=\"note\">No gradient histograms were recorded in this run.</p>"));
    }
    if (views.hasUnderflow()) {
        sink.plot(
            views.underflowHeatmap(),
            prefix + QStringLiteral(
                         "Underflow: fraction of scaled parameter-gradient elements flushed to 0"),
            kHeatmapAspect);
        if (!views.anyFlushed())
            sink.html(
                QStringLiteral("<p class=\"note\">No scaled parameter-gradient element was flushed "
                               "to 0 at any probe step: the map is empty.</p>"));
    }
    sink.html(numberFormatsHtml(run));
    sink.html(nanDiagnosisHtml(run));
    if (const QString warnings = warningsHtml(run); !warnings.isEmpty()) sink.html(warnings);
}

// One run of the report: a run directory given, or a rank of a job folder given.
struct ReportInput {
    QString directory;
    QString shown;  // as the report names it
    QString job;    // the job folder's name, for a rank; else empty
    QString jobShown;
};

std::vector<ReportInput> reportInputs(const QStringList& directories, const QMap<QString, QString>& shown) {
    std::vector<ReportInput> inputs;
    for (const QString& directory : directories) {
        const QString name = shown.value(directory, QDir::cleanPath(directory));
        const std::vector<std::string> ranks = rankRunDirectories(QDir::cleanPath(directory).toStdString());
        if (ranks.empty()) {
            inputs.push_back({directory, name, {}, {}});
            continue;
        }
        for (const std::string& rank : ranks) {
            const QString rankName = QFileInfo(QString::fromStdString(rank)).fileName();
            inputs.push_back({QString::fromStdString(rank), name + QLatin1Char('/') + rankName,
                              QFileInfo(QDir::cleanPath(directory)).fileName(), name});
        }
    }
    return inputs;
}

// For each job folder: which rank the first NaN came from (JobNonFiniteOrigin.h).
QString jobOriginsHtml(const std::vector<ReportInput>& inputs, const std::vector<ReportRun>& runs) {
    QString html;
    for (std::size_t i = 0; i < inputs.size();) {
        std::size_t end = i + 1;
        if (inputs[i].job.isEmpty()) {
            i = end;
            continue;
        }
        while (end < inputs.size() && inputs[end].jobShown == inputs[i].jobShown) ++end;
        std::vector<RankNonFinite> ranks;
        for (std::size_t r = i; r < end; ++r)
            ranks.push_back({rankOfDirectory(inputs[r].directory.toStdString()),
                             runs[r].nonFinite ? std::optional(runs[r].nonFinite->event) : std::nullopt});
        const std::string origin = jobNonFiniteOrigin(ranks);
        html += QStringLiteral("<p><b>Job %1</b> (%2 ranks): %3.</p>")
                    .arg(inputs[i].jobShown.toHtmlEscaped())
                    .arg(end - i)
                    .arg(origin.empty() ? QStringLiteral("no rank went non-finite")
                                        : QString::fromStdString(origin).toHtmlEscaped());
        i = end;
    }
    return html;
}

}  // namespace

QString writeReport(const QStringList& runDirectories, const ReportOptions& options) {
    const QString path = options.outputPath;
    if (runDirectories.isEmpty()) return QStringLiteral("no run directory given");
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool pdf = suffix == QLatin1String("pdf");
    if (!pdf && suffix != QLatin1String("html") && suffix != QLatin1String("htm"))
        return QStringLiteral("%1: unknown report type '%2' (use .pdf or .html)").arg(path, suffix);

    // A job folder of torch.distributed ranks: each rank is a run of the report.
    const std::vector<ReportInput> inputs = reportInputs(runDirectories, options.shownDirectories);
    const int total = 2 * static_cast<int>(inputs.size()) + 1;
    int done = 0;
    const auto step = [&](const QString& what) {
        return !options.progress || options.progress(done++, total, what);
    };

    std::vector<ReportRun> runs;
    for (const ReportInput& input : inputs) {
        if (!step(QStringLiteral("Reading %1").arg(input.shown))) return QStringLiteral("cancelled");
        try {
            runs.push_back(loadReportRun(input.directory));
        } catch (const std::exception& e) {
            // A copy's problem, named as the user named the run.
            return QString::fromUtf8(e.what()).replace(QDir::cleanPath(input.directory), input.shown);
        }
        runs.back().shownDirectory = input.shown;
        if (!input.job.isEmpty()) runs.back().title = input.job + QLatin1Char('/') + runs.back().title;
    }
    const QString jobs = jobOriginsHtml(inputs, runs);

    const QString title = runs.size() == 1
                              ? QStringLiteral("AmpScope report: %1").arg(runs[0].title)
                              : QStringLiteral("AmpScope comparison of %1 runs").arg(runs.size());
    std::unique_ptr<ReportSink> sink;
    if (pdf) {
        // QPdfWriter cannot say that it failed to open its file: check that we can write it.
        QFile probe(path);
        if (!probe.open(QIODevice::WriteOnly))
            return QStringLiteral("%1: cannot be written (%2)").arg(path, probe.errorString());
        probe.close();
        sink = std::make_unique<PdfSink>(path, title);
    } else {
        sink = std::make_unique<HtmlSink>(path, title);
    }
    const bool comparison = runs.size() > 1;
    sink->html(report_text::headerHtml(runs, options.generated) + jobs +
               report_text::comparisonHtml(runs));
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!step(QStringLiteral("Drawing %1").arg(runs[i].title))) {
            sink->finish();
            QFile::remove(path);
            return QStringLiteral("cancelled");
        }
        if (comparison) sink->pageBreak();
        writeRunSection(runs[i], comparison, *sink);
    }
    step(QStringLiteral("Writing %1").arg(path));
    if (const QString error = sink->finish(); !error.isEmpty())
        return path + QStringLiteral(": ") + error;
    if (options.progress) options.progress(total, total, QStringLiteral("Done"));
    return {};
}

}  // namespace ampscope::ui
