"""The command line of bench/run.py: its options, and a run from the cases
chosen to the report written. bench/README.md documents the options."""

import argparse
import os
import sys

from . import artifacts, cases, paths, peers, plan, report, supervisor, worker


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="run.py", description="fkc's peer benchmark (see "
                                   "bench/README.md)")
    p.add_argument("--cases", default="*",
                   help="comma-separated case names or patterns "
                        "(gelu*,mlp_f16)")
    p.add_argument("--peers", default=",".join(peers.NAMES),
                   help="comma-separated peers to run, of: " +
                        ",".join(peers.NAMES))
    p.add_argument("--quick", action="store_true",
                   help="fewer and shorter timing runs")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan (cases, sizes, artifacts); no torch")
    p.add_argument("--artifacts", default=paths.DEFAULT_ARTIFACTS,
                   help="folder of the fkc artifacts NAME.ptx, which give "
                        "the cases' signatures (default build/bench-"
                        "artifacts, written by bench/compile.sh)")
    p.add_argument("--fkrt-lib", default=None,
                   help="the runtime library (default: $FKRT_LIBRARY, else "
                        "build-device/runtime/libfkrt.so, else "
                        "build/runtime/libfkrt.so)")
    p.add_argument("--out", default=None,
                   help="output folder (default: $OUT if set, else "
                        "bench/results)")
    p.add_argument("--name", default=None,
                   help="file name stem of the results (default "
                        "<date>-<gpu>[-quick])")
    p.add_argument("--commit", default=None,
                   help="the commit measured (default: $FKC_COMMIT, the "
                        "artifacts' COMMIT file, or git)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compile-mode", default="default",
                   help="torch.compile mode (default: 'default')")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds of timed runs per peer and case (default "
                        "0.4, quick 0.1)")
    p.add_argument("--case-timeout", type=float, default=150,
                   help="seconds a case may take before its process is "
                        "killed and the run goes on with the next case")
    p.add_argument("--time-limit", type=float, default=360,
                   help="seconds after which no new case is started; 60 s "
                        "later the case in progress is stopped too")
    p.add_argument("--no-ceilings", action="store_true",
                   help="skip measuring device copy and cuBLAS GEMM")
    p.add_argument("--in-process", action="store_true",
                   help="run the cases in this process (no restart after a "
                        "crash or hang)")
    p.add_argument("--device", default="cuda",
                   help="torch device (cpu only to test this script)")
    p.add_argument("--shrink", type=int, default=1,
                   help="divide dimensions >= 256 by this (a test aid; "
                        "disables fkc, whose artifacts have fixed shapes)")
    # Internal: a worker process run by the supervisor.
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--partial", default=None, help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=None,
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.peer_list = [x for x in args.peers.split(",") if x]
    for peer in args.peer_list:
        if peer not in peers.NAMES:
            p.error("unknown peer %r (peers: %s)"
                    % (peer, ", ".join(peers.NAMES)))
    if args.budget is None:
        args.budget = 0.1 if args.quick else 0.4
    args.artifacts = os.path.abspath(args.artifacts)
    return args


def _with_unusable(state, unusable):
    """The run's state with a result for each case that could not run."""
    results = dict(state["results"])
    for name, why in unusable.items():
        results[name] = {"case": name, "peers": {},
                         "error": "not run: " + why}
    return dict(state, results=results)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.worker:
        return worker.main(args)
    chosen, unknown = cases.select(args.cases)
    if unknown:
        print("run: no case matches %s (cases: %s)" % (
            ", ".join(unknown), ", ".join(c.name for c in cases.CASES)),
            file=sys.stderr)
        return 2
    try:
        artifacts.check_folder(args.artifacts)
    except artifacts.ArtifactError as e:
        print("run: %s" % e, file=sys.stderr)
        return 2
    loaded, unusable = cases.load(chosen, args.artifacts, args.shrink)
    if args.dry_run:
        return plan.print_plan(args, loaded, unusable)
    if not loaded:
        for name, why in unusable.items():
            print("run: %s: %s" % (name, why), file=sys.stderr)
        print("run: no case can run; %s" % artifacts.COMPILE_HINT,
              file=sys.stderr)
        return 2
    for name, why in unusable.items():
        worker.log("[%s] not run: %s" % (name, why))
    # Every chosen case is in the report, those without an artifact too.
    by_name = {c.name: c for c in loaded}
    reported = [by_name.get(c.name, c) for c in chosen]
    if args.in_process:
        state = supervisor.in_process(args, loaded)
    else:
        # The report is rewritten after each case, so that a run stopped
        # from outside still leaves what it measured.
        state = supervisor.supervise(
            args, loaded, on_case=lambda st: report.write_report(
                args, reported, _with_unusable(dict(st, elapsed_s=None),
                                               unusable), quiet=True))
    written = report.write_report(args, reported,
                                  _with_unusable(state, unusable))
    bad = [c["case"] for c in written["cases"]
           if c.get("fkc_check") == "fail"]
    if bad:
        print("fkc's outputs differ from eager's in: %s" % ", ".join(bad))
    return 0
