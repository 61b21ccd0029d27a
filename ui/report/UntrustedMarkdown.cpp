#include "report/UntrustedMarkdown.h"

#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFragment>
#include <QUrl>
#include <vector>

namespace ampscope::ui {

bool isAllowedLink(const QString& href) {
    const QString target = href.trimmed();
    if (target.startsWith(QLatin1Char('#'))) return true;  // an anchor in the same page
    // An allow-list: javascript:, data:, file:, vbscript:, relative paths (which resolve
    // next to the report, or into the run directory) and anything unparsable are out.
    const QUrl url(target, QUrl::StrictMode);
    if (!url.isValid()) return false;
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("mailto")) return !url.path().isEmpty();
    return (scheme == QLatin1String("http") || scheme == QLatin1String("https")) &&
           !url.host().isEmpty();
}

void setUntrustedMarkdown(QTextDocument& document, const QString& markdown) {
    // No raw HTML: <script>, <img onerror=...>, <a href="javascript:..."> written as HTML
    // in the Markdown become plain text.
    document.setMarkdown(markdown, QTextDocument::MarkdownFeatures(
                                       QTextDocument::MarkdownDialectGitHub |
                                       QTextDocument::MarkdownNoHTML));
    // Then links and images, which Markdown itself makes: collected first, then changed
    // from the end back, so that earlier positions stay valid.
    struct Change {
        int position = 0;
        int length = 0;
        bool image = false;
        QTextCharFormat format;
    };
    std::vector<Change> changes;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QTextCharFormat format = fragment.charFormat();
            if (format.isImageFormat())
                changes.push_back({fragment.position(), fragment.length(), true, format});
            else if (format.isAnchor() && !isAllowedLink(format.anchorHref()))
                changes.push_back({fragment.position(), fragment.length(), false, format});
        }
    }
    for (auto change = changes.rbegin(); change != changes.rend(); ++change) {
        QTextCursor cursor(&document);
        cursor.setPosition(change->position);
        cursor.setPosition(change->position + change->length, QTextCursor::KeepAnchor);
        QTextCharFormat plain = change->format;
        plain.setAnchor(false);
        plain.setAnchorHref(QString());
        if (change->image) {
            // An image would be fetched by whoever opens the report (a tracking pixel, a
            // file: URL read into a PDF): its name stays as text.
            const QString name = change->format.toImageFormat().name();
            cursor.insertText(QStringLiteral("[image: %1]").arg(name), QTextCharFormat());
        } else {
            cursor.setCharFormat(plain);
        }
    }
}

}  // namespace ampscope::ui
