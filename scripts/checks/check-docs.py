#!/usr/bin/env python3
"""Checks the documentation: README.md is at most 200 lines, and every relative link in
README.md and docs/*.md resolves to an existing file (or folder), and every #anchor to a heading
of its target, by GitHub's slug rule (lower-case; punctuation other than '-' and '_' dropped;
spaces to '-'; a repeated heading gets -1, -2, ...).

Links to ../shared/... (the reference data, read in place outside the repository) are exempt;
external links (http, https, mailto) are not fetched. Links inside code spans and fenced code
blocks are not links.

Usage: scripts/checks/check-docs.py [REPO_ROOT]   exit 0: clean; 1: one line per problem (file:line).
"""
import os
import re
import sys

README_MAX_LINES = 200
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target "title") and ![alt](target); the text may hold one level of brackets.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s)>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks, code spans blanked."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
            elif match.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)                        # inline HTML tags
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)                       # \w keeps letters, digits, '_'
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    """The anchors of a Markdown file's headings."""
    if path not in _anchor_cache:
        seen = {}
        result = set()
        for _, line in prose_lines(path):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
        _anchor_cache[path] = result
    return _anchor_cache[path]


def links(path):
    """(line number, target) of every link in a Markdown file."""
    for number, line in prose_lines(path):
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(1)
        match = REFERENCE_DEF.match(line)
        if match:
            yield number, match.group(1)


def check_link(root, shared, source, target):
    """None when the link resolves, else what is wrong."""
    if not target or EXTERNAL.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    if path_part:
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part))
        if resolved == shared or resolved.startswith(shared + os.sep):
            return None  # the reference data, outside the repository
        if not (resolved == root or resolved.startswith(root + os.sep)):
            return "points outside the repository"
        if not os.path.exists(resolved):
            return "no such file"
    else:
        resolved = source
    if anchor:
        if os.path.isdir(resolved) or not resolved.endswith(".md"):
            return None  # anchors into source files are line numbers GitHub renders; not checked
        if anchor not in anchors(resolved):
            return f"no heading with anchor #{anchor} in {os.path.relpath(resolved, root)}"
    return None


def main():
    root = os.path.realpath(sys.argv[1] if len(sys.argv) > 1
                            else os.path.join(os.path.dirname(__file__), "..", ".."))
    shared = os.path.normpath(os.path.join(root, "..", "shared"))
    errors = []
    readme = os.path.join(root, "README.md")
    if not os.path.isfile(readme):
        errors.append("README.md: missing")
    else:
        with open(readme, encoding="utf-8") as f:
            count = len(f.read().splitlines())
        if count > README_MAX_LINES:
            errors.append(f"README.md:{count}: {count} lines, more than {README_MAX_LINES}")
    docs = os.path.join(root, "docs")
    files = [readme] if os.path.isfile(readme) else []
    if os.path.isdir(docs):
        files += [os.path.join(docs, name) for name in sorted(os.listdir(docs)) if name.endswith(".md")]
    for path in files:
        for number, target in links(path):
            problem = check_link(root, shared, path, target)
            if problem:
                errors.append(f"{os.path.relpath(path, root)}:{number}: broken link ({target}): {problem}")
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} problem(s) in the documentation (scripts/checks/check-docs.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
