#pragma once
// PrescriptionPage: a finished prescription as a page beside the window: its verdict and
// the layers it keeps in fp32 (with their scores and FLOP shares) read from
// DIR/prescription.json through core's decoder (prescriptionFromJson), and under them
// DIR/prescription.txt as the command wrote it: the ranking, each arm's verdict with
// p-values, the torchao / torchtitan / Transformer Engine settings.
//
// Contract: load(DIR) false with one line naming the file when either does not read; the
// page then keeps what it showed.
#include <QDialog>
#include <QStringList>

class QLabel;
class QPlainTextEdit;

namespace ampscope::ui {

class PrescriptionPage : public QDialog {
    Q_OBJECT
public:
    explicit PrescriptionPage(QWidget* parent = nullptr);

    bool load(const QString& directory, QString* error);
    // The kept layers as the page lists them, in the prescription's order.
    const QStringList& keptLayers() const { return kept_; }
    QString summaryText() const;
    QString pageText() const;

private:
    QLabel* summary_ = nullptr;
    QPlainTextEdit* text_ = nullptr;
    QStringList kept_;
};

}  // namespace ampscope::ui
