#include "report/ReportWriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <memory>
#include <vector>

#include "views/LossPlot.h"
#include "views/ScalePlot.h"
#include "report/ReportBandDigest.h"
#include "report/ReportRun.h"
#include "report/ReportRunViews.h"
#include "report/PrecisionMapReport.h"
#include "report/SensitivityReport.h"
#include "report/ReportSetViews.h"
#include "runset/RunBandCandidates.h"
#include "report/ReportSink.h"
#include "report/ReportText.h"
#include "run/JobNonFiniteOrigin.h"
#include "run/RunReader.h"
#include "run/RunSetFolder.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"
#include "views/GradientHistogramView.h"

namespace ampscope::ui {
namespace {

constexpr double kPlotAspect = 0.42;  // height / width of a time-series plot
constexpr double kLossAspect = 0.5;   // the loss plot: room for its long y label whole
constexpr double kHeatmapAspect = 0.55;
constexpr double kSideBySideAspect = 0.5;  // two heatmaps in one row

void writeRunSection(ReportRunViews& views, RunId id, const ReportRun& run, bool comparison, ReportSink& sink) {
    using namespace report_text;
    sink.html(runFactsHtml(run, comparison) + resultsTableHtml(run));
    if (const QString narrative = narrativeHtml(run); !narrative.isEmpty()) sink.html(narrative);

    views.show(id, run);
    const QString prefix = comparison ? run.title + QStringLiteral(": ") : QString();
    sink.plot(views.loss(), prefix + QStringLiteral("Loss"), kLossAspect);
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
    sink.html(precisionMapHtml(run));
    if (const QString sensitivity = sensitivityHtml(run); !sensitivity.isEmpty()) sink.html(sensitivity);
    sink.html(nanDiagnosisHtml(run));
    if (const QString warnings = warningsHtml(run); !warnings.isEmpty()) sink.html(warnings);
}

// A report of several runs opens with them together: overlaid, then side by side.
void writeSetSection(ReportSetViews& views, const std::vector<RunId>& ids, const std::vector<ReportRun>& runs,
                     ReportSink& sink) {
    views.show(ids);
    sink.html(QStringLiteral("<h2>The runs together</h2><p class=\"note\">Each run in its colour, "
                             "named in the legends; the loss axis turns logarithmic when the "
                             "curves span more than three decades.</p>"));
    sink.plot(views.loss(), QStringLiteral("Loss, all runs"), kLossAspect);
    sink.plot(views.scale(), QStringLiteral("Loss scale, all runs"), kPlotAspect);
    if (views.anyFlushed())
        sink.plot(views.flushed(),
                  QStringLiteral("Scaled parameter gradients flushed to 0 by fp16, all layers, all runs"),
                  kPlotAspect);
    else if (views.hasFlushed())
        sink.html(QStringLiteral("<p class=\"note\">No run's fp16 flushed a scaled parameter-gradient "
                                 "element to 0 at any probe step.</p>"));
    if (views.hasAccuracy())
        sink.plot(views.accuracy(), QStringLiteral("Validation accuracy, all runs"), kPlotAspect);
    if (views.contrasts().empty()) {
        sink.html(QStringLiteral("<p class=\"note\">No layer's gradient histograms were recorded "
                                 "by two runs: there is nothing to show side by side.</p>"));
        return;
    }
    for (const HistogramContrast& contrast : views.contrasts()) {
        views.showContrast(contrast);
        const QString a = runs[static_cast<std::size_t>(contrast.runA)].title;
        const QString b = runs[static_cast<std::size_t>(contrast.runB)].title;
        const QString heading = QStringLiteral("<h3>Gradient histogram: %1, %2</h3><p class=\"note\">%3 against %4: "
                                 "%5 binades apart on the log\u2082|g| axis over the run (the "
                                 "largest difference between two runs' histograms); one colour "
                                 "scale.</p>")
                      .arg(contrast.layer.toHtmlEscaped(), views.histogramKindText().toHtmlEscaped(),
                           a.toHtmlEscaped(), b.toHtmlEscaped())
                      .arg(contrast.binades, 0, 'f', 1);
        sink.plotRow(heading, views.histogramPanes(), {a, b}, kSideBySideAspect);
    }
}

// One run of the report: a run directory given, or a rank of a job folder given.
struct ReportInput {
    QString directory;
    QString shown;  // as the report names it
    QString job;    // the job folder's name, for a rank; else empty
    QString jobShown;
};

// The runs of the folders given, each a run, a job's ranks or a scenario's output folder
// (runSetDirectories, the window's rule), named as the user named the folder (`shown`:
// an ssh:// address for a remote copy). Empty, with `error` set to the reader's one
// line, for a folder that holds no run.
std::vector<ReportInput> reportInputs(const QStringList& folders, const QMap<QString, QString>& shown,
                                      QString& error) {
    std::vector<ReportInput> inputs;
    for (const QString& folder : folders) {
        const QString cleaned = QDir::cleanPath(folder);
        const QString name = shown.value(folder, cleaned);
        const std::vector<std::string> found = runSetDirectories(cleaned.toStdString());
        if (found.empty()) {
            try {
                RunRecordReader refusal(cleaned.toStdString());  // names what is wrong
                error = QStringLiteral("%1: holds no run").arg(name);
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what()).replace(cleaned, name);
                if (QFileInfo(folder).isDir())
                    error += QStringLiteral(", nor a job's rank-N folders or a scenario's run folders");
            }
            return {};
        }
        const bool job = !rankRunDirectories(cleaned.toStdString()).empty();
        for (const std::string& run : found) {
            const QString directory = QString::fromStdString(run);
            if (QDir::cleanPath(directory) == cleaned) {
                inputs.push_back({directory, name, {}, {}});
                continue;
            }
            const QString runName = name + QLatin1Char('/') + QFileInfo(directory).fileName();
            if (job)
                inputs.push_back({directory, runName, QFileInfo(cleaned).fileName(), name});
            else
                inputs.push_back({directory, runName, {}, {}});
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
                             runs[r].nonFinite ? std::optional(runs[r].nonFinite->event) : std::nullopt,
                             runs[r].firstNonFiniteLossStep});
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

// The bands' digests (ReportBandDigest.h), after the job paragraphs they follow from.
QString bandDigestsHtml(const ReportSections& sections, const std::vector<ReportRun>& runs) {
    QString html;
    bool accounted = false;
    for (const ReportBandDigest& digest : sections.digests) {
        html += report_text::bandDigestHtml(digest, runs);
        accounted = accounted || !digest.rest.empty();
    }
    if (accounted)
        html += QStringLiteral("<p class=\"note\">The table side by side and each run's pages hold the runs "
                               "with pages of their own; the plots of the runs together draw every run.</p>");
    return html;
}

}  // namespace

QString writeReport(const QStringList& folders, const ReportOptions& options) {
    const QString path = options.outputPath;
    if (folders.isEmpty()) return QStringLiteral("no run directory given");
    QString folderError;
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool pdf = suffix == QLatin1String("pdf");
    if (!pdf && suffix != QLatin1String("html") && suffix != QLatin1String("htm"))
        return QStringLiteral("%1: unknown report type '%2' (use .pdf or .html)").arg(path, suffix);

    const std::vector<ReportInput> inputs = reportInputs(folders, options.shownDirectories, folderError);
    if (inputs.empty()) return folderError;
    const bool comparison = inputs.size() > 1;
    // One step per run read, then per run with pages (counted once they are known).
    int total = 2 * static_cast<int>(inputs.size()) + (comparison ? 2 : 1);
    int done = 0;
    const auto step = [&](const QString& what) {
        return !options.progress || options.progress(done++, total, what);
    };

    // Every run is read once, into one set, as the window reads runs; the views follow the
    // set as it loads (built first, as a window's docks are) and the text reads its stores.
    RunSet set;
    ReportSetViews setViews(set);
    ReportRunViews runViews(set);
    if (!step(QStringLiteral("Reading %1").arg(inputs.size() == 1 ? inputs.front().shown
                                                                   : QStringLiteral("%1 runs").arg(inputs.size()))))
        return QStringLiteral("cancelled");
    QStringList directories;
    for (const ReportInput& input : inputs) directories << input.directory;
    const std::vector<LoadedRun> loaded = loadRunDirectories(set, directories, {false, false});
    done += static_cast<int>(inputs.size()) - 1;
    std::vector<ReportRun> runs;
    std::vector<RunId> ids;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const ReportInput& input = inputs[i];
        // A copy's problem, named as the user named the run.
        const QString cleaned = QDir::cleanPath(input.directory);
        if (!loaded[i].run) return QString(loaded[i].error).replace(cleaned, input.shown);
        try {
            runs.push_back(reportRunOf(*loaded[i].run, loaded[i]));  // reads its narrative.md
        } catch (const std::exception& e) {
            return QString::fromUtf8(e.what()).replace(cleaned, input.shown);
        }
        ids.push_back(loaded[i].run->id());
        runs.back().shownDirectory = input.shown;
        if (!input.job.isEmpty()) {
            runs.back().title = input.job + QLatin1Char('/') + runs.back().title;
            set.setTitle(ids.back(), runs.back().title);
        }
    }
    const QString jobs = jobOriginsHtml(inputs, runs);
    // A band of many gets pages for its first member and its named outliers only; the
    // rest are accounted for on the first page (ReportBandDigest.h). Decided over the runs
    // as read, before any view shows them.
    const ReportSections sections = reportSections(set, ids);
    std::vector<ReportRun> paged;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (sections.ownSection[i]) paged.push_back(runs[i]);
    total -= static_cast<int>(runs.size() - paged.size());

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
        sink = pdfReportSink(path, title);
    } else {
        sink = htmlReportSink(path, title);
    }
    std::vector<const RunModel*> models;
    for (const RunId id : ids) models.push_back(set.run(id));
    const std::vector<stats::BandCandidate> candidates = bandCandidatesOf(models);
    sink->html(report_text::headerHtml(runs, options.generated) + jobs + bandDigestsHtml(sections, runs) +
               report_text::comparisonHtml(paged) +
               report_text::seedBandHtml(stats::bandVerdictLines(stats::bandVerdicts(candidates), candidates)));
    if (comparison) {
        if (!step(QStringLiteral("Drawing the runs together"))) {
            sink->finish();
            QFile::remove(path);
            return QStringLiteral("cancelled");
        }
        writeSetSection(setViews, ids, runs, *sink);
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!sections.ownSection[i]) continue;
        if (!step(QStringLiteral("Drawing %1").arg(runs[i].title))) {
            sink->finish();
            QFile::remove(path);
            return QStringLiteral("cancelled");
        }
        if (comparison) sink->pageBreak();
        writeRunSection(runViews, ids[i], runs[i], comparison, *sink);
    }
    step(QStringLiteral("Writing %1").arg(path));
    if (const QString error = sink->finish(); !error.isEmpty())
        return path + QStringLiteral(": ") + error;
    if (options.progress) options.progress(total, total, QStringLiteral("Done"));
    return {};
}

}  // namespace ampscope::ui
