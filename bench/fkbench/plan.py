"""--dry-run: prints what a run would do (cases, signatures, work, checks,
peers, timing) and runs nothing, so it needs neither torch nor a GPU. The
signatures come from the artifacts, so the cases must have been compiled
(bench/compile.sh)."""

import os
import sys

from . import artifacts, paths, peers
from .report import format_bytes
from .timing import TimingPlan


def print_plan(args, cases, unusable):
    """Prints the plan of `cases` (loaded) and why each of `unusable`
    (name -> reason) cannot run; exit status 1 if any cannot."""
    status = artifacts.compile_status(args.artifacts)
    lib = paths.fkrt_library(args.fkrt_lib)
    print("fkc benchmark plan (dry run: nothing is run)")
    print("  cases folder: %s" % paths.relative(paths.CASES_DIR))
    print("  artifacts:    %s" % args.artifacts)
    print("  fkrt library: %s (%s)" % (lib, "present" if os.path.exists(lib)
                                        else "missing"))
    print("  output:       %s" % paths.results_dir(args.out))
    t = TimingPlan(args.budget, args.quick)
    print("  timing:       %.2g s of timed runs per peer and case, %d to %d "
          "iterations; at most %.2g s for a slow peer; cases time out after "
          "%g s, none starts after %g s" % (t.budget, t.min_iters,
                                            t.max_iters, t.slow_budget,
                                            args.case_timeout,
                                            args.time_limit))
    for case in cases:
        print()
        print("%s: %s" % (case.name, case.description))
        art = artifacts.artifact_path(args.artifacts, case.name)
        print("  graph:   %s of %s, signature from %s%s" % (
            case.signature.name, paths.relative(case.graph_path),
            paths.relative(art),
            " (compile.sh: fkc %s, ptxas %s)" % status[case.name]
            if case.name in status else ""))
        print("  inputs:  %s" % "; ".join(t.text() for t in case.inputs))
        print("  outputs: %s" % "; ".join(t.text() for t in case.outputs))
        work = ("%s moved (inputs read once + outputs written once)"
                % format_bytes(case.bytes))
        if case.flop_formula:
            work = "%.4g GFLOP; %s" % (case.flops / 1e9, work)
        print("  work:    %s; reported in %s" % (work, case.unit))
        print("  check:   fkc vs eager, relative L2 error < %g" %
              case.tolerance)
        chosen = [p for p in case.peers() if p in args.peer_list]
        print("  peers:   %s" % ", ".join(peers.LABELS[p] for p in chosen))
        if case.eager_is:
            print("  eager:   runs %s" % case.eager_is)
    if not unusable:
        return 0
    print(file=sys.stderr)
    for name, why in unusable.items():
        print("run: %s cannot run: %s" % (name, why), file=sys.stderr)
    print("run: %d of %d cases have no usable artifact; %s" % (
        len(unusable), len(cases) + len(unusable), artifacts.COMPILE_HINT),
        file=sys.stderr)
    return 1
