// The report command with the GUI built: a QApplication on the offscreen platform when
// there is no display, then ui/report's writer.
#include "ReportCommand.h"

#include <QApplication>
#include <cstdio>
#include <cstdlib>

#include "report/ReportWriter.h"

namespace ampscope::app {
namespace {

// Offscreen in a container, Qt warns that XDG_RUNTIME_DIR is not set: noise for a
// command whose stderr is one line on failure. Everything else goes to stderr as usual.
void quietMessages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.startsWith(QLatin1String("QStandardPaths:"))) return;
    std::fprintf(stderr, "%s\n", qUtf8Printable(qFormatLogMessage(type, context, message)));
}

}  // namespace

int runReportCommand(const std::vector<std::string>& runDirectories,
                     const std::vector<std::string>& shownNames, const std::string& outputPath,
                     bool quiet, int argc, char** argv) {
    // Headless: no display needed. A user's explicit QT_QPA_PLATFORM is kept.
    if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") &&
        !std::getenv("WAYLAND_DISPLAY"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    qInstallMessageHandler(quietMessages);
    QApplication app(argc, argv);
    QStringList directories;
    ui::ReportOptions options;
    for (std::size_t i = 0; i < runDirectories.size(); ++i) {
        directories << QString::fromStdString(runDirectories[i]);
        if (i < shownNames.size() && shownNames[i] != runDirectories[i])
            options.shownDirectories.insert(directories.back(), QString::fromStdString(shownNames[i]));
    }
    options.outputPath = QString::fromStdString(outputPath);
    const QString error = ui::writeReport(directories, options);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "ampscope-cli: report: %s\n", error.toUtf8().constData());
        return 2;
    }
    if (!quiet) std::printf("report written to %s\n", outputPath.c_str());
    return 0;
}

}  // namespace ampscope::app
