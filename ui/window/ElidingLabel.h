#pragma once
// ElidingLabel: a one-line label that shortens its text with "…" to the width it gets
// instead of demanding the width of the whole text (status-bar paths and long "how"
// lines would otherwise push everything else off the window). The full text is the
// tooltip unless a tooltip is set explicitly.
#include <QLabel>

namespace ampscope::ui {

class ElidingLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidingLabel(QWidget* parent = nullptr, Qt::TextElideMode mode = Qt::ElideMiddle);

    void setFullText(const QString& text);
    QString fullText() const { return fullText_; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString fullText_;
    Qt::TextElideMode mode_;
};

}  // namespace ampscope::ui
