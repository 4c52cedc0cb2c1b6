"""Runs the cases in worker processes and keeps going when one fails: a
worker that dies (a kernel that breaks the CUDA context, a crash), hangs
past --case-timeout or loses its CUDA context is replaced by a new one for
the remaining cases, and what it had recorded is kept. No case starts after
--time-limit and everything stops 60 s later. `in_process` runs the same
worker in this process instead (--in-process)."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from . import paths, peers, worker


def _worker_command(args, names, partial, deadline, no_ceilings, peer_list):
    cmd = [sys.executable, paths.RUN_SCRIPT, "--worker",
           "--partial", partial, "--deadline", repr(deadline),
           "--cases", ",".join(names), "--peers", ",".join(peer_list),
           "--artifacts", args.artifacts, "--seed", str(args.seed),
           "--compile-mode", args.compile_mode, "--budget", repr(args.budget),
           "--device", args.device, "--shrink", str(args.shrink),
           "--fkrt-lib", paths.fkrt_library(args.fkrt_lib)]
    if args.quick:
        cmd.append("--quick")
    if no_ceilings:
        cmd.append("--no-ceilings")
    return cmd


def _read_records(path, offset):
    with open(path) as f:
        f.seek(offset)
        data = f.read()
    # Only complete lines; a partial last line is read next time.
    end = data.rfind("\n") + 1
    records = []
    for line in data[:end].splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            pass
    return records, offset + len(data[:end].encode())


class _Progress:
    """What the records of workers say so far: the state the report is made
    of, and the case and peer in progress."""

    def __init__(self):
        self.state = {"meta": None, "jax": None, "ceilings": None,
                      "results": {}, "notes": []}
        self.current = None          # case in progress
        self.current_peer = None
        self.case_start = None
        self.last_record = time.time()
        self.finished = []           # cases ended (or given up) in order
        self.disabled = {}           # peer -> why later workers skip it

    def apply(self, r):
        st = self.state
        kind = r.get("type")
        self.last_record = time.time()
        if kind == "meta":
            st["meta"] = st["meta"] or r["meta"]
        elif kind == "jax":
            st["jax"] = st["jax"] or r
        elif kind == "ceilings":
            st["ceilings"] = r["ceilings"]
        elif kind == "case_begin":
            self.current, self.current_peer = r["case"], None
            self.case_start = time.time()
            st["results"][r["case"]] = {"case": r["case"], "peers": {}}
        elif kind == "peer_begin":
            self.current_peer = r["peer"]
        elif kind == "peer":
            st["results"][r["case"]]["peers"][r["peer"]] = self._disabled(
                r["peer"], r["result"])
            self.current_peer = None
        elif kind == "case_end":
            res = r["result"]
            for peer, result in res["peers"].items():
                res["peers"][peer] = self._disabled(peer, result)
            st["results"][r["case"]] = res
            self.finished.append(r["case"])
            self.current = None
        elif kind == "broken":
            st["results"][r["case"]]["error"] = (
                "the CUDA context was lost; the case's remaining peers were "
                "not run")
            self.finished.append(r["case"])
            self.current = None

    def _disabled(self, peer, result):
        if peer in self.disabled and result.get("reason") == "not in --peers":
            return {"status": "failed", "reason": self.disabled[peer]}
        return result

    def abandon(self, why, crashed=False):
        """The worker died or was killed in the current case. A peer other
        than fkc that crashed its process is not run again (a library that
        crashes on import would otherwise take every case down)."""
        name, peer = self.current, self.current_peer
        if crashed and peer and peer != "fkc":
            self.disabled[peer] = "not run: it crashed the process in %s " \
                "(%s)" % (name, why)
        res = self.state["results"].setdefault(name, {"case": name,
                                                      "peers": {}})
        if peer:
            why += " in %s" % peers.LABELS[peer]
            res["peers"][peer] = {"status": "failed", "reason": why}
        res["error"] = why
        self.state["notes"].append("%s: %s" % (name, why))
        self.finished.append(name)
        self.current = self.current_peer = None
        worker.log("[%s] %s" % (name, why))


def supervise(args, cases, on_case=None):
    """Runs the cases in worker processes, a new one after a worker dies,
    hangs (--case-timeout) or loses its CUDA context; stops starting cases
    at --time-limit and stops everything 60 s later. `on_case` is called
    with the state after each case."""
    start = time.time()
    deadline = start + args.time_limit
    hard_deadline = deadline + 60
    names = [c.name for c in cases]
    progress = _Progress()
    st = progress.state
    fd, partial = tempfile.mkstemp(prefix="fkc-bench-", suffix=".jsonl")
    os.close(fd)
    offset = 0
    interrupted = gave_up = None

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    previous = signal.signal(signal.SIGTERM, on_signal)
    proc = None
    try:
        for _ in range(len(names) + 1):
            remaining = [n for n in names if n not in progress.finished]
            if not remaining or time.time() > deadline:
                break
            no_ceilings = args.no_ceilings or st["ceilings"] is not None
            peer_list = [p for p in args.peer_list
                         if p not in progress.disabled]
            cmd = _worker_command(args, remaining, partial, deadline,
                                  no_ceilings, peer_list)
            proc = subprocess.Popen(cmd, cwd=paths.REPO,
                                    start_new_session=True)
            progress.last_record = time.time()
            before = len(progress.finished)
            killed = None
            while True:
                rc = proc.poll()
                records, offset = _read_records(partial, offset)
                for r in records:
                    ended = len(progress.finished)
                    progress.apply(r)
                    if on_case and len(progress.finished) > ended:
                        on_case(st)
                if rc is not None:
                    break
                now = time.time()
                if now > hard_deadline:
                    killed = "stopped at the overall time limit " \
                             "(--time-limit %g s + 60 s)" % args.time_limit
                elif progress.current and \
                        now - progress.case_start > args.case_timeout:
                    killed = "timed out after %g s" % args.case_timeout
                elif not progress.current and \
                        now - progress.last_record > args.case_timeout:
                    killed = "the worker made no progress for %g s" \
                             % args.case_timeout
                if killed:
                    _kill(proc)
                    continue
                time.sleep(0.25)
            proc = None
            if progress.current:
                progress.abandon(killed or "the worker process exited with "
                                 "status %s" % rc, crashed=not killed)
                if on_case:
                    on_case(st)
            elif rc != 0 and len(progress.finished) == before:
                # Died before its first case (torch missing, say): give up.
                gave_up = killed or "the worker process exited with " \
                    "status %s before running a case" % rc
                st["notes"].append(gave_up)
                break
            if killed and time.time() > hard_deadline:
                break
    except KeyboardInterrupt as e:
        interrupted = "interrupted (%s)" % (e or "SIGINT")
        if proc is not None:
            _kill(proc)
            records, offset = _read_records(partial, offset)
            for r in records:
                progress.apply(r)
        if progress.current:
            progress.abandon(interrupted)
        st["notes"].append(interrupted)
    finally:
        signal.signal(signal.SIGTERM, previous)
        os.unlink(partial)
    why = "not run: " + (interrupted or gave_up or "--time-limit of %g s "
                         "reached" % args.time_limit)
    for name in names:
        if name not in progress.finished:
            res = st["results"].setdefault(name, {"case": name, "peers": {}})
            res.setdefault("error", why)
    st["elapsed_s"] = time.time() - start
    return st


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def in_process(args, cases):
    """Runs the cases in this process (no restart after a crash or hang);
    the same state as `supervise`."""
    start = time.time()
    fd, partial = tempfile.mkstemp(prefix="fkc-bench-", suffix=".jsonl")
    os.close(fd)
    args.partial = partial
    args.deadline = start + args.time_limit
    args.cases = ",".join(c.name for c in cases)
    try:
        worker.main(args)
    finally:
        records, _ = _read_records(partial, 0)
        os.unlink(partial)
    progress = _Progress()
    for r in records:
        progress.apply(r)
    progress.state["elapsed_s"] = time.time() - start
    return progress.state
