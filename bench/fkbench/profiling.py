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
