"""fkc's peer benchmark as a package; bench/run.py is its command line.

The modules, roughly in the order a run uses them:

    paths        where the repository, the cases, the artifacts and the
                 results are
    manifest     reads a graph's signature from an fkc artifact's manifest
    artifacts    the folder bench/compile.sh fills: artifacts, status, commit
    cases        the case table: what each case computes and how it is counted
    cli          the options and the top level of a run
    plan         --dry-run: the plan, without torch
    supervisor   runs the cases in worker processes and survives their crashes
    worker       runs the cases of one process, peer after peer
    inputs       the torch tensors a case is run on
    peers        what each peer runs (torch, JAX, SDPA, fkc) and how
    timing       how many calls are timed and how
    checks       outputs compared with eager's
    report       the JSON and Markdown results

Only worker, inputs, timing, checks and peers.runners use torch (imported
when a worker starts), so the rest works, and is tested, without it.
"""
