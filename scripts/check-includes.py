#!/usr/bin/env python3
"""Checks that dependencies point one way: every #include and proto import of a project file
names a file of its own folder or of a folder below it in LAYERS (docs/design.md, "Layout").

LAYERS is the one place the allowed order is written: each folder lists the folders it may
use directly, all of them listed before it; what those may use, it may use too. Folders not
listed (tests/, fuzz/, scripts/) sit on top and may include anything. A file in a listed
folder that includes a folder that is not listed is an error too, so a new folder must be
placed here before it is used.

Usage: scripts/check-includes.py [REPO_ROOT]   exit 0: clean; 1: violations, one line each.
       scripts/check-includes.py --self-test    the checker on a scratch tree with known faults.
"""
import os
import re
import sys
import tempfile

LAYERS = [
    ("base", []),
    ("models", ["base"]),
    ("hardware", ["models"]),
    ("calibration", ["hardware"]),
    ("traces", ["base"]),
    ("kernels", []),  # CUDA micro-benchmarks, built standalone on the GPU machine
    ("sim/reports", ["base"]),
    ("sim/format", ["base"]),
    ("sim/report", ["sim/reports", "sim/format"]),  # the HTML report
    ("sim/validation", ["base"]),
    ("sim/personality", ["base"]),
    ("sim/cost", ["calibration", "sim/personality"]),
    ("sim/metrics", ["hardware"]),
    ("sim/memory_plan", ["sim/personality", "sim/format", "sim/reports", "hardware"]),
    ("sim/serving", ["sim/cost", "sim/metrics", "traces"]),
    ("sim/engine", ["sim/serving"]),
    ("sim/output", ["sim/engine", "sim/memory_plan", "sim/reports", "sim/format"]),
    ("sim/bench", ["traces"]),  # the engines' benchmark clients (no simulation)
    ("sim/plan", ["sim/reports", "sim/format"]),  # SLOs, candidates, capacity searches (no simulation)
    ("sim/cli", ["sim/memory_plan", "sim/serving", "sim/bench", "traces"]),
    ("sim/sweep", ["sim/cli", "sim/reports", "sim/format"]),  # sweep specs and result folders
    ("sim/commands", ["sim/cli", "sim/output", "sim/validation", "sim/report", "sim/plan", "sim/sweep"]),
    ("sim", ["sim/commands"]),  # infergrid_main.cc
    ("sim/python", ["sim/commands"]),  # the `infergrid` Python module
]

SOURCE_SUFFIXES = (".h", ".cc", ".cu", ".cuh", ".proto")
INCLUDE = re.compile(r'^\s*(?:#\s*include|import)\s+"([^"]+)"')


def allowed_sets():
    """Folder -> the set of folders it may include (itself and everything below it)."""
    allowed = {}
    for folder, uses in LAYERS:
        below = {folder}
        for used in uses:
            if used not in allowed:
                raise SystemExit(f"check-includes.py: {folder} uses {used}, which is not listed before it")
            below |= allowed[used]
        allowed[folder] = below
    return allowed


def folder_of(path, folders):
    """The listed folder that owns the folder `path` (repository-relative), or None. A listed
    folder owns its subfolders (models/catalog, traces/benchmarks), except one with listed
    subfolders of its own (sim/): there each subfolder must be listed."""
    if path in folders:
        return path
    containers = {f.rsplit("/", 1)[0] for f in folders if "/" in f}
    best = None
    for folder in folders:
        if path.startswith(folder + "/") and folder not in containers:
            if best is None or len(folder) > len(best):
                best = folder
    return best


def violations(root):
    """The violations in the tree at `root`, one line each."""
    os.chdir(root)
    allowed = allowed_sets()
    folders = list(allowed)
    top_level = {f.split("/")[0] for f in folders}
    errors = []
    for top in sorted(top_level):
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                source_folder = folder_of(os.path.dirname(path), folders)
                if source_folder is None:
                    errors.append(f"{path}: folder {os.path.dirname(path)} is not in LAYERS "
                                  "(scripts/check-includes.py)")
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = match.group(1)
                        if target.split("/")[0] not in top_level:
                            continue  # third-party (absl/, google/, simgrid/, boost/, ...)
                        target_folder = folder_of(os.path.dirname(target), folders)
                        if target_folder is None:
                            errors.append(f"{path}:{number}: includes {target}, whose folder is "
                                          "not in LAYERS (scripts/check-includes.py)")
                        elif target_folder not in allowed[source_folder]:
                            errors.append(f"{path}:{number}: includes {target}: {source_folder} "
                                          f"may not use {target_folder} (it is not below it)")
    return errors


def self_test():
    """Checks the checker: a clean scratch tree passes; an upward include, a sideways one
    between sim folders, an upward proto import and an unlisted sim folder are each reported."""
    files = {
        "base/a.h": '#include "absl/strings/str_cat.h"\n',
        "models/m.h": '#include "base/a.h"\n',
        "sim/cost/c.h": '#include "models/m.h"\n#include "hardware/h.h"\n',
        "hardware/h.h": '#include "models/m.h"\n',
        "sim/commands/x.cc": '#include "sim/cost/c.h"\n#include "traces/t.h"\n',
        "traces/t.h": '#include "base/a.h"\n',
    }
    faults = {
        "models/bad.h": ('#include "hardware/h.h"\n', "models may not use hardware"),
        "sim/serving/bad.h": ('#include "sim/commands/x.h"\n', "sim/serving may not use sim/commands"),
        "base/bad.proto": ('import "models/m.proto";\n', "base may not use models"),
        "sim/newfolder/a.h": ("", "folder sim/newfolder is not in LAYERS"),
        "traces/bad.h": ('#include "models/m.h"\n', "traces may not use models"),
    }
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        def write(path, text):
            os.makedirs(os.path.join(scratch, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(scratch, path), "w") as f:
                f.write(text)
        for path, text in files.items():
            write(path, text)
        clean = violations(scratch)
        os.chdir(cwd)
        if clean:
            print("self-test: a clean tree was reported:", *clean, sep="\n  ")
            return 1
        for path, (text, _) in faults.items():
            write(path, text)
        found = violations(scratch)
        os.chdir(cwd)
    missing = [f"{path}: {why}" for path, (_, why) in faults.items()
               if not any(line.startswith(path) and why in line for line in found)]
    if missing or len(found) != len(faults):
        print("self-test failed; expected:", *missing, "got:", *found, sep="\n  ")
        return 1
    print(f"self-test: {len(faults)} planted faults reported, clean tree passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    errors = violations(root)
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} include(s) against the layer order in scripts/check-includes.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
