"""A worker process: runs its cases one after another, each peer of a case
on the same inputs, and appends a JSON record per event (case begun, peer
begun, peer result, case ended) to the file the supervisor reads, so that
what was measured survives a crash of this process. Imports torch."""

import gc
import json
import os
import platform
import time
import traceback

from . import cases, peers, report
from .checks import cuda_healthy
from .inputs import make_inputs
from .peers.runners import Peers
from .timing import Timer, TimingPlan


class Recorder:
    """Appends records to the supervisor's file (none: records nothing)."""

    def __init__(self, path):
        self.path = path

    def write(self, record):
        if not self.path:
            return
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()


def log(message):
    print(message, flush=True)


def injected_fault(case, peer):
    """A test aid: $FKC_BENCH_FAULT=CASE:PEER:exit|hang|raise makes that
    peer of that case kill its process, hang or raise, to exercise the
    supervisor's recovery."""
    spec = os.environ.get("FKC_BENCH_FAULT", "")
    for item in spec.split(","):
        parts = item.split(":")
        if len(parts) == 3 and parts[0] == case and parts[1] == peer:
            if parts[2] == "exit":
                os._exit(139)
            if parts[2] == "hang":
                time.sleep(3600)
            raise RuntimeError("injected fault")


class Worker:
    def __init__(self, args):
        import torch
        self.args, self.torch = args, torch
        self.device = torch.device(args.device)
        self.cuda = self.device.type == "cuda"
        self.recorder = Recorder(args.partial)
        self.timer = Timer(TimingPlan(args.budget, args.quick), torch,
                           self.device)
        self.peers = Peers(args, torch, self.device, self.timer,
                           self.recorder.write)

    def metadata(self):
        torch = self.torch
        meta = {"python": platform.python_version(),
                "torch": torch.__version__,
                "torch_cuda": torch.version.cuda,
                "device": str(self.device)}
        try:
            meta["cudnn"] = torch.backends.cudnn.version()
        except Exception:
            pass
        try:
            import triton
            meta["triton"] = triton.__version__
        except Exception:
            meta["triton"] = None
        if self.cuda:
            props = torch.cuda.get_device_properties(self.device)
            meta["gpu"] = torch.cuda.get_device_name(self.device)
            meta["capability"] = "%d.%d" % (props.major, props.minor)
            meta["sms"] = props.multi_processor_count
            meta["memory_bytes"] = props.total_memory
            meta["l2_bytes"] = getattr(props, "L2_cache_size", None)
        else:
            meta["gpu"] = "cpu %s" % platform.machine()
        return meta

    def run_case(self, case):
        """Runs the case's peers; (its result, whether the CUDA context
        was lost)."""
        torch = self.torch
        rec = self.recorder
        rec.write({"type": "case_begin", "case": case.name,
                   "time": time.time()})
        log("[%s] %s; %s" % (case.name, case.description,
                             report.work_text(case)))
        result = {"case": case.name, "peers": {}}
        ctx = {}
        inputs = None
        broken = False
        try:
            inputs = make_inputs(torch, case, self.device, self.args.seed)
            self.timer.sync()
        except Exception as e:
            result["error"] = "inputs: " + report.error_text(e)
            log("[%s] cannot make inputs: %s" % (case.name, result["error"]))
        # TF32 as the case says, for eager and torch.compile alike.
        tf32_before = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = case.allow_tf32
        for peer in case.peers():
            if inputs is None:
                break
            if peer not in self.args.peer_list:
                r = {"status": "skipped", "reason": "not in --peers"}
            else:
                rec.write({"type": "peer_begin", "case": case.name,
                           "peer": peer, "time": time.time()})
                try:
                    injected_fault(case.name, peer)
                    r = self.peers.run(peer, case, inputs, ctx)
                    r.setdefault("status", "ok")
                except Exception as e:
                    r = {"status": "failed", "reason": report.error_text(e)}
                    if not isinstance(e, (ValueError, TypeError)):
                        r["traceback"] = traceback.format_exc(limit=6)
                    if self.cuda and isinstance(
                            e, torch.cuda.OutOfMemoryError):
                        torch.cuda.empty_cache()
                    if not cuda_healthy(torch, self.device):
                        broken = True
                        r["reason"] += " (the CUDA context is lost)"
                if r.get("status") == "ok" and r.get("median_s"):
                    r["rate"] = case.rate(r["median_s"])
            result["peers"][peer] = r
            rec.write({"type": "peer", "case": case.name, "peer": peer,
                       "result": r})
            log("[%s]   %-14s %s" % (case.name, peers.LABELS[peer],
                                     report.peer_line(case, r)))
            if broken:
                break
            gc.collect()
        torch.backends.cuda.matmul.allow_tf32 = tf32_before
        if broken:
            rec.write({"type": "broken", "case": case.name})
            return result, True
        del inputs
        self.peers.end_case(ctx)
        gc.collect()
        if self.cuda:
            torch.cuda.empty_cache()
        rec.write({"type": "case_end", "case": case.name, "result": result})
        return result, False

    def ceilings(self):
        """Device copy bandwidth and cuBLAS f16 GEMM rate, measured here."""
        torch = self.torch
        out = {}
        try:
            n = 2 ** 28                                  # 1 GiB of f32
            a = torch.randn(n, device=self.device)
            b = torch.empty_like(a)
            r = self.timer.time_events(lambda: b.copy_(a))
            out["copy"] = {"bytes": 2 * a.numel() * 4, "median_s":
                           r["median_s"], "GB/s": 2 * n * 4 / r["median_s"]
                           / 1e9, "iters": r["iters"]}
            del a, b
            m = 8192
            x = torch.randn(m, m, device=self.device, dtype=torch.float16)
            y = torch.randn(m, m, device=self.device, dtype=torch.float16)
            r = self.timer.time_events(lambda: x @ y)
            out["gemm_f16_8192"] = {"flops": 2 * m ** 3, "median_s":
                                    r["median_s"], "TFLOP/s": 2 * m ** 3 /
                                    r["median_s"] / 1e12, "iters": r["iters"]}
            del x, y
            torch.cuda.empty_cache()
        except Exception as e:
            out["error"] = report.error_text(e)
        return out


def main(args):
    """Runs the cases of --cases (whose artifacts the supervisor found);
    exit status 3 when the CUDA context was lost."""
    loaded = [c.load(args.artifacts, args.shrink)
              for c in cases.select(args.cases)[0]]
    w = Worker(args)
    w.recorder.write({"type": "meta", "meta": w.metadata()})
    if w.cuda and not args.no_ceilings and args.shrink == 1:
        w.recorder.write({"type": "ceilings", "ceilings": w.ceilings()})
    for case in loaded:
        if args.deadline and time.time() > args.deadline:
            w.recorder.write({"type": "deadline", "case": case.name})
            return 0
        _, broken = w.run_case(case)
        if broken:
            return 3
    return 0
