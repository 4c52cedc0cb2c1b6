"""The results: <stem>.json (everything measured, with the environment and
the method) and <stem>.md (the table people read), and the short texts the
log and the dry run share with them. The JSON's layout is that of the
results committed in bench/results/, so that runs stay comparable."""

import datetime
import functools
import json
import math
import os
import re
import subprocess

from . import artifacts, paths, peers


# -- texts shared with the log and the dry run -------------------------------

def format_bytes(n):
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            return "%.3g %s" % (n / size, unit)
    return "%d B" % n


def work_text(case):
    """The work of a call: FLOPs of a compute-bound case, bytes moved of a
    memory-bound one; "-" for a case without a signature."""
    if case.signature is None:
        return "-"
    if case.flop_formula:
        return "%.4g GFLOP" % (case.flops / 1e9)
    return format_bytes(case.bytes)


def rate_text(rate):
    if rate is None:
        return "-"
    return "%.4g" % rate if rate < 100 else "%.0f" % rate


def error_text(e):
    """An exception as a failure reason: its type and first line."""
    text = str(e).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > 300:
        first = first[:300] + "..."
    kind = type(e).__name__
    if type(e).__module__ == "fkrt":
        kind = "fkrt." + kind
    return "%s: %s" % (kind, first)


def peer_line(case, r):
    """A peer's result as the log prints it."""
    status = r.get("status")
    if status != "ok":
        return "%s: %s" % (status, r.get("reason", ""))
    text = "%s %s, median %.4g ms of %d" % (
        rate_text(r.get("rate")), case.unit, r["median_s"] * 1e3, r["iters"])
    if r.get("error") is not None:
        text += ", error %.2g" % r["error"]
    if r.get("check"):
        text += " [%s]" % r["check"]
    if r.get("first_call_s") and r["first_call_s"] > 1:
        text += ", first call %.1f s" % r["first_call_s"]
    return text


# -- where the figures come from ---------------------------------------------

@functools.lru_cache(maxsize=None)
def _driver_version():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version",
             "--format=csv,noheader"], capture_output=True, text=True,
            timeout=20)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0]
    except Exception:
        pass
    return None


def commit(args):
    """(the commit the figures belong to, where that was found)."""
    if args.commit:
        return args.commit, "--commit"
    if os.environ.get("FKC_COMMIT"):
        return os.environ["FKC_COMMIT"], "$FKC_COMMIT"
    compiled = artifacts.compiled_commit(args.artifacts)
    if compiled:
        return compiled, "artifacts' COMMIT (written by compile.sh)"
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.REPO,
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            return out.stdout.strip(), "git"
    except Exception:
        pass
    return "unknown", None


def _slug(text):
    text = re.sub(r"^nvidia\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


# -- the JSON ----------------------------------------------------------------

METHOD = {
    "memory_bound": "GB/s = (bytes of all inputs + bytes of all "
                    "outputs) / median time; 1 GB = 1e9 bytes",
    "compute_bound": "TFLOP/s = FLOPs / median time; attention "
                     "4*B*H*N^2*D (halved when causal); MLP, "
                     "GEMMs 2*M*N*K per matmul (times the batch)",
    "torch_timing": "CUDA events around each call after warm-up; "
                    "median of the calls",
    "jax_timing": "wall clock around batches of calls dispatched "
                  "back to back, block_until_ready once per batch; "
                  "median of the batch means",
    "ratio": "fkc speed / peer speed = peer median time / fkc "
             "median time (above 1: fkc is faster)",
    "check": "relative L2 error of fkc's outputs against eager's, "
             "in float64, the worst output; NaNs must match"}


def _case_entry(case, res):
    entry = {"case": case.name, "graph": paths.relative(case.graph_path),
             "description": case.description, "eager_is": case.eager_is}
    if case.signature is None:      # no artifact: nothing to count
        entry.update(inputs=None, outputs=None, bytes=None, flops=None,
                     unit=case.unit, tolerance=None)
    else:
        entry.update(inputs=[t.as_json() for t in case.inputs],
                     outputs=[t.as_json() for t in case.outputs],
                     bytes=case.bytes, flops=case.flops, unit=case.unit,
                     tolerance=case.tolerance)
    entry["peers"] = res.get("peers", {})
    if res.get("error"):
        entry["error"] = res["error"]
    fkc = entry["peers"].get("fkc")
    if fkc and fkc.get("status") == "ok":
        entry["fkc_check"] = fkc.get("check")
        for peer, r in entry["peers"].items():
            if peer != "fkc" and r.get("status") == "ok":
                r["fkc_speedup"] = r["median_s"] / fkc["median_s"]
    return entry


def _options_notes(args):
    """A note of the fkc options the artifacts were compiled with, if any
    (`bash bench/compile.sh --target=sm_80`: another GPU's kernels)."""
    options = artifacts.compiled_options(args.artifacts)
    if not options:
        return []
    return ["fkc's artifacts were compiled with `%s` (bench/compile.sh)"
            % options]


def build_report(args, cases, state):
    meta = dict(state.get("meta") or {})
    jax_info = state.get("jax") or {}
    sha, sha_source = commit(args)
    now = datetime.datetime.now(datetime.timezone.utc)
    return {
        "format": "fkc-bench", "version": 1,
        "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": sha, "commit_source": sha_source,
        "gpu": meta.get("gpu"), "driver": _driver_version(),
        "environment": meta,
        "jax": {k: v for k, v in jax_info.items() if k != "type"} or None,
        "options": {"quick": args.quick, "budget_s": args.budget,
                    "seed": args.seed, "compile_mode": args.compile_mode,
                    "peers": args.peer_list, "shrink": args.shrink,
                    "device": args.device},
        "ceilings": state.get("ceilings"),
        "elapsed_s": state.get("elapsed_s"),
        "notes": _options_notes(args) + state.get("notes", []),
        "method": METHOD,
        "cases": [_case_entry(case, state["results"].get(
            case.name, {"case": case.name, "peers": {}, "error": "not run"}))
            for case in cases],
    }


def _finite(obj):
    """`obj` with every infinite or NaN float written as a string, which
    JSON can hold."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


# -- the Markdown ------------------------------------------------------------

def _cell(r, fkc):
    if r is None:
        return "not run"
    status = r.get("status")
    if status != "ok":
        return {"unavailable": "unavailable", "skipped": "skipped"}.get(
            status, "failed")
    text = rate_text(r.get("rate"))
    if fkc is not None and fkc.get("status") == "ok" and r is not fkc \
            and r.get("median_s"):
        text += " (%.2fx)" % (r["median_s"] / fkc["median_s"])
    return text


def _check_cell(case, fkc):
    if not fkc or fkc.get("status") != "ok":
        return "-"
    check = fkc.get("check")
    err = fkc.get("error")
    if check == "fail" and err is None:
        return "**FAIL** (%s)" % fkc.get("error_detail", "no error figure")
    if check is None or err is None:
        return check or "-"
    if check == "pass":
        return "pass (%.1e < %g)" % (err, case.tolerance)
    return "**FAIL** (%.1e, limit %g)" % (err, case.tolerance)


def _header(report):
    lines = ["# fkc peer benchmark", ""]
    env = report.get("environment") or {}
    gpu = report.get("gpu") or "unknown GPU"
    details = []
    if env.get("sms"):
        details.append("%d SMs" % env["sms"])
    if env.get("l2_bytes"):
        details.append("L2 %s" % format_bytes(env["l2_bytes"]))
    if report.get("driver"):
        details.append("driver %s" % report["driver"])
    lines.append("- GPU: %s%s" % (gpu, " (%s)" % ", ".join(details)
                                  if details else ""))
    lines.append("- date: %s; commit: %s%s" % (
        report["date"], report["commit"],
        " (%s)" % report["commit_source"] if report.get("commit_source")
        else ""))
    soft = ["torch %s (CUDA %s, cuDNN %s)" % (env.get("torch"),
                                               env.get("torch_cuda"),
                                               env.get("cudnn"))]
    if env.get("triton"):
        soft.append("triton %s" % env["triton"])
    jx = report.get("jax") or {}
    if jx.get("jax"):
        soft.append("jax %s (jaxlib %s, %s)" % (jx["jax"], jx.get("jaxlib"),
                                                jx.get("jax_device")))
    lines.append("- software: %s; python %s" % (", ".join(soft),
                                                env.get("python")))
    opts = report["options"]
    lines.append("- options: %s, %.2g s of timed runs per peer, seed %d, "
                 "torch.compile mode %s%s" % (
                     "quick" if opts["quick"] else "full", opts["budget_s"],
                     opts["seed"], opts["compile_mode"],
                     ", SHAPES SHRUNK by %d (not a measurement)" %
                     opts["shrink"] if opts["shrink"] > 1 else ""))
    for note in report.get("notes") or []:
        lines.append("- note: %s" % note)
    ceil = report.get("ceilings") or {}
    if ceil.get("copy") and ceil.get("gemm_f16_8192"):
        lines.append("- ceilings measured in this run: device copy %.0f GB/s "
                     "(read + write), cuBLAS f16 GEMM 8192^3 %.0f TFLOP/s" % (
                         ceil["copy"]["GB/s"],
                         ceil["gemm_f16_8192"]["TFLOP/s"]))
    return lines


def _peer_notes(case, p, r):
    """What the notes under the table say of peer `p`'s result `r`."""
    label = peers.LABELS[p]
    if not r or (r.get("status") == "skipped" and
                 r.get("reason") == "not in --peers"):
        return []
    if r.get("status") != "ok":
        return ["%s, %s: %s: %s" % (case.name, label, r.get("status"),
                                    r.get("reason", ""))]
    if r.get("check") == "fail":
        err = r.get("error")
        return ["%s, %s: outputs differ from eager's: %s" % (
            case.name, label, "; ".join(
                x for x in ("error %.3g" % err if err is not None else None,
                            r.get("error_detail")) if x))]
    if r.get("error") is not None and r["error"] >= case.tolerance:
        return ["%s, %s: differs from eager by %.3g" % (case.name, label,
                                                        r["error"])]
    if r.get("error_detail") and p != "fkc":
        return ["%s, %s: differs from eager: %s" % (case.name, label,
                                                    r["error_detail"])]
    return []


def markdown(report, cases):
    lines = _header(report)
    lines.append("")
    lines.append("Each cell: the peer's GB/s (memory-bound cases) or TFLOP/s "
                 "(compute-bound), and in parentheses fkc's speed relative to "
                 "that peer (peer time / fkc time; above 1: fkc is faster). "
                 "Check: fkc's relative L2 error against eager.")
    lines.append("")
    table = [p for p in peers.TABLE_ORDER
             if p not in peers.OPTIONAL_COLUMNS or
             any(p in entry["peers"] for entry in report["cases"])]
    header = ["case", "unit", "work"] + [peers.LABELS[p] for p in table] \
        + ["fkc check"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join(["---"] * 3 + ["---:"] * len(table) +
                                ["---"]) + "|")
    by_name = {c.name: c for c in cases}
    footnotes = []
    for entry in report["cases"]:
        case = by_name[entry["case"]]
        results = entry["peers"]
        fkc = results.get("fkc")
        row = [case.name, case.unit, work_text(case)]
        eager = results.get("eager")
        if case.eager_is and eager and \
                eager.get("reason") != "not in --peers":
            footnotes.append("%s: PyTorch eager runs %s" % (case.name,
                                                           case.eager_is))
        for p in table:
            if p not in case.peers():
                row.append("")
                continue
            row.append(_cell(results.get(p), fkc))
            footnotes += _peer_notes(case, p, results.get(p))
        row.append(_check_cell(case, fkc))
        if entry.get("error"):
            footnotes.append("%s: %s" % (case.name, entry["error"]))
        lines.append("| " + " | ".join(row) + " |")
    if footnotes:
        lines += ["", "Notes:", ""]
        lines += ["- " + note.replace("|", "\\|") for note in footnotes]
    lines.append("")
    lines.append("Median time per call in ms (iterations timed):")
    lines.append("")
    lines.append("| case | " + " | ".join(peers.LABELS[p]
                                         for p in table) + " |")
    lines.append("|---|" + "|".join(["---:"] * len(table)) + "|")
    for entry in report["cases"]:
        row = [entry["case"]]
        for p in table:
            r = entry["peers"].get(p)
            if r and r.get("status") == "ok" and r.get("median_s"):
                row.append("%.4g (%d)" % (r["median_s"] * 1e3, r["iters"]))
            else:
                row.append("")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Bytes counted: every input read once and every output "
                 "written once. torch peers are timed with CUDA events, JAX "
                 "by wall clock over batches of calls (block_until_ready per "
                 "batch). bench/README.md describes the method.")
    return "\n".join(lines) + "\n"


def write_report(args, cases, state, quiet=False):
    """Writes the JSON and the Markdown into the results folder (printing
    the Markdown unless `quiet`); returns the report."""
    report = build_report(args, cases, state)
    md = markdown(report, cases)
    out = paths.results_dir(args.out)
    os.makedirs(out, exist_ok=True)
    stem = args.name
    if not stem:
        day = report["date"][:10]
        stem = "%s-%s%s" % (day, _slug(report.get("gpu") or "unknown"),
                            "-quick" if args.quick else "")
    json_path = os.path.join(out, stem + ".json")
    md_path = os.path.join(out, stem + ".md")
    with open(json_path, "w") as f:
        json.dump(_finite(report), f, indent=1, default=str)
        f.write("\n")
    with open(md_path, "w") as f:
        f.write(md)
    if not quiet:
        print()
        print(md)
        print("wrote %s and %s" % (json_path, md_path))
    return report
