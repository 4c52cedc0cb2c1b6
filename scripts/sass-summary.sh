#!/usr/bin/env bash
# Counts, in the SASS of fkc artifacts, the instructions that show whether a
# kernel uses the tensor cores and how it feeds them: HGMMA (wgmma, sm_90a),
# HMMA (mma.sync), and the loads UTMALDG (TMA), LDGSTS (cp.async) and LDSM
# (ldmatrix). Each artifact is assembled with ptxas for its own `.target`
# (sm_90a -> -arch=sm_90a; sm_90 when it names none) into a temporary cubin,
# disassembled with cuobjdump -sass (nvdisasm when cuobjdump is missing or
# fails), and counted per kernel. Runs where the CUDA toolkit is (the GPU
# machine: /usr/local/cuda/bin); needs no GPU.
#
#   bash scripts/sass-summary.sh [--json FILE] [--arch SM] [--disassembler
#        cuobjdump|nvdisasm] [--opcodes HGMMA,HMMA,...] [PTX...]
#   bash scripts/sass-summary.sh --self-test    # the parser, on samples
#
# Default artifacts: build/bench-artifacts/*.ptx. Prints a table, one row
# per kernel and a total row per artifact; `--json FILE` also writes the
# counts, with each counted opcode's full spellings (HGMMA.64x128x16.F32:
# 8, ...) per kernel. `instrs` counts every instruction but the NOPs that
# pad a kernel's end. `--arch` (or $PTXAS_ARCH) overrides the `.target`.
# Tools: $PTXAS, $CUOBJDUMP, $NVDISASM, else on PATH, else in
# $CUDA_HOME/bin or /usr/local/cuda/bin.
#
# Exit status: 0 when every artifact was counted; 1 when one could not be
# (ptxas or the disassembler failed on it; the others are still counted);
# 2 when ptxas or both disassemblers are missing, no artifact was found, or
# an argument is wrong. With --json the file is written in every case, its
# "error" saying why when nothing could be counted.
set -u
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "sass-summary: python3 is needed and not found" >&2
  exit 2
fi
export SASS_SUMMARY_ROOT=$root
exec python3 - "$@" <<'EOF'
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ["SASS_SUMMARY_ROOT"]
DEFAULT_OPCODES = ["HGMMA", "HMMA", "UTMALDG", "LDGSTS", "LDSM"]
TOOL_TIMEOUT = 600

# An instruction line of cuobjdump -sass or nvdisasm: "/*0a30*/", an
# optional predicate ("@P0", "@!PT", "@!UP1"), the opcode and its modifiers.
INSTRUCTION = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s+(?:@!?\w+\s+)?"
                         r"([A-Z][A-Z0-9_]*)((?:\.[^\s;,]+)*)")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")             # cuobjdump
SECTION = re.compile(r"^\s*\.section\s+([^,\s]+)")              # nvdisasm
TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)", re.M)
ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)",
                   re.M)


def fail(message, code=2):
    print("sass-summary: " + message, file=sys.stderr)
    sys.exit(code)


def find_tool(name, env):
    """The tool's path, or None: $ENV, PATH, $CUDA_HOME/bin,
    /usr/local/cuda/bin."""
    given = os.environ.get(env)
    if given:
        path = shutil.which(given)
        return os.path.abspath(path) if path else None
    path = shutil.which(name)
    if path:
        return path
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home:
            path = os.path.join(home, "bin", name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


def tool_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True,
                             text=True, timeout=60)
        lines = [l.strip() for l in out.stdout.splitlines() if l.strip()]
        release = [l for l in lines if "release" in l]
        return (release or lines or [None])[-1]
    except Exception:
        return None


def parse_sass(text, opcodes):
    """{kernel: {"counts": {op: n}, "instructions": n, "variants":
    {op.modifiers: n}}} from cuobjdump -sass or nvdisasm output, kernels
    in the order they appear."""
    kernels = {}
    current = None
    opcode_set = set(opcodes)
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = kernels.setdefault(m.group(1), _kernel(opcodes))
            continue
        m = SECTION.match(line)
        if m:
            name = m.group(1)
            current = kernels.setdefault(name[len(".text."):],
                                         _kernel(opcodes)) \
                if name.startswith(".text.") else None
            continue
        if current is None:
            continue
        m = INSTRUCTION.match(line)
        if not m:
            continue
        op, mods = m.group(1), m.group(2)
        current["_ops"].append(op)
        if op in opcode_set:
            current["counts"][op] += 1
            full = op + mods
            current["variants"][full] = current["variants"].get(full, 0) + 1
    for k in kernels.values():
        ops = k.pop("_ops")
        while ops and ops[-1] == "NOP":      # the padding after the end
            ops.pop()
        k["instructions"] = len(ops)
    return kernels


def _kernel(opcodes):
    return {"counts": {op: 0 for op in opcodes}, "variants": {}, "_ops": []}


def run_tool(cmd):
    """(ok, stdout, the end of stderr and stdout when it failed)."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=TOOL_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, "", "timed out after %d s" % TOOL_TIMEOUT
    except OSError as e:
        return False, "", str(e)
    if out.returncode != 0:
        text = (out.stderr + out.stdout).strip().splitlines()
        return False, out.stdout, "exit %d: %s" % (
            out.returncode, " | ".join(text[-5:]) or "no output")
    return True, out.stdout, None


def summarize(ptx, tools, opcodes, arch_override, tmp):
    name = os.path.basename(ptx)
    if name.endswith(".ptx"):
        name = name[:-len(".ptx")]
    entry = {"artifact": name, "path": os.path.relpath(ptx, ROOT)
             if os.path.abspath(ptx).startswith(ROOT + os.sep) else ptx}
    try:
        with open(ptx, errors="replace") as f:
            text = f.read()
    except OSError as e:
        entry.update(status="unreadable", error=str(e))
        return entry
    m = TARGET.search(text)
    arch = arch_override or (m.group(1) if m else "sm_90")
    entry["arch"] = arch
    entries = ENTRY.findall(text)
    cubin = os.path.join(tmp, name + ".cubin")
    ok, _, why = run_tool([tools["ptxas"], "-arch=" + arch, ptx, "-o", cubin])
    if not ok:
        entry.update(status="ptxas failed", error=why)
        return entry
    errors = []
    for dis in tools["disassemblers"]:
        cmd = [dis["path"], "-sass", cubin] if dis["name"] == "cuobjdump" \
            else [dis["path"], cubin]
        ok, out, why = run_tool(cmd)
        kernels = parse_sass(out, opcodes) if ok else {}
        if ok and not kernels:
            ok, why = False, "no kernel found in its output"
        if ok:
            entry["disassembler"] = dis["name"]
            break
        errors.append("%s: %s" % (dis["name"], why))
    else:
        entry.update(status="disassembly failed", error="; ".join(errors))
        return entry
    if errors:
        entry["note"] = "; ".join(errors)
    # Kernels in the artifact's order (its .entry list), then any other.
    order = [k for k in entries if k in kernels] + \
        [k for k in kernels if k not in entries]
    missing = [k for k in entries if k not in kernels]
    entry["status"] = "ok"
    entry["kernels"] = [dict(kernel=k, **kernels[k]) for k in order]
    if missing:
        entry["status"] = "kernels missing"
        entry["error"] = "no SASS for entries %s" % ", ".join(missing)
    entry["counts"] = {op: sum(k["counts"][op] for k in entry["kernels"])
                       for op in opcodes}
    entry["instructions"] = sum(k["instructions"] for k in entry["kernels"])
    return entry


def table(artifacts, opcodes):
    head = ["artifact", "kernel", "arch"] + opcodes + ["instrs"]
    rows = []
    for a in artifacts:
        if a["status"] not in ("ok", "kernels missing"):
            rows.append([a["artifact"], "-", a.get("arch", "-"),
                         "%s: %s" % (a["status"], a.get("error", ""))])
            continue
        for k in a["kernels"]:
            rows.append([a["artifact"], k["kernel"], a["arch"]] +
                        [str(k["counts"][op]) for op in opcodes] +
                        [str(k["instructions"])])
        if len(a["kernels"]) > 1:
            rows.append([a["artifact"], "(all %d kernels)" %
                         len(a["kernels"]), a["arch"]] +
                        [str(a["counts"][op]) for op in opcodes] +
                        [str(a["instructions"])])
        if a["status"] != "ok":
            rows.append([a["artifact"], "-", a["arch"],
                         "%s: %s" % (a["status"], a.get("error", ""))])
    widths = [len(h) for h in head]
    for r in rows:
        # A failure row's message (its 4th cell) takes the rest of the line.
        cells = r if len(r) == len(head) else r[:3]
        widths = [max(w, len(c)) for w, c in zip(widths, cells)] + \
            widths[len(cells):]
    lines = []

    def fmt(r):
        if len(r) != len(head):      # a failure: its message takes the rest
            return "  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + \
                "  " + r[3]
        cells = [c.ljust(w) if i < 3 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        return "  ".join(cells).rstrip()
    lines.append(fmt(head))
    for r in rows:
        lines.append(fmt(r))
    return "\n".join(lines)


def write_json(path, report):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


SAMPLE_CUOBJDUMP = """
\tcode for sm_90a
\t.target\tsm_90a

\t\tFunction : g_k1
\t.headerflags\t@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                   /* 0x00000a00ff017b82 */
                                                                            /* 0x000fe20000000800 */
        /*0010*/                   UTMALDG.2D [UR8], [UR4] ;                /* 0x00000008040075b4 */
        /*0020*/              @!PT LDS RZ, [RZ] ;                           /* 0x00000000fffff984 */
        /*0030*/                   LDGSTS.E.BYPASS.128 [R9], desc[UR4][R2.64] ;
        /*0040*/                   LDGDEPBAR ;
        /*0050*/                   LDSM.16.M88.4 R4, [R9] ;
        /*0060*/                   WARPGROUP.ARRIVE ;
        /*0070*/                   HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0 ;
        /*0080*/               @P0 HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0 ;
        /*0090*/                   HMMA.16816.F32 R4, R4, R4, RZ ;
        /*00a0*/                   HFMA2.MMA R5, -RZ, RZ, 0, 0 ;
        /*00b0*/                   EXIT ;
        /*00c0*/                   BRA 0xc0;
        /*00d0*/                   NOP;
        /*00e0*/                   NOP;
\t\t..........


\t\tFunction : g_k0
\t.headerflags\t@"EF_CUDA_ACCELERATORS EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   EXIT ;
        /*0020*/                   BRA 0x20;
\t\t..........
"""

SAMPLE_NVDISASM = """
\t.elftype\t@"ET_EXEC"
//--------------------- .debug_frame              --------------------------
\t.section\t.debug_frame,"",@progbits
.debug_frame:
        /*0000*/ \t.byte\t0xff, 0xff
        /*0044*/ \t.dword\tg_k0
//--------------------- .text.g_k0                --------------------------
\t.section\t.text.g_k0,"ax",@progbits
        .global         g_k0
g_k0:
.text.g_k0:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   EXIT ;
        /*0020*/                   BRA `(.L_x_0);
        /*0030*/                   NOP;
//--------------------- .text.g_k1                --------------------------
\t.section\t.text.g_k1,"ax",@progbits
g_k1:
.text.g_k1:
        /*0000*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0010*/                   LDGSTS.E.BYPASS.128 [R9], desc[UR4][R2.64] ;
        /*0020*/                   LDSM.16.M88.4 R4, [R9] ;
        /*0030*/                   HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0 ;
        /*0040*/               @P0 HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, gsb0 ;
        /*0050*/                   HMMA.16816.F32 R4, R4, R4, RZ ;
        /*0060*/                   EXIT ;
//--------------------- .nv.info                  --------------------------
\t.section\t.nv.info,"",@"SHT_CUDA_INFO"
        /*0000*/ \t.byte\t0x04, 0x2f
"""


def self_test():
    ops = DEFAULT_OPCODES
    want_k1 = {"HGMMA": 2, "HMMA": 1, "UTMALDG": 1, "LDGSTS": 1, "LDSM": 1}
    failures = 0
    for label, text, k1_instrs in (("cuobjdump", SAMPLE_CUOBJDUMP, 13),
                                   ("nvdisasm", SAMPLE_NVDISASM, 7)):
        got = parse_sass(text, ops)
        checks = [
            (list(got), ["g_k1", "g_k0"] if label == "cuobjdump"
             else ["g_k0", "g_k1"]),
            (got["g_k1"]["counts"], want_k1),
            (got["g_k0"]["counts"], {op: 0 for op in ops}),
            (got["g_k1"]["variants"].get("HGMMA.64x128x16.F32"), 2),
            (got["g_k1"]["instructions"], k1_instrs),
            (got["g_k0"]["instructions"], 3),
        ]
        for i, (have, want) in enumerate(checks):
            if have != want:
                failures += 1
                print("self-test %s check %d: got %r, expected %r"
                      % (label, i, have, want))
    print("sass-summary self-test: %d passed, %d failed"
          % (12 - failures, failures))
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(
        prog="sass-summary.sh",
        description="Tensor-core and load instruction counts in the SASS "
                    "of fkc artifacts (scripts/sass-summary.sh --help)")
    p.add_argument("ptx", nargs="*", help="artifacts (default: "
                   "build/bench-artifacts/*.ptx)")
    p.add_argument("--json", metavar="FILE", help="also write the counts "
                   "as JSON to FILE")
    p.add_argument("--arch", default=os.environ.get("PTXAS_ARCH") or None,
                   help="ptxas -arch for every artifact (default: each "
                        "artifact's .target, else sm_90)")
    p.add_argument("--disassembler", choices=["cuobjdump", "nvdisasm"],
                   help="use only this one (default: cuobjdump, then "
                        "nvdisasm)")
    p.add_argument("--opcodes", default=",".join(DEFAULT_OPCODES),
                   help="comma-separated opcodes to count (default %(default)s)")
    p.add_argument("--self-test", action="store_true",
                   help="check the SASS parser on built-in samples; needs "
                        "no CUDA tools")
    args = p.parse_args()
    if args.self_test:
        return self_test()
    opcodes = [o for o in args.opcodes.split(",") if o]
    report = {"format": "fkc-sass-summary", "version": 1,
              "opcodes": opcodes, "ok": False, "tools": {},
              "artifacts": []}

    def give_up(message):
        report["error"] = message
        if args.json:
            write_json(args.json, report)
        fail(message)

    ptx_files = args.ptx or sorted(glob.glob(
        os.path.join(ROOT, "build", "bench-artifacts", "*.ptx")))
    if not ptx_files:
        give_up("no artifacts: none given and no build/bench-artifacts/"
                "*.ptx (run bench/compile.sh, or name .ptx files)")
    ptxas = find_tool("ptxas", "PTXAS")
    if not ptxas:
        give_up("ptxas not found (looked at $PTXAS, on PATH, in "
                "$CUDA_HOME/bin and /usr/local/cuda/bin); it is in the CUDA "
                "toolkit")
    names = [args.disassembler] if args.disassembler else \
        ["cuobjdump", "nvdisasm"]
    disassemblers = []
    for name in names:
        path = find_tool(name, name.upper())
        if path:
            disassemblers.append({"name": name, "path": path})
    if not disassemblers:
        give_up("%s not found (looked at $%s, on PATH, in $CUDA_HOME/bin "
                "and /usr/local/cuda/bin); they are in the CUDA toolkit"
                % (" or ".join(names), " / $".join(n.upper() for n in names)))
    tools = {"ptxas": ptxas, "disassemblers": disassemblers}
    report["tools"] = {
        "ptxas": ptxas, "ptxas_version": tool_version(ptxas),
        "disassemblers": [dict(d, version=tool_version(d["path"]))
                          for d in disassemblers]}
    tmp = tempfile.mkdtemp(prefix="sass-summary.")
    try:
        for ptx in ptx_files:
            report["artifacts"].append(
                summarize(ptx, tools, opcodes, args.arch, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    bad = [a for a in report["artifacts"] if a["status"] != "ok"]
    report["ok"] = not bad
    print(table(report["artifacts"], opcodes))
    print()
    print("sass-summary: %d artifacts, %d kernels; ptxas %s, %s" % (
        len(report["artifacts"]),
        sum(len(a.get("kernels", [])) for a in report["artifacts"]),
        report["tools"]["ptxas_version"] or ptxas,
        ", then ".join(d["name"] for d in disassemblers)))
    for a in report["artifacts"]:
        if a.get("note"):
            print("sass-summary: %s: %s" % (a["artifact"], a["note"]))
    if bad:
        print("sass-summary: not counted: %s" % ", ".join(
            "%s (%s)" % (a["artifact"], a["status"]) for a in bad))
    if args.json:
        write_json(args.json, report)
        print("sass-summary: wrote %s" % args.json)
    return 1 if bad else 0


sys.exit(main())
EOF
