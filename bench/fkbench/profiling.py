"""Kernel times by torch's profiler, which sees every kernel on the GPU
through CUPTI: the runtime's (driver API) launches as well as torch's."""


def kernel_times(torch, fn, runs, copies=False):
    """Calls `fn` `runs` times under the profiler and returns [(kernel
    name, launches per run, microseconds per run)], the longest first
    (kernels of one name summed; copies and memsets left out unless
    `copies`)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    rows = {}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        name = event.name
        if not copies and ("memcpy" in name.lower() or
                           "memset" in name.lower()):
            continue
        count, total = rows.get(name, (0, 0.0))
        rows[name] = (count + 1, total + event.device_time_total)
    table = [(name, count / runs, total / runs)
             for name, (count, total) in rows.items()]
    return sorted(table, key=lambda row: -row[2])


def kernel_timeline(torch, fn, runs):
    """Calls `fn` `runs` times under the profiler and returns, per call,
    (the start of its first kernel in us, the kernels it ran on the GPU as
    [(name, start us, end us)] in the order they started, from that first
    start). Calls are told apart by the count of kernels per call, which
    must be the same for each."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    kernels = []
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        name = event.name
        if "memcpy" in name.lower() or "memset" in name.lower():
            continue
        kernels.append((name, event.time_range.start, event.time_range.end))
    kernels.sort(key=lambda k: k[1])
    if not kernels or len(kernels) % runs:
        raise RuntimeError("kernel_timeline: %d kernels over %d calls"
                           % (len(kernels), runs))
    per_call = len(kernels) // runs
    calls = []
    for i in range(runs):
        call = kernels[i * per_call:(i + 1) * per_call]
        origin = call[0][1]
        calls.append((origin, [(n, s - origin, e - origin) for n, s, e in call]))
    return calls


def idle_within(call):
    """Microseconds inside a call (from its first kernel's start to its last
    end) when no kernel of it ran, and the call's span."""
    idle, reach = 0.0, call[0][2]
    for _, start, end in call[1:]:
        if start > reach:
            idle += start - reach
        reach = max(reach, end)
    return idle, reach
