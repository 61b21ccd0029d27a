#include "prescribe/PrescriptionPage.h"

#include <QFile>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/Text.h"
#include "probes/Prescription.h"

namespace ampscope::ui {

PrescriptionPage::PrescriptionPage(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("prescriptionPage"));
    setWindowTitle(tr("Prescription"));
    auto* layout = new QVBoxLayout(this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    text_ = new QPlainTextEdit(this);
    text_->setReadOnly(true);
    text_->setLineWrapMode(QPlainTextEdit::WidgetWidth);  // the snippets' long lines, whole
    text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(text_, 1);
    resize(1100, 620);
}

bool PrescriptionPage::load(const QString& directory, QString* error) {
    const QString jsonPath = directory + QStringLiteral("/prescription.json");
    const QString textPath = directory + QStringLiteral("/prescription.txt");
    PrescriptionRecord record;
    try {
        std::ifstream file(jsonPath.toStdString());
        if (!file) throw std::runtime_error("cannot be read");
        record = prescriptionFromJson(nlohmann::json::parse(file));
    } catch (const std::exception& e) {
        // The decoder names the file by its name; the page names it by its path.
        QString why = QString::fromUtf8(e.what());
        if (why.startsWith(QStringLiteral("prescription.json: "))) why = why.mid(19);
        if (error) *error = tr("%1: %2").arg(jsonPath, why);
        return false;
    }
    QFile text(textPath);
    if (!text.open(QIODevice::ReadOnly | QIODevice::Text)) {
        if (error) *error = tr("%1: %2").arg(textPath, text.errorString());
        return false;
    }
    const Prescription& rx = record.prescription;
    kept_.clear();
    QStringList keptLines;
    for (const PrescribedLayer& layer : rx.ranking) {
        if (!layer.kept) continue;
        kept_ << QString::fromStdString(layer.layer);
        keptLines << tr("  %1: score %2, %3% of the FLOPs")
                         .arg(QString::fromStdString(layer.layer), QString::fromStdString(formatNumber(layer.score, 4)),
                              QString::fromStdString(formatNumber(100.0 * layer.flopsShare, 3)));
    }
    QString summary = tr("In %1: %2").arg(QString::fromStdString(rx.format), QString::fromStdString(record.verdict));
    summary += QLatin1Char('\n');
    summary += kept_.isEmpty() ? tr("Kept in fp32: none")
                               : tr("Kept in fp32 (%1% of the FLOPs stay in %2):\n%3")
                                     .arg(QString::fromStdString(formatNumber(100.0 * rx.formatFlopsShare(), 3)),
                                          QString::fromStdString(rx.format), keptLines.join(QLatin1Char('\n')));
    summary_->setText(summary);
    text_->setPlainText(QString::fromUtf8(text.readAll()));
    setWindowTitle(tr("Prescription — %1").arg(directory));
    return true;
}

QString PrescriptionPage::summaryText() const {
    return summary_->text();
}

QString PrescriptionPage::pageText() const {
    return text_->toPlainText();
}

}  // namespace ampscope::ui
