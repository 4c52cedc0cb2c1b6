"""Tests of the benchmark harness (bench/run.py, the package bench/fkbench/)
that need neither torch nor a GPU: reading signatures from artifacts, the
case table and its figures, the dry run and the report. With fkc built
(build/bin/fkc, or $FKC), every case is compiled and its real artifact read
too; with the runtime built beside it, the manifest reading is compared with
the runtime's. test/bench/harness.test runs this in the lit suite.

    python3 bench/test_run.py
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)

from fkbench import artifacts, cases, cli, manifest, paths, plan, report  # noqa: E402,E501
from fkbench.manifest import Signature, Tensor  # noqa: E402
from fkbench.timing import TimingPlan  # noqa: E402

# The compiler: $FKC (then its tests are not skipped, lit gives it), else
# build/bin/fkc; the runtime library built beside it.
FKC = os.environ.get("FKC") or os.path.join(paths.REPO, "build", "bin", "fkc")
FKRT_LIBRARY = os.path.join(os.path.dirname(os.path.dirname(FKC)), "runtime",
                            "libfkrt.so")
RUN = [sys.executable, paths.RUN_SCRIPT]


def _t(name, dtype, *shape):
    return Tensor(name, dtype, shape)


def _sig(name, inputs, outputs):
    return Signature(name, inputs, outputs)


ROWS, COLS = 16384, 4096
# What the graph files declare (RealArtifactTest checks these against fkc's
# artifacts), for the cases the figures are tested on.
SIGNATURES = {s.name: s for s in [
    _sig("gelu_f32", [_t("x", "f32", ROWS, COLS), _t("s", "f32", COLS),
                      _t("b", "f32", COLS)], [_t("y", "f32", ROWS, COLS)]),
    _sig("add_layernorm_f16",
         [_t("x", "f16", ROWS, COLS), _t("r", "f16", ROWS, COLS),
          _t("gamma", "f16", COLS), _t("beta", "f16", COLS)],
         [_t("y", "f16", ROWS, COLS), _t("h", "f16", ROWS, COLS)]),
    _sig("rmsnorm_f32", [_t("x", "f32", ROWS, COLS), _t("gamma", "f32", COLS)],
         [_t("y", "f32", ROWS, COLS)]),
    _sig("softmax_f16", [_t("x", "f16", ROWS, COLS)],
         [_t("y", "f16", ROWS, COLS)]),
    _sig("mlp_f16", [_t("x", "f16", 8192, 4096), _t("w1", "f16", 4096, 16384),
                     _t("b1", "f16", 16384), _t("w2", "f16", 16384, 4096)],
         [_t("y", "f16", 8192, 4096)]),
] + [
    _sig(name, [_t(n, "f16", 4, 16, 4096, d) for n in "qkv"],
         [_t("o", "f16", 4, 16, 4096, d)])
    for name, d in [("attention_d64", 64), ("attention_d128", 128),
                    ("attention_d128_causal", 128)]
] + [
    _sig("gemm_f16_%d" % n, [_t("a", "f16", n, n), _t("b", "f16", n, n)],
         [_t("c", "f16", n, n)]) for n in (4096, 8192)
] + [
    _sig("gemm_bias_gelu_f16_4096",
         [_t("a", "f16", 4096, 4096), _t("b", "f16", 4096, 4096),
          _t("bias", "f16", 4096)], [_t("y", "f16", 4096, 4096)]),
    _sig("bmm_f16", [_t("a", "f16", 16, 2048, 2048),
                     _t("b", "f16", 16, 2048, 2048)],
         [_t("c", "f16", 16, 2048, 2048)]),
    _sig("transformer_block_f16",
         [_t("x", "f16", 4, 2048, 2048), _t("norm1", "f16", 2048)] +
         [_t(w, "f16", 2048, 2048) for w in ("wq", "wk", "wv", "wo")] +
         [_t("norm2", "f16", 2048), _t("w_gate", "f16", 2048, 5632),
          _t("w_up", "f16", 2048, 5632), _t("w_down", "f16", 5632, 2048)],
         [_t("y", "f16", 4, 2048, 2048)]),
]}


def _case(name):
    """The table's case `name` with its signature from SIGNATURES."""
    case, = [c for c in cases.CASES if c.name == name]
    return case.with_signature(SIGNATURES[name])


def _manifest_text(signature, version=1):
    graph = {"name": signature.name,
             "inputs": [t.as_json() for t in signature.inputs],
             "outputs": [t.as_json() for t in signature.outputs],
             "workspace_bytes": 0, "buffers": [], "launches": []}
    return json.dumps({"format": "fkc-artifact", "version": version,
                       "target": "sm_90a", "graphs": [graph]})


def _write_artifact(folder, signature):
    """A stand-in for fkc's artifact of `signature`: its manifest, no
    kernels."""
    with open(artifacts.artifact_path(folder, signature.name), "w") as f:
        f.write("// fkc-manifest-begin\n// %s\n// fkc-manifest-end\n\n"
                ".version 8.0\n.target sm_90a\n.address_size 64\n"
                % _manifest_text(signature))


def _args(*argv):
    return cli.parse_args(list(argv))


class ManifestTest(unittest.TestCase):
    def read(self, text, graph="g"):
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", newline="",
                                         delete=False) as f:
            f.write(text)
        try:
            return manifest.read_signature(f.name, graph)
        finally:
            os.unlink(f.name)

    def assertError(self, text, message, graph="g"):
        with self.assertRaises(manifest.ManifestError) as caught:
            self.read(text, graph)
        self.assertIn(message, str(caught.exception))

    def test_reads_the_framing_of_docs_artifact_md(self):
        # Other comments around the manifest, JSON split over lines with an
        # empty `//` line, CRLF line ends; the graph is chosen by name.
        text = ("// made by a test\r\n\r\n// fkc-manifest-begin\r\n"
                '// {"format": "fkc-artifact", "version": 2,\r\n'
                "//\r\n"
                '//  "graphs": [{"name": "other", "inputs": [], '
                '"outputs": []},\r\n'
                '//   {"name": "g", "inputs": [{"name": "x", "dtype": '
                '"f16", "shape": [2, 3]},\r\n'
                '//     {"name": "s", "dtype": "f32", "shape": []}],\r\n'
                '//    "outputs": [{"name": "y", "dtype": "bf16", '
                '"shape": [2, 3]}]}]}\r\n'
                "// fkc-manifest-end\r\n//\r\n.version 8.0\r\n")
        sig = self.read(text)
        self.assertEqual(sig.name, "g")
        self.assertEqual([t.as_json() for t in sig.inputs],
                         [{"name": "x", "dtype": "f16", "shape": [2, 3]},
                          {"name": "s", "dtype": "f32", "shape": []}])
        self.assertEqual([t.text() for t in sig.outputs], ["y: bf16[2, 3]"])
        self.assertEqual(sig.inputs[0].bytes, 12)
        self.assertEqual(sig.inputs[1].numel, 1)

    def test_errors(self):
        good = _sig("g", [_t("x", "f16", 2)], [_t("y", "f16", 2)])
        body = "// %s\n" % _manifest_text(good)
        begin, end = "// fkc-manifest-begin\n", "// fkc-manifest-end\n"
        self.assertError(".version 8.0\n", "no fkc manifest")
        self.assertError(".version 8.0\n" + begin + body + end,
                         "no fkc manifest")   # not in the leading comments
        self.assertError(begin + body, "no '// fkc-manifest-end' line")
        self.assertError(begin + body + "{}\n" + end,
                         ":3: a line inside the manifest must start with "
                         "'// '")
        self.assertError(begin + "// {\"format\": \n" + end,
                         "the manifest is not valid JSON")
        self.assertError(begin + '// {"format": "other"}\n' + end,
                         "the manifest's format is not 'fkc-artifact'")
        self.assertError(begin + "// %s\n" % _manifest_text(good, version=3)
                         + end, "artifact version 3, but the benchmark "
                         "reads versions 1 and 2")
        self.assertError(begin + body + end, "no graph 'h' in the manifest "
                         "(it has g)", graph="h")
        bad = _sig("g", [_t("x", "f8", 2)], [])
        self.assertError(begin + "// %s\n" % _manifest_text(bad) + end,
                         "graph 'g': a malformed input or output "
                         "(unknown dtype 'f8')")

    def test_shrunk(self):
        sig = SIGNATURES["attention_d64"].shrunk(8)
        self.assertEqual(sig.inputs[0].shape, (4, 16, 512, 64))
        self.assertEqual(sig.outputs[0].shape, (4, 16, 512, 64))


class ArtifactsTest(unittest.TestCase):
    def test_reasons_name_compile_sh(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(artifacts.ArtifactError) as caught:
                artifacts.check_folder(os.path.join(folder, "none"))
            self.assertIn("bash bench/compile.sh", str(caught.exception))
            artifacts.check_folder(folder)
            with self.assertRaises(artifacts.ArtifactError) as caught:
                artifacts.signature(folder, "gelu_f32")
            self.assertIn("gelu_f32.ptx (compile the cases with `bash "
                          "bench/compile.sh`)", str(caught.exception))
            with open(os.path.join(folder, "status.tsv"), "w") as f:
                f.write("case\tfkc\tptxas\ngelu_f32\tfailed\t-\n")
            with open(os.path.join(folder, "COMMIT"), "w") as f:
                f.write("abc123-dirty\n")
            with self.assertRaises(artifacts.ArtifactError) as caught:
                artifacts.signature(folder, "gelu_f32")
            self.assertIn("(compile.sh: fkc failed, ptxas -)",
                          str(caught.exception))
            self.assertEqual(artifacts.compiled_commit(folder),
                             "abc123-dirty")

    def test_load(self):
        with tempfile.TemporaryDirectory() as folder:
            _write_artifact(folder, SIGNATURES["gelu_f32"])
            swapped = SIGNATURES["rmsnorm_f32"]
            _write_artifact(folder, _sig(swapped.name, swapped.inputs[::-1],
                                         swapped.outputs))
            chosen, _ = cases.select("gelu_f32,rmsnorm_f32,softmax_f16")
            loaded, unusable = cases.load(chosen, folder, shrink=4)
        self.assertEqual([c.name for c in loaded], ["gelu_f32"])
        self.assertEqual(loaded[0].inputs[0].shape, (4096, 1024))
        self.assertIsNone(cases.CASES[0].signature)   # the table is intact
        self.assertIn("graph rmsnorm_f32 takes inputs (gamma, x), but the "
                      "case table expects (x, gamma)",
                      unusable["rmsnorm_f32"])
        self.assertIn("no artifact", unusable["softmax_f16"])


class CasesTest(unittest.TestCase):
    def test_every_case_has_its_graph(self):
        files = sorted(f[:-len(".graph")] for f in os.listdir(paths.CASES_DIR)
                       if f.endswith(".graph"))
        self.assertEqual(files, sorted(c.name for c in cases.CASES))

    def test_figures(self):
        gelu = _case("gelu_f32")
        self.assertEqual(gelu.bytes, 2 * ROWS * COLS * 4 + 2 * COLS * 4)
        self.assertEqual(gelu.unit, "GB/s")
        self.assertIsNone(gelu.flops)
        self.assertEqual(gelu.tolerance, 1e-4)
        self.assertAlmostEqual(gelu.rate(1.0), gelu.bytes / 1e9)
        ln = _case("add_layernorm_f16")
        self.assertEqual(ln.bytes, 4 * ROWS * COLS * 2 + 2 * COLS * 2)
        self.assertEqual(ln.tolerance, 1e-2)
        mlp = _case("mlp_f16")
        self.assertEqual(mlp.flops, 2 * (2 * 8192 * 16384 * 4096))
        self.assertEqual(mlp.unit, "TFLOP/s")
        att = _case("attention_d128")
        self.assertEqual(att.flops, 4 * 4 * 16 * 4096 ** 2 * 128)
        self.assertEqual(_case("attention_d128_causal").flops,
                         att.flops // 2)
        self.assertAlmostEqual(att.rate(1.0), att.flops / 1e12)
        self.assertTrue(att.sdpa)
        self.assertIn("sdpa_cudnn", att.peers())
        self.assertNotIn("sdpa_flash", gelu.peers())
        self.assertEqual(att.peers()[-1], "fkc")
        for n in (4096, 8192):
            gemm = _case("gemm_f16_%d" % n)
            self.assertEqual(gemm.flops, 2 * n ** 3)
            self.assertEqual(gemm.unit, "TFLOP/s")
            self.assertIn("cuBLAS", gemm.eager_is)
            self.assertNotIn("sdpa_flash", gemm.peers())
        self.assertEqual(_case("gemm_bias_gelu_f16_4096").flops,
                         2 * 4096 ** 3)
        bmm = _case("bmm_f16")
        self.assertEqual(bmm.flops, 2 * 16 * 2048 ** 3)
        self.assertEqual(bmm.bytes, 3 * 16 * 2048 * 2048 * 2)
        block = _case("transformer_block_f16")
        tokens = 4 * 2048
        self.assertEqual(block.flops,
                         2 * tokens * 2048 * 2048 * 4 +
                         2 * tokens * 2048 * 5632 * 3 +
                         4 * 4 * 16 * 2048 ** 2 * 128 // 2)

    def test_select(self):
        chosen, unknown = cases.select("gelu*,mlp_f16,nothing*")
        self.assertEqual([c.name for c in chosen],
                         ["gelu_f32", "gelu_f16", "mlp_f16"])
        self.assertEqual(unknown, ["nothing*"])

    def test_timing(self):
        t = TimingPlan(0.4, quick=False)
        self.assertEqual(t.iterations(1e-4), 200)       # capped
        self.assertEqual(t.iterations(0.01), 40)        # budget / time
        self.assertEqual(t.iterations(0.5), 5)          # at least 5
        self.assertEqual(t.iterations(2.0), 1)          # a slow call
        self.assertEqual(t.warmup_calls(0.001), 50)
        self.assertEqual(t.warmup_calls(0.1), 0)
        q = _args("--quick")
        self.assertEqual(q.budget, 0.1)
        self.assertEqual(TimingPlan(q.budget, q.quick).iterations(1e-4), 20)


class DryRunTest(unittest.TestCase):
    def test_plan(self):
        names = ["mlp_f16", "attention_d128_causal", "bmm_f16",
                 "gemm_f16_4096"]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(plan.print_plan(
                _args("--dry-run"), [_case(n) for n in names], {}), 0)
        text = buf.getvalue()
        self.assertIn("attention_d128_causal: softmax(q @ k^T / sqrt(128) "
                      "+ causal mask) @ v", text)
        self.assertIn("inputs:  q: f16[4, 16, 4096, 128]; k: f16[4, 16, "
                      "4096, 128]; v: f16[4, 16, 4096, 128]", text)
        self.assertIn("2199 GFLOP", text)                # mlp_f16
        self.assertIn("bmm_f16: c = a @ b, batch 16 of 2048^3", text)
        self.assertIn("274.9 GFLOP", text)
        self.assertIn("eager:   runs one cuBLAS GEMM (torch.matmul)", text)
        self.assertNotIn("torch", sys.modules)

    def dry_run(self, *argv):
        return subprocess.run(RUN + ["--dry-run"] + list(argv),
                              capture_output=True, text=True)

    def test_command_line(self):
        out = self.dry_run("--artifacts", "/nonexistent/bench-artifacts")
        self.assertEqual(out.returncode, 2)
        self.assertIn("no artifacts folder /nonexistent/bench-artifacts: "
                      "compile the cases with `bash bench/compile.sh` first",
                      out.stderr)
        with tempfile.TemporaryDirectory() as folder:
            _write_artifact(folder, SIGNATURES["gelu_f32"])
            with open(os.path.join(folder, "status.tsv"), "w") as f:
                f.write("case\tfkc\tptxas\ngelu_f32\tok\tok\n"
                        "mlp_f16\tfailed\t-\n")
            out = self.dry_run("--artifacts", folder, "--cases", "gelu_f32")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("(compile.sh: fkc ok, ptxas ok)", out.stdout)
            out = self.dry_run("--artifacts", folder, "--cases",
                               "gelu_f32,mlp_f16")
            self.assertEqual(out.returncode, 1)
            self.assertIn("gelu_f32: gelu(x * s + b)", out.stdout)
            self.assertIn("run: mlp_f16 cannot run: no artifact", out.stderr)
            self.assertIn("(compile.sh: fkc failed, ptxas -)", out.stderr)
            self.assertIn("1 of 2 cases have no usable artifact; compile the "
                          "cases with `bash bench/compile.sh`", out.stderr)
            out = self.dry_run("--artifacts", folder, "--cases", "nothing*")
            self.assertEqual(out.returncode, 2)
            self.assertIn("no case matches nothing*", out.stderr)


@unittest.skipUnless(os.path.exists(FKC) or "FKC" in os.environ,
                     "fkc is not built (build/bin/fkc)")
class RealArtifactTest(unittest.TestCase):
    """Every case compiled by fkc, as bench/compile.sh does."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.folder = cls.tmp.name
        for case in cases.CASES:
            out = subprocess.run([FKC, case.graph_path, "-o",
                                  artifacts.artifact_path(cls.folder,
                                                          case.name)],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise AssertionError("fkc %s: %s" % (case.graph_path,
                                                     out.stderr))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_signatures(self):
        loaded, unusable = cases.load(cases.CASES, self.folder)
        self.assertEqual(unusable, {})
        for case in loaded:
            self.assertEqual(case.signature.name, case.name)
            self.assertEqual(tuple(t.name for t in case.inputs),
                             case.input_names)
            if case.name in SIGNATURES:
                expected = SIGNATURES[case.name]
                self.assertEqual(
                    [t.as_json() for t in case.inputs + case.outputs],
                    [t.as_json() for t in expected.inputs +
                     expected.outputs], case.name)

    @unittest.skipUnless(os.path.exists(FKRT_LIBRARY),
                         "the runtime is not built (build/runtime)")
    def test_the_runtime_reads_the_same(self):
        os.environ["FKRT_LIBRARY"] = FKRT_LIBRARY
        sys.path.insert(0, os.path.join(paths.REPO, "runtime", "python"))
        import fkrt
        for case in cases.CASES:
            path = artifacts.artifact_path(self.folder, case.name)
            sig = manifest.read_signature(path, case.name)
            with fkrt.Module(path) as module:
                for ours, runtime in [(sig.inputs, module.inputs(case.name)),
                                      (sig.outputs,
                                       module.outputs(case.name))]:
                    self.assertEqual(
                        [(t.name, t.dtype, t.shape) for t in ours],
                        [(t.name, t.dtype, t.shape) for t in runtime],
                        case.name)

    def test_dry_run(self):
        out = subprocess.run(RUN + ["--dry-run", "--artifacts", self.folder],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        for case in cases.CASES:
            self.assertIn("\n%s: %s\n" % (case.name, case.description),
                          out.stdout)
        self.assertIn("outputs: y: f16[16384, 4096]; h: f16[16384, 4096]",
                      out.stdout)


def _state():
    """Results as a worker reports them: fkc passing, failing, missing."""
    ok = {"status": "ok", "median_s": 0.002, "iters": 100, "min_s": 0.0019,
          "max_s": 0.003, "mean_s": 0.0021, "method": "cuda-events"}
    results = {
        "gelu_f32": {"case": "gelu_f32", "peers": {
            "eager": dict(ok, median_s=0.004),
            "compile": dict(ok, median_s=0.001, error=1e-7),
            "xla": {"status": "unavailable", "reason": "no jax"},
            "fkc": dict(ok, check="pass", error=2e-7)}},
        "softmax_f16": {"case": "softmax_f16", "peers": {
            "eager": ok, "compile": {"status": "failed",
                                     "reason": "RuntimeError: x | y"},
            "xla": dict(ok, error=0.5),
            "fkc": dict(ok, check="fail", error=0.3)}},
        "rmsnorm_f32": {"case": "rmsnorm_f32", "peers": {
            "eager": ok, "compile": dict(ok, error=None,
                                         error_detail="output 0 is f16"),
            "fkc": dict(ok, check="fail", error=None, max_s=float("inf"),
                        error_detail="output 0: 5 NaNs where the reference "
                                     "has 0")}},
        "attention_d64": {"case": "attention_d64", "error": "timed out",
                          "peers": {"eager": ok, "fkc": {
                              "status": "failed",
                              "reason": "fkrt.Error: jit"}}},
    }
    for res in results.values():
        for r in res["peers"].values():
            if r.get("status") == "ok":
                r["rate"] = 1.0
    return {"meta": {"gpu": "NVIDIA H100 80GB HBM3", "torch": "2.11",
                     "python": "3.12", "sms": 132, "l2_bytes": 50 * 2 ** 20},
            "jax": None, "results": results, "notes": [], "elapsed_s": 1,
            "ceilings": {"copy": {"GB/s": 3000.0},
                         "gemm_f16_8192": {"TFLOP/s": 700.0}}}


class ReportTest(unittest.TestCase):
    def test_report(self):
        names = ["gelu_f32", "softmax_f16", "rmsnorm_f32", "attention_d64"]
        reported = [_case(n) for n in names]
        # A case without an artifact is reported, with why.
        reported.append([c for c in cases.CASES if c.name == "mlp_f16"][0])
        state = _state()
        state["results"]["mlp_f16"] = {
            "case": "mlp_f16", "peers": {},
            "error": "not run: no artifact build/bench-artifacts/mlp_f16.ptx"}
        with tempfile.TemporaryDirectory() as out:
            args = _args("--out", out, "--commit", "abc123")
            with contextlib.redirect_stdout(io.StringIO()):
                written = report.write_report(args, reported, state)
            files = sorted(os.listdir(out))
            self.assertEqual(len(files), 2)
            self.assertTrue(files[0].endswith("-h100-80gb-hbm3.json"), files)
            with open(os.path.join(out, files[0])) as f:
                saved = json.load(f)
            with open(os.path.join(out, files[1])) as f:
                md = f.read()
        self.assertEqual(saved["commit"], "abc123")
        self.assertEqual(saved["gpu"], "NVIDIA H100 80GB HBM3")
        by = {c["case"]: c for c in written["cases"]}
        self.assertEqual(by["gelu_f32"]["graph"], "bench/cases/gelu_f32.graph")
        self.assertEqual(by["gelu_f32"]["inputs"][1],
                         {"name": "s", "dtype": "f32", "shape": [4096]})
        self.assertEqual(by["gelu_f32"]["fkc_check"], "pass")
        self.assertAlmostEqual(
            by["gelu_f32"]["peers"]["eager"]["fkc_speedup"], 2.0)
        self.assertAlmostEqual(
            by["gelu_f32"]["peers"]["compile"]["fkc_speedup"], 0.5)
        self.assertEqual(by["softmax_f16"]["fkc_check"], "fail")
        self.assertEqual(by["attention_d64"]["error"], "timed out")
        self.assertIsNone(by["mlp_f16"]["bytes"])
        self.assertEqual(by["mlp_f16"]["unit"], "TFLOP/s")
        rows = {line.split(" | ")[0][2:]: line for line in md.splitlines()
                if line.startswith("| ") and (" | GB/s | " in line or
                                              " | TFLOP/s | " in line)}
        self.assertIn("1 (2.00x)", rows["gelu_f32"])
        self.assertIn("1 (0.50x)", rows["gelu_f32"])
        self.assertIn("unavailable", rows["gelu_f32"])
        self.assertIn("pass (2.0e-07 < 0.0001)", rows["gelu_f32"])
        self.assertIn("**FAIL** (3.0e-01, limit 0.01)", rows["softmax_f16"])
        self.assertIn("not run", rows["attention_d64"])
        self.assertIn("**FAIL** (output 0: 5 NaNs where the reference has 0)",
                      rows["rmsnorm_f32"])
        self.assertEqual(rows["mlp_f16"], "| mlp_f16 | TFLOP/s | - | not run "
                         "| not run | not run | not run |  |  | - |")
        self.assertIn("- rmsnorm_f32, fkc: outputs differ from eager's: "
                      "output 0: 5 NaNs", md)
        self.assertIn("- rmsnorm_f32, torch.compile: differs from eager: "
                      "output 0 is f16", md)
        self.assertEqual(by["rmsnorm_f32"]["peers"]["fkc"]["max_s"],
                         float("inf"))
        saved_by = {c["case"]: c for c in saved["cases"]}
        self.assertEqual(saved_by["rmsnorm_f32"]["peers"]["fkc"]["max_s"],
                         "inf")
        self.assertIn("- softmax_f16, torch.compile: failed: RuntimeError: "
                      "x \\| y", md)
        self.assertIn("- softmax_f16, JAX/XLA: differs from eager by 0.5", md)
        self.assertIn("- attention_d64, fkc: failed: fkrt.Error: jit", md)
        self.assertIn("- attention_d64: timed out", md)
        self.assertIn("- mlp_f16: not run: no artifact", md)
        self.assertIn("device copy 3000 GB/s", md)

    def test_gemm_report_names_cublas(self):
        reported = [_case("gemm_f16_8192")]
        ok = {"status": "ok", "median_s": 0.002, "iters": 10, "rate": 550.0}
        state = {"meta": None, "jax": None, "notes": [], "ceilings": None,
                 "results": {"gemm_f16_8192": {
                     "case": "gemm_f16_8192",
                     "peers": {"eager": dict(ok),
                               "fkc": dict(ok, median_s=0.004, rate=275.0,
                                           check="pass", error=3e-4)}}}}
        built = report.build_report(_args("--commit", "abc123"), reported,
                                    state)
        self.assertEqual(built["cases"][0]["eager_is"],
                         "one cuBLAS GEMM (torch.matmul)")
        self.assertAlmostEqual(
            built["cases"][0]["peers"]["eager"]["fkc_speedup"], 0.5)
        md = report.markdown(built, reported)
        self.assertIn("- gemm_f16_8192: PyTorch eager runs one cuBLAS GEMM "
                      "(torch.matmul)", md)
        self.assertIn("550 (0.50x)", md)
        self.assertIn("pass (3.0e-04 < 0.01)", md)

    def test_committed_results_are_reproduced(self):
        """Each result committed in bench/results/: the case table gives
        the figures it recorded for the signatures it recorded, and its
        JSON renders to its Markdown byte for byte."""
        folder = os.path.join(BENCH, "results")
        stems = sorted(n[:-len(".json")] for n in os.listdir(folder)
                       if n.endswith(".json"))
        self.assertTrue(stems)
        for stem in stems:
            with open(os.path.join(folder, stem + ".json")) as f:
                saved = json.load(f)
            with open(os.path.join(folder, stem + ".md")) as f:
                committed_md = f.read()
            reported = [_with_recorded_signature(e) for e in saved["cases"]]
            for case, entry in zip(reported, saved["cases"]):
                counted = case.signature is not None  # else not run
                self.assertEqual(
                    (case.bytes if counted else None,
                     case.flops if counted else None, case.unit,
                     case.tolerance if counted else None,
                     case.description, paths.relative(case.graph_path)),
                    (entry["bytes"], entry["flops"], entry["unit"],
                     entry["tolerance"], entry["description"],
                     entry["graph"]), "%s: %s" % (stem, case.name))
            self.assertEqual(report.markdown(saved, reported), committed_md,
                             stem)


def _with_recorded_signature(entry):
    """The table's case of a results entry, with the signature the entry
    recorded (none for a case the run did not reach, which the report lists
    as not run)."""
    case, = [c for c in cases.CASES if c.name == entry["case"]]
    if entry["inputs"] is None:
        return case

    def tensors(key):
        return [Tensor(t["name"], t["dtype"], t["shape"])
                for t in entry[key]]
    return case.with_signature(Signature(case.name, tensors("inputs"),
                                         tensors("outputs")))


if __name__ == "__main__":
    unittest.main()
