// The report command with the GUI built: a QApplication on the offscreen platform when
// there is no display, then ui/report's writer.
#include "ReportCommand.h"

#include <QApplication>
#include <cstdio>
#include <cstdlib>

#include "report/ReportWriter.h"

namespace ampscope::app {

int runReportCommand(const std::vector<std::string>& runDirectories, const std::string& outputPath,
                     bool quiet, int argc, char** argv) {
    // Headless: no display needed. A user's explicit QT_QPA_PLATFORM is kept.
    if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QApplication app(argc, argv);
    QStringList directories;
    for (const auto& d : runDirectories) directories << QString::fromStdString(d);
    ui::ReportOptions options;
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
