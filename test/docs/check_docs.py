"""Checks that the documentation names what exists, where that is cheap:
- docs/architecture.md's stage table and pipeline drawing list the stages of
  `fkc --help`, in order;
- docs/architecture.md names every pass that fkc-opt registers with an fk-
  prefix;
- every source file that README.md or docs/*.md names in backquotes exists.

    python3 check_docs.py REPO_ROOT FKC FKC_OPT

Prints one line per finding and exits 1 if there is any.
"""

import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".td", ".def", ".py", ".sh")


def run(*command):
    return subprocess.run(command, check=True, capture_output=True,
                          text=True).stdout


def help_stages(fkc):
    """The stage names that `fkc --help` lists under "Stages"."""
    lines = run(fkc, "--help").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Stages"))
    stages = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        stages.append(line.split()[0])
    return stages


def table_stages(text):
    """The first column of the table headed `| stage | what it is |`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("| stage | what it is"))
    stages = []
    for line in lines[start + 2:]:
        match = re.match(r"\| `([a-z]+)` \|", line)
        if not match:
            break
        stages.append(match.group(1))
    return stages


def drawing_stages(text):
    """The `stage NAME` labels at the right of the pipeline drawing."""
    return re.findall(r"\s{2,}stage ([a-z]+)$", text, re.MULTILINE)


def registered_passes(fkc_opt):
    """The fk- passes of `fkc-opt --help`."""
    return sorted(set(re.findall(r"^\s+--(fk-[a-z-]+)\s", run(fkc_opt, "--help"),
                                 re.MULTILINE)))


def named_files(text):
    """Source files named in backquotes, with `{h,cpp}` expanded."""
    names = []
    for token in re.findall(r"`([A-Za-z0-9_./{},-]+)`", text):
        braces = re.match(r"(.*)\.\{([a-z,]+)\}$", token)
        expanded = ([braces.group(1) + "." + s for s in braces.group(2).split(",")]
                    if braces else [token])
        names += [n for n in expanded if n.endswith(SOURCE_SUFFIXES)]
    return names


def repository_files(root):
    paths = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [d for d in subdirectories
                             if not d.startswith(".") and d != "build"
                             and not d.startswith("build-")]
        paths += [os.path.relpath(os.path.join(directory, f), root) for f in files]
    return paths


def main():
    root, fkc, fkc_opt = sys.argv[1:4]
    findings = []
    architecture = open(os.path.join(root, "docs", "architecture.md")).read()

    stages = help_stages(fkc)
    for where, listed in [("stage table", table_stages(architecture)),
                          ("pipeline drawing", drawing_stages(architecture))]:
        if listed != stages:
            findings.append(f"docs/architecture.md: the {where} lists {listed}, "
                            f"fkc --help {stages}")

    for name in registered_passes(fkc_opt):
        if not re.search(r"(^|[^a-z-])-*" + re.escape(name) + r"($|[^a-z-])",
                         architecture, re.MULTILINE):
            findings.append(f"docs/architecture.md: pass '{name}' is not described")

    files = repository_files(root)
    documents = ["README.md"] + [os.path.join("docs", d) for d in
                                 sorted(os.listdir(os.path.join(root, "docs")))
                                 if d.endswith(".md")]
    for document in documents:
        text = open(os.path.join(root, document)).read()
        for name in named_files(text):
            if not any(path == name or path.endswith("/" + name) for path in files):
                findings.append(f"{document}: names '{name}', which does not exist")

    for finding in findings:
        print(finding)
    print(f"check_docs: {len(stages)} stages, {len(registered_passes(fkc_opt))} "
          f"passes, {len(documents)} documents; {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
