#!/usr/bin/env python3
"""Checks the links of the documentation a reader follows: README.md and docs/**/*.md.

    python3 tests/tools/check_doc_links.py [SOURCE_DIR]

- Every relative link, images included, must name a file or folder of the repository.
  A link that climbs out of the repository counts as broken: a reader of the repository
  (on GitHub, or in a CI root holding only the checkout) has nothing there to open.
- Every `#anchor` must name a heading of the target Markdown file (or of the same file),
  by GitHub's rule, since that is where readers click them: the heading's text without
  its Markdown (code spans, links, emphasis), lowercased, every character that is not a
  letter, digit, space, hyphen or underscore dropped, spaces turned into hyphens; a
  heading whose slug came before gets -1, -2, ... An explicit <a name/id> anchor counts.
- Every page under docs/guide/ must be linked from README.md: the README is the guide's
  map, and a page it does not name is a page no newcomer finds.
- External links (https:, http:, mailto:) are not fetched: the suites run without network.
- Links inside code (fenced blocks and `code spans`) are text, not links.

Prints one line per broken link, `FILE:LINE: link -> what is wrong`, and exits 1 if any.
"""
import os
import re
import sys
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# An inline link or image: ](target) or ](target "title") or ](<target>).
INLINE_LINK = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
# A reference definition: [label]: target
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HTML_TARGET = re.compile(r"<(?:a|img)\s[^>]*(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # https:, http:, mailto:, ...
GITHUB_LINE_ANCHOR = re.compile(r"^L\d+(-L\d+)?$")


def prose_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)[0] * len(match.group(1))
                continue
            yield number, line
        elif match and match.group(1).startswith(fence) and line.strip() == match.group(1):
            fence = None


def heading_text(markdown):
    """The text GitHub slugs: a heading's Markdown reduced to what it shows."""
    text = CODE_SPAN.sub(lambda m: m.group(2), markdown)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)                      # inline HTML
    return text


def slug(markdown):
    text = heading_text(markdown).strip().lower()
    # \w is a letter, digit or underscore (Unicode letters included, as GitHub keeps them).
    text = "".join(c for c in text if re.match(r"[\w \-]", c))
    return text.replace(" ", "-")


ANCHORS = {}  # path -> its anchors: a file is linked from many places, read it once


def anchors_of(path):
    """Every anchor a reader can jump to in a Markdown file."""
    if path in ANCHORS:
        return ANCHORS[path]
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    found, seen = set(), {}
    previous = None
    for _, line in prose_lines(text):
        title = None
        match = ATX_HEADING.match(line)
        if match:
            title = match.group(2)
        elif (previous is not None and previous.strip() and SETEXT_UNDERLINE.match(line)
              and not ATX_HEADING.match(previous) and not previous.lstrip().startswith(("|", "-", "*", ">"))):
            title = previous.strip()
        if title is not None:
            base = slug(title)
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(a.lower() for a in HTML_ANCHOR.findall(line))
        previous = line
    ANCHORS[path] = found
    return found


def link_targets(line):
    """The link targets of one prose line, code spans left out."""
    prose = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
    targets = [m.group(1) for m in INLINE_LINK.finditer(prose)]
    targets += HTML_TARGET.findall(prose)
    definition = REFERENCE_DEFINITION.match(prose)
    if definition:
        targets.append(definition.group(1))
    return [t[1:-1] if t.startswith("<") and t.endswith(">") else t for t in targets]


def check_link(root, source, target):
    """What is wrong with one link from the file `source`, or None."""
    if not target:
        return "an empty link"
    if EXTERNAL.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part)
    if path_part:
        if path_part.startswith("/"):
            return "an absolute path: write it relative to the file"
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part))
        if os.path.relpath(resolved, root).startswith(".."):
            return "outside the repository"
        if not os.path.exists(resolved):
            return f"no such file: {os.path.relpath(resolved, root)}"
    else:
        resolved = source
    if not anchor:
        return None
    anchor = urllib.parse.unquote(anchor)
    if os.path.isdir(resolved):
        return "an anchor on a folder"
    if not resolved.endswith(".md"):
        if GITHUB_LINE_ANCHOR.match(anchor):
            return None
        return f"an anchor in a file that is not Markdown: {os.path.relpath(resolved, root)}"
    if anchor.lower() not in anchors_of(resolved):
        return f"no heading #{anchor} in {os.path.relpath(resolved, root)}"
    return None


def documents(root):
    found = [os.path.join(root, "README.md")]
    for folder, subfolders, files in os.walk(os.path.join(root, "docs")):
        subfolders.sort()
        found += [os.path.join(folder, name) for name in sorted(files) if name.endswith(".md")]
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    problems = []
    readme_links = set()
    readme = os.path.join(root, "README.md")
    for document in documents(root):
        with open(document, encoding="utf-8") as handle:
            text = handle.read()
        for number, line in prose_lines(text):
            for target in link_targets(line):
                wrong = check_link(root, document, target)
                if wrong:
                    problems.append(f"{os.path.relpath(document, root)}:{number}: {target} -> {wrong}")
                elif document == readme and not EXTERNAL.match(target):
                    path_part = urllib.parse.unquote(target.partition("#")[0])
                    if path_part:
                        readme_links.add(os.path.normpath(os.path.join(root, path_part)))
    guide = os.path.join(root, "docs", "guide")
    if os.path.isdir(guide):
        for name in sorted(os.listdir(guide)):
            page = os.path.join(guide, name)
            if name.endswith(".md") and page not in readme_links:
                problems.append(f"README.md:1: docs/guide/{name} -> a guide page the README does not link")
    for problem in problems:
        print(problem)
    checked = len(documents(root))
    if problems:
        print(f"{len(problems)} broken link(s) in {checked} files", file=sys.stderr)
        return 1
    print(f"every link of {checked} files leads somewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
