"""The folder bench/compile.sh fills (build/bench-artifacts/ by default):
an artifact NAME.ptx per case, status.tsv (how fkc and ptxas did on each
case) and COMMIT (the commit compiled). Its readers say, when a case has no
usable artifact, why and what to do about it."""

import os

from . import manifest, paths

COMPILE_HINT = "compile the cases with `bash bench/compile.sh`"


class ArtifactError(Exception):
    """A case whose signature cannot be read: no artifact, or one without
    the case's graph."""


def artifact_path(folder, case_name):
    return os.path.join(folder, case_name + ".ptx")


def check_folder(folder):
    """Raises ArtifactError when the folder does not exist at all."""
    if not os.path.isdir(folder):
        raise ArtifactError("no artifacts folder %s: %s first (or give "
                            "--artifacts DIR)" % (folder, COMPILE_HINT))


def compile_status(folder):
    """case -> (fkc, ptxas) from compile.sh's status.tsv, if there."""
    status = {}
    path = os.path.join(folder, "status.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines()[1:]:
                parts = line.split("\t")
                if len(parts) == 3:
                    status[parts[0]] = (parts[1], parts[2])
    return status


def compiled_commit(folder):
    """The commit compile.sh compiled (its COMMIT file), or None."""
    path = os.path.join(folder, "COMMIT")
    if os.path.exists(path):
        with open(path) as f:
            return f.read().strip() or None
    return None


def compiled_options(folder):
    """The fkc options compile.sh passed (its FKC_OPTIONS file), or None
    when there were none."""
    path = os.path.join(folder, "FKC_OPTIONS")
    if os.path.exists(path):
        with open(path) as f:
            return f.read().strip() or None
    return None


def signature(folder, case_name):
    """The signature of graph `case_name` in the case's artifact."""
    path = artifact_path(folder, case_name)
    if not os.path.exists(path):
        status = compile_status(folder).get(case_name)
        why = ("compile.sh: fkc %s, ptxas %s" % status if status
               else COMPILE_HINT)
        raise ArtifactError("no artifact %s (%s)" % (paths.relative(path),
                                                     why))
    try:
        return manifest.read_signature(path, case_name)
    except (OSError, manifest.ManifestError) as e:
        raise ArtifactError(str(e)) from None
