#include "window/ElidingLabel.h"

#include <QFontMetrics>
#include <QResizeEvent>

namespace ampscope::ui {

ElidingLabel::ElidingLabel(QWidget* parent, Qt::TextElideMode mode) : QLabel(parent), mode_(mode) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void ElidingLabel::setFullText(const QString& text) {
    fullText_ = text;
    setToolTip(text);
    elide();
}

QSize ElidingLabel::minimumSizeHint() const {
    return QSize(fontMetrics().horizontalAdvance(QStringLiteral("…")) * 4,
                 QLabel::minimumSizeHint().height());
}

QSize ElidingLabel::sizeHint() const {
    const int margins = contentsMargins().left() + contentsMargins().right();
    return QSize(fontMetrics().horizontalAdvance(fullText_) + margins + 4,
                 QLabel::sizeHint().height());
}

void ElidingLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void ElidingLabel::elide() {
    const int width = contentsRect().width();
    QLabel::setText(fontMetrics().elidedText(fullText_, mode_, std::max(0, width)));
}

}  // namespace ampscope::ui
