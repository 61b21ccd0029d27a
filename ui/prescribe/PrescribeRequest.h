#pragma once
// PrescribeRequest: what the window's Prescribe… asks of `ampscope-cli prescribe`, as the
// user typed it, checked against the limits the CLI itself applies (core's definitions:
// sensitivityFormats, isPrescriptionBudget, stats::kMinimumSeeds), so the dialog refuses
// what the command would refuse, with one line naming the value.
//
// Contract:
// - prescribeRequestProblem: empty when every value is one the command takes, else the
//   first bad one's line ("Budget: \"1.5\" is not a share of FLOPs in (0, 1] ...").
// - prescribeArguments: the command line after the program's name; always --quiet
//   --progress, so the child's stdout is its progress lines only.
#include <QString>
#include <QStringList>

namespace ampscope::ui {

struct PrescribeRequest {
    QString configPath;
    QString format;
    QString budget;  // as typed
    QString seeds;
    QString steps;   // empty: the config's own length
    QString outDirectory;
};

QString prescribeRequestProblem(const PrescribeRequest& request);
QStringList prescribeArguments(const PrescribeRequest& request);
// The formats the command takes, in its order: fp8, mxfp8, mxfp4, nvfp4.
QStringList prescribeFormats();

}  // namespace ampscope::ui
