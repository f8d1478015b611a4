#!/usr/bin/env python3
"""Checks that dependencies point one way: every #include and proto import of a project file
names a file of its own folder or of a folder below it in LAYERS (docs/design.md, "Layout").

LAYERS is the one place the allowed order is written: each folder lists the folders it may
use directly, all of them listed before it; what those may use, it may use too. Folders not
listed (tests/, fuzz/, scripts/) sit on top and may include anything. A file in a listed
folder that includes a folder that is not listed is an error too, so a new folder must be
placed here before it is used.

Usage: scripts/checks/check-includes.py [REPO_ROOT]   exit 0: clean; 1: violations, one line each.
       scripts/checks/check-includes.py --self-test    the checker on a scratch tree with known faults.
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
    # The simulator core: a plan and a workload in, events and metrics out.
    ("sim/core/personality", ["base"]),
    ("sim/core/cost", ["calibration", "sim/core/personality"]),
    ("sim/core/metrics", ["hardware"]),
    ("sim/core/memory_plan", ["sim/core/personality", "hardware"]),
    ("sim/core/serving", ["sim/core/cost", "sim/core/metrics", "traces"]),
    ("sim/core/engine", ["sim/core/serving"]),
    # The entry point: settings resolved into a setup, the workload opened, Simulate.
    ("sim/core/simulator", ["sim/core/engine", "sim/core/memory_plan"]),
    # The product surface around it: results, files, reports, clients, plans, sweeps, commands.
    ("sim/app/results", ["models"]),  # the protobuf messages of every result
    ("sim/app/format", ["base"]),
    # SLO-miss classification and latency errors, and `validate`'s report of them (a result
    # message, rendered as a table): the report is the validation's, so it uses results and format.
    ("sim/app/validation", ["sim/app/results", "sim/app/format"]),
    ("sim/app/plan", ["sim/app/results", "sim/app/format"]),  # SLOs, candidates, capacity searches (no simulation)
    ("sim/app/report", ["sim/app/results", "sim/app/format", "sim/app/plan"]),  # the HTML report
    ("sim/app/output", ["sim/core/engine", "sim/core/memory_plan", "sim/app/results", "sim/app/format"]),
    ("sim/app/bench", ["traces"]),  # the engines' benchmark clients (no simulation)
    ("sim/app/cli", ["sim/core/simulator", "sim/app/results", "sim/app/bench"]),
    ("sim/app/sweep", ["sim/app/cli", "sim/app/results", "sim/app/format"]),  # sweep specs and result folders
    # The accounting reports (memory, roofline, train, vector-index, catalog listings) without
    # their commands: built from a resolved accounting setup, rendered as tables.
    ("sim/app/accounting", ["sim/app/cli", "sim/app/format"]),
    # The run service: simulation plans run here or in a child process (with simulate's HTML
    # report), bench and sweep runs and the plans they adjust, what `plan` assumes and its capacity search.
    ("sim/app/run", ["sim/app/cli", "sim/app/output", "sim/app/sweep", "sim/app/report", "sim/app/plan"]),
    ("sim/app/commands", ["sim/app/run", "sim/app/accounting", "sim/app/validation", "sim/app/report", "sim/app/plan"]),
    ("sim", ["sim/app/commands"]),  # infergrid_main.cc
    ("sim/app/python", ["sim/app/commands"]),  # the `infergrid` Python module
]

SOURCE_SUFFIXES = (".h", ".cc", ".cu", ".cuh", ".proto")
INCLUDE = re.compile(r'^\s*(?:#\s*include|import)\s+"([^"]+)"')


# The simulator core never uses the product surface (docs/design.md, "Layout"): a LAYERS entry
# that would let it is itself an error.
CORE, APP = "sim/core/", "sim/app/"


def allowed_sets(layers=None):
    """Folder -> the set of folders it may include (itself and everything below it)."""
    allowed = {}
    for folder, uses in layers or LAYERS:
        below = {folder}
        for used in uses:
            if used not in allowed:
                raise SystemExit(f"check-includes.py: {folder} uses {used}, which is not listed before it")
            below |= allowed[used]
        allowed[folder] = below
        if folder.startswith(CORE) and any(f.startswith(APP) for f in below):
            raise SystemExit(f"check-includes.py: {folder} is in {CORE} and may not use {APP}")
    return allowed


def folder_of(path, folders):
    """The listed folder that owns the folder `path` (repository-relative), or None. A listed
    folder owns its subfolders (models/catalog, traces/benchmarks), except one with listed
    subfolders of its own (sim/): there each subfolder must be listed."""
    if path in folders:
        return path
    containers = {f.rsplit("/", i)[0] for f in folders for i in range(1, f.count("/") + 1)}
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
                                  "(scripts/checks/check-includes.py)")
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
                                          "not in LAYERS (scripts/checks/check-includes.py)")
                        elif target_folder not in allowed[source_folder]:
                            errors.append(f"{path}:{number}: includes {target}: {source_folder} "
                                          f"may not use {target_folder} (it is not below it)")
    return errors


def self_test():
    """Checks the checker: a clean scratch tree passes; an upward include, a sideways one
    between sim folders, an upward proto import and an unlisted sim folder are each reported."""
    # check-docs: off (the scratch tree's paths)
    files = {
        "base/a.h": '#include "absl/strings/str_cat.h"\n',
        "models/m.h": '#include "base/a.h"\n',
        "sim/core/cost/c.h": '#include "models/m.h"\n#include "hardware/h.h"\n',
        "hardware/h.h": '#include "models/m.h"\n',
        "sim/app/commands/x.cc": '#include "sim/core/cost/c.h"\n#include "traces/t.h"\n',
        "traces/t.h": '#include "base/a.h"\n',
    }
    faults = {
        "models/bad.h": ('#include "hardware/h.h"\n', "models may not use hardware"),
        "sim/core/serving/bad.h": ('#include "sim/app/commands/x.h"\n', "sim/core/serving may not use sim/app/commands"),
        "base/bad.proto": ('import "models/m.proto";\n', "base may not use models"),
        "sim/newfolder/a.h": ("", "folder sim/newfolder is not in LAYERS"),
        "traces/bad.h": ('#include "models/m.h"\n', "traces may not use models"),
    }
    # check-docs: on
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
    try:
        allowed_sets([("sim/app/format", []), ("sim/core/cost", ["sim/app/format"])])
        print("self-test failed: a core folder listed as using an app folder was accepted")
        return 1
    except SystemExit:
        pass
    print(f"self-test: {len(faults)} planted faults reported, clean tree passed, core-uses-app refused")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    errors = violations(root)
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} include(s) against the layer order in scripts/checks/check-includes.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
