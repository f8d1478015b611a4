#!/usr/bin/env python3
"""Checks that no function in base models hardware calibration traces sim (*.cc, *.h) is longer
than LIMIT lines (default 80), counted from the first line of its signature to its closing
brace, inclusive. kernels/ (CUDA, built apart) is not checked.

A function is a brace block at namespace level (or in a class or struct body) whose head, the
text since the previous ';', '{' or '}', has a ')' and does not declare a class, struct, enum
or union; its lambdas and local classes count as its own lines. Comments, string and character
literals (raw strings too) and preprocessor lines are blanked before braces are matched, digit
separators (1'000) are not quotes, and the braces of a constructor's member initializers
(a_{1}) are not its body. Python 3 standard library only.

Usage: scripts/checks/check-function-length.py [--limit N] [REPO_ROOT]
         prints `N path:line name` for each function over the limit, longest first;
         exit 0: none; 1: some.
       scripts/checks/check-function-length.py --self-test
         the counting on small inline examples with known answers.
"""
import os
import re
import sys

FOLDERS = ["base", "models", "hardware", "calibration", "traces", "sim"]
SUFFIXES = (".cc", ".h")
DEFAULT_LIMIT = 80

RAW_STRING = re.compile(r'R"([^()\\\s]{0,16})\(')
TYPE_HEAD = re.compile(r"\b(class|struct|union)\b[^()]*$")
ENUM_HEAD = re.compile(r"\benum\b[^()]*$")
# `Foo::Foo(int a) : a_` -- a head that has reached a constructor's member initializers.
INIT_LIST = re.compile(r"\)\s*(?:noexcept\s*)?:(?!:)")
# What may precede a signature in its head: blank space, access labels.
LEAD = re.compile(r"(?:\s|\b(?:public|private|protected)\s*:(?!:))*")
NAME = re.compile(r"((?:[A-Za-z_~][\w~]*::)*(?:operator\s*(?:\(\)|[^\s(]+)|[A-Za-z_~][\w~]*))\s*\(")


def blank(text):
    """`text` with comments, literals and preprocessor lines replaced by spaces (newlines kept,
    so offsets and line numbers stay those of the source)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def clear(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":
            end = i
            while True:  # the directive and its backslash-continued lines
                nl = text.find("\n", end)
                if nl < 0:
                    end = n
                    break
                if text[nl - 1] != "\\":
                    end = nl
                    break
                end = nl + 1
            clear(i, end)
            i = end
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            clear(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            clear(i, end)
            i = end
        elif c == "R" and RAW_STRING.match(text, i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            delimiter = RAW_STRING.match(text, i).group(1)
            end = text.find(")" + delimiter + '"', i)
            end = n if end < 0 else end + len(delimiter) + 2
            clear(i, end)
            i = end
        elif c == "'" and is_digit_separator(text, i):
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            clear(i, min(j + 1, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def is_digit_separator(text, i):
    """True when the quote at `i` sits inside a number (1'000, 0xFF'FF)."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "'."):
        j -= 1
    return j < i and text[j].isdigit() and i + 1 < len(text) and text[i + 1].isalnum()


def functions(text):
    """(first line, length in lines, name) of each function in C++ source `text`."""
    s = blank(text)
    found = []
    stack = []  # 'ns', 'type', 'enum', 'block', 'init' or ('fn', signature offset, head)
    last = 0  # where the current head starts
    for i, ch in enumerate(s):
        if ch == "{":
            head = s[last:i]
            outer = all(k in ("ns", "type") for k in stack)
            if re.search(r"\bnamespace\b", head) or re.fullmatch(r'\s*extern\s+"?\s*"?\s*', head):
                kind = "ns"
            elif outer and INIT_LIST.search(head) and re.search(r"[\w>]\s*$", head):
                stack.append("init")  # a member initializer a_{...}: part of the head
                continue
            elif outer and ENUM_HEAD.search(head):
                kind = "enum"
            elif outer and TYPE_HEAD.search(head):
                kind = "type"
            elif outer and ")" in head:
                kind = ("fn", last + LEAD.match(head).end(), head)
            else:
                kind = "block"
            stack.append(kind)
            last = i + 1
        elif ch == "}":
            kind = stack.pop() if stack else "block"
            if kind == "init":
                continue
            if isinstance(kind, tuple):
                first = s.count("\n", 0, kind[1]) + 1
                length = s.count("\n", 0, i) + 1 - first + 1
                name = NAME.search(kind[2])
                found.append((first, length, re.sub(r"\s+", "", name.group(1)) if name else "?"))
            last = i + 1
        elif ch == ";":
            if not (stack and stack[-1] == "init"):
                last = i + 1
    return found


def long_functions(root, limit):
    """(length, path:line, name) of each function over `limit` lines, longest first."""
    result = []
    for folder in FOLDERS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                where = os.path.relpath(path, root)
                for first, length, function in functions(text):
                    if length > limit:
                        result.append((length, f"{where}:{first}", function))
    result.sort(key=lambda r: (-r[0], r[1]))
    return result


SELF_TEST_CASES = [
    # (what it checks, source, expected [(first line, length, name)])
    ("one-line and short functions",
     "int A() { return 1; }\nint B() {\n  return 2;\n}\n",
     [(1, 1, "A"), (2, 3, "B")]),
    ("a signature over several lines counts from its first line",
     "absl::StatusOr<std::vector<int>> C(int a,\n                                   int b) {\n  return {};\n}\n",
     [(1, 4, "C")]),
    ("braces in comments, strings and characters are skipped",
     'void D() {\n  const char* s = "}{";\n  char c = \'}\';\n  // }\n  /* {\n  } */\n}\n',
     [(1, 7, "D")]),
    ("raw strings, escaped quotes and digit separators",
     'void E() {\n  auto r = R"x(}"\n{)x";\n  auto q = "\\"}";\n  int n = 1\'000\'000;\n  char c = \'{\';\n}\n',
     [(1, 7, "E")]),
    ("namespaces, classes and their member functions; types and enums are not functions",
     "namespace a {\nnamespace {\nstruct S {\n  int F() const {\n    return 1;\n  }\n};\n"
     "enum class K { kA, kB };\n}  // namespace\nclass T : public S {\n public:\n  T() {}\n};\n}  // namespace a\n",
     [(4, 3, "F"), (12, 1, "T")]),
    ("lambdas and local blocks count as their function's lines",
     "int G() {\n  auto f = [](int x) {\n    return x;\n  };\n  {\n    int y = 0;\n  }\n  return f(1);\n}\n",
     [(1, 9, "G")]),
    ("member initializer braces are part of the head, not the body",
     "Foo::Foo(int a)\n    : a_{a},\n      b_(a) {\n  Init();\n}\n",
     [(1, 5, "Foo::Foo")]),
    ("preprocessor lines, templates, operators and initialized variables",
     "#include <map>\n#define BODY { {\nconst std::map<int, int> kM = {{1, 2}};\ntemplate <typename T>\n"
     "bool X::operator==(const T& o) const {\n  return true;\n}\n",
     [(4, 4, "X::operator==")]),
]


def self_test():
    """Runs SELF_TEST_CASES; prints what differs."""
    failures = 0
    for what, source, expected in SELF_TEST_CASES:
        got = functions(source)
        if got != expected:
            failures += 1
            print(f"self-test: {what}: expected {expected}, got {got}")
    if failures:
        return 1
    print(f"self-test: {len(SELF_TEST_CASES)} examples counted as expected")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    limit = DEFAULT_LIMIT
    if len(argv) >= 2 and argv[0] == "--limit":
        limit = int(argv[1])
        argv = argv[2:]
    if len(argv) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    found = long_functions(root, limit)
    for length, where, name in found:
        print(f"{length} {where} {name}")
    if found:
        print(f"{len(found)} function(s) over {limit} lines: split them along their steps "
              "(scripts/checks/check-function-length.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
