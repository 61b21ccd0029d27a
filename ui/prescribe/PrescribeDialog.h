#pragma once
// PrescribeDialog: the window's Prescribe… form: which config (the Configure panel's, or
// the focused finished run's config.json), the format, the FLOP budget, the seeds, the
// steps and the output folder. Prescribe refuses a bad value with one line under the
// form, naming it (PrescribeRequest's check, the CLI's limits); the dialog stays open.
#include <QDialog>

#include "prescribe/PrescribeRequest.h"

class QComboBox;
class QLabel;
class QLineEdit;

namespace ampscope::ui {

class PrescribeDialog : public QDialog {
    Q_OBJECT
public:
    struct ConfigChoice {
        QString label;  // what the list shows
        QString path;   // the CONFIG.json the command reads
    };
    PrescribeDialog(const std::vector<ConfigChoice>& configs, const QString& outDirectory, QWidget* parent = nullptr);

    PrescribeRequest request() const;
    // The line the last refused Prescribe showed; empty when none was refused.
    QString problem() const;

    QComboBox* configField() const { return config_; }
    QComboBox* formatField() const { return format_; }
    QLineEdit* budgetField() const { return budget_; }
    QLineEdit* seedsField() const { return seeds_; }
    QLineEdit* stepsField() const { return steps_; }
    QLineEdit* outField() const { return out_; }

public Q_SLOTS:
    void accept() override;

private:
    QComboBox* config_ = nullptr;
    QComboBox* format_ = nullptr;
    QLineEdit* budget_ = nullptr;
    QLineEdit* seeds_ = nullptr;
    QLineEdit* steps_ = nullptr;
    QLineEdit* out_ = nullptr;
    QLabel* problem_ = nullptr;
};

}  // namespace ampscope::ui
