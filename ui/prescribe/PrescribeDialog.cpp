#include "prescribe/PrescribeDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ampscope::ui {

PrescribeDialog::PrescribeDialog(const std::vector<ConfigChoice>& configs, const QString& outDirectory,
                                 QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Prescribe"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Which layers must stay in fp32 for this model to train in a low-precision "
                                "format: the layers ranked by sensitivity, the most sensitive kept while the "
                                "budget allows, and the choice verified by training the fp32 reference, all "
                                "in the format and the prescription with each seed (ampscope-cli prescribe)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    config_ = new QComboBox(this);
    for (const ConfigChoice& choice : configs) config_->addItem(choice.label, choice.path);
    form->addRow(tr("Config"), config_);
    format_ = new QComboBox(this);
    format_->setEditable(true);  // a typed name is checked like the CLI's --format
    format_->addItems(prescribeFormats());
    form->addRow(tr("Format"), format_);
    budget_ = new QLineEdit(QStringLiteral("0.9"), this);
    budget_->setToolTip(tr("The share of the matmul/conv FLOPs that must stay in the format, in (0, 1]"));
    form->addRow(tr("FLOP budget"), budget_);
    seeds_ = new QLineEdit(QStringLiteral("3"), this);
    seeds_->setToolTip(tr("Runs per arm: each arm's band is drawn from its seeds"));
    form->addRow(tr("Seeds per arm"), seeds_);
    steps_ = new QLineEdit(this);
    steps_->setPlaceholderText(tr("the config's own length"));
    form->addRow(tr("Steps per run"), steps_);
    auto* outRow = new QHBoxLayout;
    out_ = new QLineEdit(outDirectory, this);
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Output folder (new or empty)"), out_->text());
        if (!dir.isEmpty()) out_->setText(dir);
    });
    outRow->addWidget(out_);
    outRow->addWidget(browse);
    form->addRow(tr("Output folder"), outRow);
    layout->addLayout(form);
    problem_ = new QLabel(this);
    problem_->setObjectName(QStringLiteral("prescribeProblem"));
    problem_->setWordWrap(true);
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    problem_->hide();
    layout->addWidget(problem_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Prescribe"));
    connect(buttons, &QDialogButtonBox::accepted, this, &PrescribeDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &PrescribeDialog::reject);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());
}

PrescribeRequest PrescribeDialog::request() const {
    return {config_->currentData().toString(), format_->currentText().trimmed(), budget_->text(), seeds_->text(),
            steps_->text(), out_->text().trimmed()};
}

QString PrescribeDialog::problem() const {
    return problem_->isVisible() || !problem_->text().isEmpty() ? problem_->text() : QString();
}

void PrescribeDialog::accept() {
    const QString problem = prescribeRequestProblem(request());
    problem_->setText(problem);
    problem_->setVisible(!problem.isEmpty());
    if (problem.isEmpty()) QDialog::accept();
}

}  // namespace ampscope::ui
