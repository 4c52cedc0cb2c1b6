"""Where things are: the repository, the case graphs, the artifacts, the
runtime library and the results. The defaults live here so that the command
line, the dry run and the worker agree on them."""

import os

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(BENCH)
CASES_DIR = os.path.join(BENCH, "cases")
RUN_SCRIPT = os.path.join(BENCH, "run.py")
DEFAULT_ARTIFACTS = os.path.join(REPO, "build", "bench-artifacts")


def graph_path(case_name):
    """The case's graph file, which bench/compile.sh compiles."""
    return os.path.join(CASES_DIR, case_name + ".graph")


def fkrt_library(explicit=None):
    """The runtime library: `explicit` (--fkrt-lib), else $FKRT_LIBRARY,
    else the first built of build-device/ and build/ (build-device/'s path
    when neither is)."""
    if explicit:
        return os.path.abspath(explicit)
    if os.environ.get("FKRT_LIBRARY"):
        return os.environ["FKRT_LIBRARY"]
    for build in ("build-device", "build"):
        path = os.path.join(REPO, build, "runtime", "libfkrt.so")
        if os.path.exists(path):
            return path
    return os.path.join(REPO, "build-device", "runtime", "libfkrt.so")


def results_dir(explicit=None):
    """Where the results go: `explicit` (--out), else $OUT, else
    bench/results/."""
    if explicit:
        return explicit
    if os.environ.get("OUT"):
        return os.environ["OUT"]
    return os.path.join(BENCH, "results")


def relative(path):
    """`path` relative to the repository when it is inside it, as the
    results and messages write it; else as it is."""
    rel = os.path.relpath(path, REPO)
    return path if rel.startswith(os.pardir) else rel
