#!/usr/bin/env python3
"""Checks that the image's runtime stage (scripts/docker/Dockerfile) installs every shared library
the built command and Python module load, without Docker: the Debian packages owning the files
`ldd` resolves must be among the runtime packages listed between the Dockerfile's
"# runtime packages begin" and "# runtime packages end" lines, their dependencies (as this
machine's dpkg records them), or the packages every Debian 12 image has (Essential or
Priority required). A library that no Debian package owns is an error too.

Usage: scripts/checks/check-docker-runtime.py DOCKERFILE BINARY...   exit 0: covered; 1: one line per
missing library; --self-test checks the parsing on a small example.
"""
import os
import re
import subprocess
import sys


def runtime_packages(dockerfile_text):
    """The package names of `apt-get install` between the runtime markers."""
    block = re.search(r"# runtime packages begin\n(.*?)# runtime packages end", dockerfile_text, re.S)
    if not block:
        raise ValueError("no '# runtime packages begin' ... '# runtime packages end' block")
    text = block.group(1).replace("\\\n", " ")
    install = re.search(r"apt-get install((?:\s+[-\w.+=]+)+)", text)
    if not install:
        raise ValueError("no apt-get install in the runtime block")
    return {word for word in install.group(1).split() if not word.startswith("-")}


def dependency_names(field):
    """Package names in a Depends field: every alternative, versions and architectures dropped."""
    names = set()
    for clause in filter(None, (c.strip() for c in field.split(","))):
        for alternative in clause.split("|"):
            name = alternative.strip().split(" ")[0].split(":")[0]
            if name:
                names.add(name)
    return names


def installed_packages():
    """{package: (dependencies, provides, in every image)} from dpkg."""
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package}\t${Depends}, ${Pre-Depends}\t${Provides}\t${Essential}\t${Priority}\n"],
        check=True, capture_output=True, text=True).stdout
    packages = {}
    for line in out.splitlines():
        name, depends, provides, essential, priority = (line.split("\t") + [""] * 5)[:5]
        packages[name] = (dependency_names(depends), dependency_names(provides),
                          essential == "yes" or priority == "required")
    return packages


def closure(roots, packages):
    """The roots and everything they depend on, virtual names resolved through Provides."""
    providers = {}
    for name, (_, provides, _) in packages.items():
        for virtual in provides:
            providers.setdefault(virtual, set()).add(name)
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        for real in ({name} if name in packages else providers.get(name, set())):
            if real not in seen:
                seen.add(real)
                todo.extend(packages[real][0])
    return seen


def owners(binary):
    """{library path: owning package or None} of what ldd resolves for the binary (one dpkg -S
    for all of them: each call reads every package's file list)."""
    out = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    libraries = {path: os.path.realpath(path) for path in re.findall(r"=>\s+(/\S+)", out)}
    # Merged /usr: dpkg may record a /usr/lib file under /lib.
    candidates = {real: [real, real.replace("/usr/lib/", "/lib/", 1)] for real in libraries.values()}
    query = subprocess.run(["dpkg", "-S"] + sorted({c for cs in candidates.values() for c in cs}),
                           capture_output=True, text=True).stdout
    owner_of = {}
    for line in query.splitlines():
        package, _, path = line.partition(": ")
        owner_of[path.strip()] = package.split(",")[0].split(":")[0].strip()
    return {path: next((owner_of[c] for c in candidates[real] if c in owner_of), None)
            for path, real in libraries.items()}


def self_test():
    text = ("FROM x\n# runtime packages begin\nRUN apt-get update \\\n && apt-get install -y --no-install-recommends \\\n"
            "      liba1 libb2 \\\n      python3 \\\n && rm -rf /x\n# runtime packages end\n")
    assert runtime_packages(text) == {"liba1", "libb2", "python3"}, runtime_packages(text)
    assert dependency_names("libc6 (>= 2.34), libx | liby:any, ") == {"libc6", "libx", "liby"}
    packages = {"a": ({"b", "virt"}, set(), False), "b": (set(), set(), False), "c": (set(), {"virt"}, False),
                "d": (set(), set(), False)}
    assert closure({"a"}, packages) == {"a", "b", "c"}
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        listed = runtime_packages(f.read())
    packages = installed_packages()
    unknown = sorted(name for name in listed if name not in packages)
    covered = closure(listed, packages) | {name for name, info in packages.items() if info[2]}
    problems = [f"{argv[1]}: runtime package {name} is not installed here, so its libraries cannot be checked"
                for name in unknown]
    for binary in argv[2:]:
        for library, package in sorted(owners(binary).items()):
            if package is None:
                problems.append(f"{binary}: loads {library}, which no Debian package owns")
            elif package not in covered:
                problems.append(f"{binary}: loads {library} from {package}, which the runtime stage of {argv[1]} "
                                f"does not install")
    for line in problems:
        print(line)
    if not problems:
        print(f"{argv[1]}: the runtime stage installs every library of {', '.join(argv[2:])}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
