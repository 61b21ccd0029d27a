#pragma once
// The links of a scenario's narrative.md, found by one linear scan: a lesson's narrative
// comes from someone else (up to 1 MiB, LessonLimits.h), and std::regex recurses once per
// character it repeats, so a long "[..." without its ']' could overflow the stack. Every
// way Markdown makes a link is found, so that check-lesson can refuse any target but a
// view (view:ID) and an https: page: inline links and images [words](target), reference
// definitions "[label]: target" at a line's start, autolinks <scheme:...>, and HTML
// href= / src= attributes. No torch, no Qt.
#include <cstddef>
#include <string>
#include <vector>

namespace ampscope {

struct NarrativeLink {
    std::size_t begin = 0;  // offset of the link's first character ('[', '<', 'h' of href)
    std::size_t line = 1;   // 1-based line of `begin`
    std::string target;     // as written: "view:loss", "https://...", "javascript:..."
    // Inline links only: the words between the brackets, and the offset just past the
    // closing ')' when the target is all there is between the parentheses (else 0).
    std::string words;
    std::size_t end = 0;
};

std::vector<NarrativeLink> narrativeLinks(const std::string& markdown);

}  // namespace ampscope
