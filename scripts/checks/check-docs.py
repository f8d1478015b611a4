#!/usr/bin/env python3
"""Checks the documentation: README.md is at most 200 lines, and every relative link in
README.md and docs/*.md resolves to an existing file (or folder), and every #anchor to a heading
of its target, by GitHub's slug rule (lower-case; punctuation other than '-' and '_' dropped;
spaces to '-'; a repeated heading gets -1, -2, ...).

Links to ../shared/... (the reference data, read in place outside the repository) are exempt;
external links (http, https, mailto) are not fetched. Links inside code spans and fenced code
blocks are not links.

References too: a repository path written anywhere in README.md and docs/*.md (code spans and
blocks included), in the comments of .h/.cc/.cu/.proto files, and anywhere in .py, .sh, .mjs,
.textproto, .cmake and CMakeLists.txt files (comments, docstrings, usage lines, the commands a
script runs) must name an existing file or folder, and an #anchor after a page a heading of it. A
reference is a path starting at a top-level folder (`sim/core/serving/front_end.h`,
`scripts/bench/bench-simulate.sh`, `docs/engines.md#front-end`); a path that goes on as a
pattern (`models/catalog/*.textproto`, `measurements-<gpu>.textproto`, `${DIR}`) is not checked,
nor the paths in NOT_IN_TREE, nor lines between "check-docs: off" and "check-docs: on" (a
checker's self-test data); a generated `NAME.pb.h` resolves to its `NAME.proto`.

Usage: scripts/checks/check-docs.py [REPO_ROOT]   exit 0: clean; 1: one line per problem (file:line).
       scripts/checks/check-docs.py --self-test    the checker on a scratch tree with known faults.
"""
import os
import re
import sys
import tempfile

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


# A reference: a path from one of the repository's top-level folders, not inside a longer path
# (the binary under build/ is not a source path), with an optional #anchor.
TOP_FOLDERS = ("base", "models", "hardware", "calibration", "traces", "kernels", "sim", "tests",
               "fuzz", "scripts", "docs", "cmake", ".ci")
REFERENCE = re.compile(r"(?<![\w./$-])((?:%s)/[\w./+-]*[\w/])(#[\w-]+)?"
                       % "|".join(re.escape(f) for f in TOP_FOLDERS))
PATTERN_CHARS = "*<{[$%"  # a path going on with one of these is a pattern, not a file
PATH_CHARS = re.compile(r"[\w./+-]*")
# Paths that are not in the tree by design, each with the reason.
NOT_IN_TREE = {
    "sim/infergrid": "the binary, built into build*/sim/",
    "docs/cli_options.md": "aiperf's own documentation (github.com/ai-dynamo/aiperf)",
}
# Lines between these markers (a checker's self-test data) are not checked.
OFF, ON = "check-docs: off", "check-docs: on"
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
CODE_EXTENSIONS = (".h", ".cc", ".cu", ".proto")     # references in their comments
TEXT_EXTENSIONS = (".py", ".sh", ".textproto", ".cmake", ".mjs")  # references anywhere
# A string literal (skipped: a "//" or "/*" in it starts no comment) or a comment.
C_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def source_files(root):
    """The repository's source files whose references are checked, and docs/*.md and README.md,
    with relative paths; build folders (build*/) and generated or vendored folders are skipped."""
    for dirpath, dirnames, names in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS
                             and not (rel == "." and d.startswith("build")))
        for name in sorted(names):
            if (name.endswith(CODE_EXTENSIONS + TEXT_EXTENSIONS + (".md",))
                    or name == "CMakeLists.txt"):
                yield os.path.normpath(os.path.join(rel, name))


def referencing_text(path, text):
    """The part of a file's text whose references are checked, line breaks kept: comments of
    C-family sources (the code's strings are data, often paths it builds), all else whole."""
    if not path.endswith(CODE_EXTENSIONS):
        return text
    parts, end = [], 0
    for match in C_TOKEN.finditer(text):
        if match.group(0).startswith("/"):  # a comment, kept; code and strings only their line breaks
            parts += [" ", "\n" * text.count("\n", end, match.start()), " ", match.group(0)]
            end = match.end()
    parts.append("\n" * text.count("\n", end))
    return "".join(parts)


def check_references(root, path):
    """One problem line per reference in the file that names no file, or no heading."""
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        text = referencing_text(path, f.read())
    if OFF in text:  # blank the marked regions, keeping the line count
        text = re.sub(re.escape(OFF) + ".*?(?:" + re.escape(ON) + "|$)",
                      lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    problems = []
    for match in REFERENCE.finditer(text):
        target, anchor = match.group(1), match.group(2)
        rest = PATH_CHARS.match(text, match.end()).end()  # a host-*.textproto goes on past host
        if text[rest:rest + 1] and text[rest] in PATTERN_CHARS or target in NOT_IN_TREE:
            continue
        line = text.count("\n", 0, match.start()) + 1
        resolved = os.path.join(root, target.rstrip("/"))
        if resolved.endswith((".pb.h", ".pb.cc")):  # generated under build/ from its .proto
            resolved = resolved[:resolved.rindex(".pb.")] + ".proto"
        if not os.path.exists(resolved):
            problems.append(f"{path}:{line}: stale reference {target}: no such file")
        elif anchor and resolved.endswith(".md") and anchor[1:] not in anchors(resolved):
            problems.append(f"{path}:{line}: stale reference {target}{anchor}: no such heading")
    return problems


def problems(root):
    """Every problem of the tree at root: README length, broken links, stale references."""
    root = os.path.realpath(root)
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
    for path in source_files(root):
        errors += check_references(root, path)
    return errors


def self_test():
    """Checks the checker: a clean scratch tree passes; a stale path in a header's comment, in a
    textproto, in a script, in a doc's code span, and a stale anchor are each reported."""
    # check-docs: off (the scratch tree's own paths)
    files = {
        "README.md": "See [design](docs/design.md#layout) and `sim/core/a.h`.\n",
        "docs/design.md": "# Design\n\n## Layout\n\nThe pricer: `sim/core/a.h`, `models/catalog/*.textproto`.\n",
        "sim/core/a.h": '// Prices an iteration (docs/design.md#layout; scripts/build.sh).\n'
                        'const char* kPath = "sim/core/generated_at_run_time.h";\n',
        "models/catalog/m.textproto": "# Checked by scripts/build.sh\nname: \"m\"\n",
        "scripts/build.sh": "#!/bin/sh\n# Usage: scripts/build.sh; writes build/sim/infergrid\n",
        "build/x.h": "// sim/not/checked.h: build folders are skipped\n",
    }
    faults = {
        "sim/core/b.h": ("#pragma once\n// Moved to sim/core/gone.h.\n", "sim/core/b.h:2: stale reference sim/core/gone.h"),
        "models/catalog/n.textproto": ("# See scripts/gone.sh\n", "models/catalog/n.textproto:1: stale reference scripts/gone.sh"),
        "scripts/x.py": ('"""Usage: scripts/old/x.py"""\n', "scripts/x.py:1: stale reference scripts/old/x.py"),
        "docs/other.md": ("# Other\n\nThe front end is `sim/core/front.h`.\n", "docs/other.md:3: stale reference sim/core/front.h"),
        "CMakeLists.txt": ("# docs/design.md#no-such-heading\n", "CMakeLists.txt:1: stale reference docs/design.md#no-such-heading"),
        "models/c.h": (f"// {OFF}\n// sim/x.h\n// {ON}\n// sim/y.h\n", "models/c.h:4: stale reference sim/y.h"),
        "tests/t.cc": ('#include "models/m.pb.h"  // generated: models/m.pb.h\n', "tests/t.cc:1: stale reference models/m.pb.h"),
    }
    # check-docs: on
    with tempfile.TemporaryDirectory() as scratch:
        def write(path, text):
            os.makedirs(os.path.join(scratch, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(scratch, path), "w", encoding="utf-8") as f:
                f.write(text)
        for path, text in files.items():
            write(path, text)
        clean = problems(scratch)
        if clean:
            print("self-test: a clean tree was reported:", *clean, sep="\n  ")
            return 1
        for path, (text, _) in faults.items():
            write(path, text)
        _anchor_cache.clear()
        found = problems(scratch)
    missing = [why for _, why in faults.values() if not any(line.startswith(why) for line in found)]
    if missing or len(found) != len(faults):
        print("self-test failed; expected:", *missing, "got:", *found, sep="\n  ")
        return 1
    print(f"self-test: {len(faults)} planted stale references reported, clean tree passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    errors = problems(sys.argv[1] if len(sys.argv) > 1
                      else os.path.join(os.path.dirname(__file__), "..", ".."))
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} problem(s) in the documentation (scripts/checks/check-docs.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
