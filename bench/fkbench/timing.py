"""How a peer's call is timed. A first call may compile (torch.compile,
JAX); warm-up calls settle clocks, caches and allocators; then each call is
timed with its own pair of CUDA events on torch's current stream and the
median is the figure. JAX runs on its own streams and is timed by wall
clock over batches of calls instead. TimingPlan (how many calls) needs no
torch, so the dry run can print it."""

import math
import statistics
import time


class TimingPlan:
    """How long timed runs take: budget per peer, bounds on iterations."""

    def __init__(self, budget, quick):
        self.budget = budget                  # seconds of timed calls
        self.warmup = 0.02 if quick else 0.05  # seconds of warm-up calls
        self.min_iters = 3 if quick else 5
        self.max_iters = 20 if quick else 200
        self.slow_budget = 1.0 if quick else 3.0  # cap when a call is slow

    def warmup_calls(self, estimate):
        """Calls to make before timing, beyond those already made: enough
        to fill the warm-up time (clocks up, caches and allocators
        settled), counted from the estimate rather than by the host clock,
        which runs ahead of the GPU."""
        if estimate >= self.warmup:
            return 0
        return min(50, int(math.ceil(self.warmup / max(estimate, 1e-6))))

    def iterations(self, estimate):
        if estimate <= 0:
            return self.max_iters
        if estimate * self.min_iters > self.slow_budget:
            return max(1, int(self.slow_budget / estimate))
        return max(self.min_iters,
                   min(self.max_iters, int(self.budget / estimate)))


def summary(times, method):
    """The figures recorded of a list of call times."""
    return {"method": method, "iters": len(times),
            "median_s": statistics.median(times), "min_s": min(times),
            "max_s": max(times), "mean_s": statistics.fmean(times)}


class Timer:
    """Times calls on `device` (CUDA events; wall clock on the CPU, which
    only tests the harness)."""

    def __init__(self, plan, torch, device):
        self.plan, self.torch, self.device = plan, torch, device
        self.cuda = device.type == "cuda"

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def call_time(self, fn):
        """Wall time of one synchronised call."""
        t0 = time.perf_counter()
        fn()
        self.sync()
        return time.perf_counter() - t0

    def time_events(self, fn, first_s=None):
        """Median of per-call CUDA event times (wall times on the CPU).
        `first_s`: the time of a call already made that compiled nothing;
        if it was slow, it stands for the estimate and no call is spent."""
        plan, torch = self.plan, self.torch
        if first_s is not None and first_s > plan.slow_budget:
            est = first_s
        else:
            est = self.call_time(fn)
        for _ in range(plan.warmup_calls(est)):
            fn()
        self.sync()
        n = plan.iterations(est)
        if not self.cuda:
            return summary([self.call_time(fn) for _ in range(n)],
                           "wall-clock")
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
        sleep = getattr(torch.cuda, "_sleep", None)
        if sleep is not None:
            # Hold the GPU (about 2e9 cycles a second) while the host
            # enqueues the calls, so that they then run back to back and
            # no host overhead falls between a pair of events.
            head = min(0.05, n * 1e-4)
            sleep(int(head * 2e9))
        for i in range(n):
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        return summary([s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends)],
                       "cuda-events")

    def time_jax(self, fn, block):
        """JAX runs on its own streams: wall clock around batches of calls
        dispatched back to back, waited for once per batch
        (block_until_ready on the last result); the median of the batches'
        mean times."""
        plan = self.plan

        def one():
            t0 = time.perf_counter()
            block(fn())
            return time.perf_counter() - t0
        est = one()
        for _ in range(plan.warmup_calls(est)):
            block(fn())
        n = plan.iterations(est)
        batches = 5 if n >= 10 else 1
        per = max(1, n // batches)
        means = []
        for _ in range(batches):
            t0 = time.perf_counter()
            out = None
            for _ in range(per):
                out = fn()
            block(out)
            means.append((time.perf_counter() - t0) / per)
        result = summary(means, "wall-clock-batches")
        result["iters"] = per * batches
        result["batches"] = batches
        return result
