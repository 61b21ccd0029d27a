#pragma once
// A run directory is untrusted input (it travels from clusters and bug reports), so its
// Markdown (a scenario's narrative.md) is read without raw HTML, with links only to
// http(s) hosts, mailto: and in-page anchors (others keep their text, lose the link) and
// with images replaced by their names. The report's narrative and any view showing a
// run's Markdown read it through setUntrustedMarkdown.
#include <QString>
#include <QTextDocument>

namespace ampscope::ui {

bool isAllowedLink(const QString& href);
void setUntrustedMarkdown(QTextDocument& document, const QString& markdown);

}  // namespace ampscope::ui
