#!/usr/bin/env python3
"""Runs the documented examples and compares what they print with what the docs say.

Every ```console block in README.md and docs/*.md is an example: its first line is the command,
`$ infergrid ...` or `$ build/sim/infergrid ...` (continued over lines ending in a backslash;
`$ echo "TEXT" | infergrid ...` feeds TEXT to its stdin), and the lines after it are the output
it prints on stdout. The command runs from the repository
root with `infergrid` replaced by the built binary (--bin, default build/sim/infergrid), without
a shell, and a per-command timeout (30 s unless the block says otherwise).

The output is compared line by line, whitespace-normalised:
  - a line that is just `...` stands for any number of printed lines (none included);
  - a line ending in ` ...` matches a printed line that starts with the text before it;
  - otherwise the documented output covers the printed output from its first line to its last.
Inside a line every number (digits with an optional sign, fraction and exponent, not glued to a
letter: `h100` and `tp4` are text) is compared within a relative tolerance, DEFAULT_TOLERANCE
(2%) unless the block says otherwise, integers included: a small count (a rank, a GPU count)
must then be exact, since 2% of it is less than 1. All other text must be equal.

A block is configured by an HTML comment on the line just before its fence (GitHub does not
show it):
  <!-- doc-example: skip REASON -->          not run (REASON required: why it cannot be)
  <!-- doc-example: tolerance=5% -->         this block's relative tolerance
  <!-- doc-example: timeout=120 -->          this block's timeout in seconds
(tolerance and timeout may be combined in one comment). A fenced block of another kind that
begins with `$ infergrid` or `$ build/sim/infergrid` is an error: it shows a command's output
and must be a ```console block, so that it is checked.

Every `infergrid` command written in a ```sh or ```console block (also `build/sim/infergrid`,
and `$B` where the block sets `B=.../infergrid`; synopsis lines continued with `[--flag]` count
too) may name only flags that its command's `--help` lists (`-` and `_` alike): a renamed or
removed flag fails wherever the docs still spell it, including in examples that cannot run here.

Usage: scripts/checks/check-doc-examples.py [--bin PATH] [--root DIR] [--jobs N] [--list] [FILE.md ...]
  FILE.md ...  the Markdown files to check (default: README.md and docs/*.md under --root)
  --root DIR   the repository root: the commands' working directory and where the default
               files are (default: this script's repository)
  --bin PATH   the infergrid binary (default: ROOT/build/sim/infergrid)
  --jobs N     examples run at once (default 2)
  --list       print each example's file:line, command and state; run nothing
Exit 0: every example printed what the docs say; 1: one line per mismatch
(`docs/bench.md:123: documented 21.1, printed 30.3 (+43.6%, tolerance 2%)`); 2: bad usage.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys
import time

DEFAULT_TOLERANCE = 0.02  # relative, for every number of a block without tolerance=
DEFAULT_TIMEOUT_S = 30
FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
MARKER = re.compile(r"^\s*<!--\s*doc-example:\s*(.*?)\s*-->\s*$")
PROGRAMS = ("infergrid", "build/sim/infergrid", "./build/sim/infergrid")
# A number (thousands may be separated by commas: 1,000) not glued to a letter, digit, '_', '.'
# or '@' on its left or to a letter, digit or '_' on its right: `h100`, `tp4`, `8b` and the
# version in `vllm-v1@0.21` are text.
NUMBER = re.compile(
    r"(?<![\w.@])[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?!\w)")


class Example:
    def __init__(self, path, line, command, output, options):
        self.path = path          # as printed in messages (relative to the root where it can be)
        self.line = line          # the line of the command
        self.command = command    # the command, continuation lines joined
        self.output = output      # [(line number, text)] of the documented output
        self.options = options    # {"skip": reason, "tolerance": float, "timeout": float}


ECHO = re.compile(r"^echo\s+(\"[^\"]*\"|'[^']*')\s*\|\s*")  # echo "TEXT" | infergrid ...


def program_of(command):
    """The program a console command runs: its first word, after an `echo "TEXT" |` feeding it."""
    return ECHO.sub("", command).split(" ")[0]


def parse_marker(text, where, problems):
    options = {}
    if text.startswith("skip"):
        reason = text[len("skip"):].strip()
        if not reason:
            problems.append(f"{where}: doc-example: skip needs a reason")
        options["skip"] = reason or "?"
        return options
    for word in text.split():
        key, _, value = word.partition("=")
        try:
            if key == "tolerance":
                options["tolerance"] = float(value.rstrip("%")) / (100 if value.endswith("%") else 1)
            elif key == "timeout":
                options["timeout"] = float(value)
            else:
                raise ValueError
        except ValueError:
            problems.append(f"{where}: doc-example: cannot read '{word}' "
                            "(skip REASON, tolerance=N%, timeout=SECONDS)")
    return options


def examples_of(path, shown, problems):
    """The console examples of one Markdown file; other blocks that look like one are problems."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    result = []
    number = 0
    while number < len(lines):
        match = FENCE.match(lines[number])
        if not match:
            number += 1
            continue
        fence, kind, start = match.group(1), match.group(2), number
        number += 1
        body = []
        while number < len(lines) and not re.match(r"^\s*" + fence + r"\s*$", lines[number]):
            body.append((number + 1, lines[number]))
            number += 1
        number += 1
        marker_line = start - 1
        marker = MARKER.match(lines[marker_line]) if marker_line >= 0 else None
        first = body[0][1].strip() if body else ""
        runs_infergrid = first.startswith("$ ") and program_of(first[2:]) in PROGRAMS
        if kind != "console":
            if runs_infergrid:
                problems.append(f"{shown}:{start + 1}: a block that shows `{first[:40]}...` and its "
                                "output must be a ```console block")
            continue
        where = f"{shown}:{start + 1}"
        options = parse_marker(marker.group(1), where, problems) if marker else {}
        if not first.startswith("$ "):
            problems.append(f"{where}: a console block's first line is its command, `$ ...`")
            continue
        command = []
        rest = body
        while rest:
            text = rest[0][1].strip()
            rest = rest[1:]
            command.append(text[2:] if not command else text)
            if not text.endswith("\\"):
                break
            command[-1] = command[-1][:-1].rstrip()
        command = " ".join(command)
        if not runs_infergrid and "skip" not in options:
            problems.append(f"{where}: only `infergrid` commands are run; "
                            "mark others <!-- doc-example: skip REASON -->")
            continue
        while rest and not rest[-1][1].strip():
            rest = rest[:-1]
        result.append(Example(shown, body[0][0], command, rest, options))
    return result


PROGRAM = r"(?:[\w./-]*/)?infergrid"  # infergrid, build/sim/infergrid, build-cost/sim/infergrid
FLAG = re.compile(r"(?<![\w-])--([A-Za-z][\w-]*)")


def commands_in(path, shown):
    """(file:line, first, command, text) of every infergrid command written in the file's sh and
    console blocks: `text` runs from after the program to the line's end, continuations (after a
    line ending in a backslash; in sh blocks also a synopsis line starting `--` or `[--`) joined;
    `first`: whether it stands where a command starts (not after other words on its line)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence, kind, found, current, programs = None, "", [], None, [PROGRAM]
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if match and (fence is None or (match.group(1) == fence and not match.group(2))):
            fence, kind = (match.group(1), match.group(2)) if fence is None else (None, "")
            current, programs = None, [PROGRAM]
            continue
        if fence is None or kind not in ("sh", "console"):
            continue
        text = "" if line.lstrip().startswith("#") else line.split(" #")[0].rstrip()
        if current is not None:
            if current[2].endswith("\\") or (kind == "sh" and re.match(r"^\s+\[?--", text)):
                current[2] = current[2].rstrip("\\") + " " + text.strip()
                continue
            current = None
        if kind == "console":
            if not text.startswith("$ "):
                continue
            text = text[2:]
        for name in re.findall(r"(?:^|[\s;])(\w+)=" + PROGRAM + r"(?=\s|;|$)", text):
            programs.append(r"\$\{?" + name + r"\}?")  # B=build/sim/infergrid, then $B ...
        start = re.search(r"(?:^|(?<=[\s|;&(\"']))(?:" + "|".join(programs) + r")(?=\s)", text)
        if start:
            # at a command's position (not an argument, as in `scripts/build.sh infergrid`)?
            first = not text[:start.start()].strip() or text[:start.start()].rstrip()[-1] in "|;&(\"'"
            current = [f"{shown}:{number}", first, text[start.end():].strip()]
            found.append(current)
    return [(where, first, (text.split() or [""])[0], text) for where, first, text in found]


def flag_problems(files, root, binary):
    """Flags that the docs' sh and console commands name and their command's --help lacks."""
    problems, helps = [], {}
    for path in files:
        shown = os.path.relpath(path, root)
        for where, first, command, text in commands_in(path, shown if not shown.startswith("..") else path):
            if not re.match(r"^[a-z][\w-]*$", command):
                continue
            if command not in helps:
                done = subprocess.run([binary, command, "--help"], capture_output=True, text=True)
                helps[command] = ({name.replace("_", "-") for name in FLAG.findall(done.stdout)}
                                  if done.returncode == 0 else None)
            known = helps[command]
            if known is None:  # elsewhere on a line `infergrid` may be an argument (a target)
                if first:
                    problems.append(f"{where}: `infergrid {command}`: no such command")
                continue
            unknown = sorted({name for name in FLAG.findall(text)
                              if name.replace("_", "-") not in known and name != "help"})
            if unknown:
                listed = ", ".join("--" + name for name in unknown)
                problems.append(f"{where}: `infergrid {command}` has no {listed}")
    return problems


def split_numbers(text):
    """A line's text with every number replaced by '#', and its numbers as strings."""
    return NUMBER.sub("#", text), NUMBER.findall(text)


def normalise(text):
    return " ".join(text.split())


def compare_line(example, number, documented, printed, tolerance, problems):
    """Compares one documented line with one printed line; False if their text differs."""
    documented, printed = normalise(documented), normalise(printed)
    prefix = documented.endswith(" ...")
    if prefix:  # the printed line's first words, as many as the documented part has
        documented = documented[:-4]
        words = len(documented.split())
        printed = " ".join(printed.split()[:words]) if words <= len(printed.split()) else None
        if printed is None:
            return False
    doc_shape, doc_numbers = split_numbers(documented)
    out_shape, out_numbers = split_numbers(printed)
    same_text = doc_shape == out_shape
    if not same_text:
        return False
    for doc, out in zip(doc_numbers, out_numbers):
        expected, got = float(doc.replace(",", "")), float(out.replace(",", ""))
        if abs(got - expected) <= tolerance * abs(expected):
            continue
        change = f"{(got - expected) / abs(expected) * 100:+.1f}%" if expected else "from 0"
        problems.append(f"{example.path}:{number}: documented {doc}, printed {out} "
                        f"({change}, tolerance {tolerance * 100:g}%)")
    return True


def resume(example, documented, printed, position, tolerance):
    """Where the output goes on after a '...': the first printed line from `position` on with the
    documented line's text and numbers, else (to report the numbers) the one with its text and
    the fewest numbers out of tolerance; None if no printed line has its text."""
    number, text = documented
    best, best_misses = None, None
    for index in range(position, len(printed)):
        misses = []
        if compare_line(example, number, text, printed[index], tolerance, misses):
            if not misses:
                return index
            if best is None or len(misses) < best_misses:
                best, best_misses = index, len(misses)
    return best


def compare(example, printed, problems):
    """Compares an example's documented output with the lines it printed."""
    tolerance = example.options.get("tolerance", DEFAULT_TOLERANCE)
    segments = [[]]  # runs of documented lines between '...' lines
    for number, text in example.output:
        if text.strip() == "...":
            segments.append([])
        else:
            segments[-1].append((number, text))
    position = 0
    for index, segment in enumerate(segments):
        if not segment:
            continue
        if index > 0:  # after a gap: the printed line that matches the segment's first best
            start = resume(example, segment[0], printed, position, tolerance)
            if start is None:
                number, text = segment[0]
                problems.append(f"{example.path}:{number}: documented '{normalise(text)}', "
                                "not printed after the lines before it")
                return
            position = start
        for number, text in segment:
            if position >= len(printed):
                problems.append(f"{example.path}:{number}: documented '{normalise(text)}', "
                                "printed nothing more")
                return
            if not compare_line(example, number, text, printed[position], tolerance, problems):
                problems.append(f"{example.path}:{number}: documented '{normalise(text)}', "
                                f"printed '{normalise(printed[position])}'")
                return
            position += 1
    if segments[-1] and position < len(printed):
        last = example.output[-1][0] if example.output else example.line
        problems.append(f"{example.path}:{last}: printed more than documented: "
                        f"'{normalise(printed[position])}' (end the block with '...' to elide it)")


def run(example, binary, root):
    """Runs one example; (problems, seconds)."""
    problems = []
    try:
        echo = ECHO.match(example.command)
        stdin = shlex.split(echo.group(1))[0] + "\n" if echo else ""
        argv = shlex.split(example.command[echo.end():] if echo else example.command)
    except ValueError as error:
        return [f"{example.path}:{example.line}: cannot split the command: {error}"], 0.0
    argv[0] = binary
    timeout = example.options.get("timeout", DEFAULT_TIMEOUT_S)
    begin = time.monotonic()
    try:
        done = subprocess.run(argv, cwd=root, input=stdin, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [f"{example.path}:{example.line}: no result within {timeout:g} s "
                "(a slower example needs <!-- doc-example: timeout=SECONDS -->)"], timeout
    except OSError as error:
        return [f"{example.path}:{example.line}: cannot run {binary}: {error}"], 0.0
    seconds = time.monotonic() - begin
    if done.returncode != 0:
        stderr = " ".join(done.stderr.strip().splitlines()[-3:])
        return [f"{example.path}:{example.line}: exit code {done.returncode}: {stderr}"], seconds
    printed = done.stdout.split("\n")
    while printed and not printed[-1].strip():
        printed.pop()
    compare(example, printed, problems)
    return problems, seconds


def main(argv):
    parser = argparse.ArgumentParser(add_help=True, usage=__doc__.split("Usage: ")[1].split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    parser.add_argument("--bin")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    binary = os.path.abspath(args.bin or os.path.join(root, "build", "sim", "infergrid"))
    files = args.files or ([os.path.join(root, "README.md")] +
                           sorted(glob.glob(os.path.join(root, "docs", "*.md"))))
    problems = []
    examples = []
    for path in files:
        shown = os.path.relpath(path, root)
        if shown.startswith(".."):
            shown = path
        examples.extend(examples_of(path, shown, problems))
    if args.list:
        for example in examples:
            state = f"skip: {example.options['skip']}" if "skip" in example.options else "run"
            print(f"{example.path}:{example.line}: [{state}] {example.command}")
        return 0
    if not os.access(binary, os.X_OK):
        print(f"no infergrid binary at {binary} (scripts/build.sh infergrid, or --bin)", file=sys.stderr)
        return 2
    problems.extend(flag_problems(files, root, binary))
    to_run = [e for e in examples if "skip" not in e.options]
    begin = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda e: run(e, binary, root), to_run))
    for example, (found, seconds) in zip(to_run, results):
        problems.extend(found)
    for problem in problems:
        print(problem)
    sys.stdout.flush()
    skipped = len(examples) - len(to_run)
    print(f"{len(to_run)} examples run, {skipped} skipped, {len(problems)} problems, "
          f"{time.monotonic() - begin:.1f} s", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
