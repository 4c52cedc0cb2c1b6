"""Tests of bench/run.py's parts that need neither torch nor a GPU: the
cases and their graph files, the figures' arithmetic, the report.

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

FKC = os.path.join(run.REPO, "build", "bin", "fkc")


def _args(*argv):
    args = run._parse_args(list(argv))
    args.artifacts = os.path.abspath(args.artifacts)
    return args


class CasesTest(unittest.TestCase):
    def test_every_case_has_its_graph(self):
        files = sorted(f[:-len(".graph")] for f in os.listdir(run.CASES_DIR)
                       if f.endswith(".graph"))
        self.assertEqual(files, sorted(c.name for c in run.CASES))
        for case in run.CASES:
            case.load()
            self.assertEqual(case.graph_name, case.name)

    @unittest.skipUnless(os.path.exists(FKC), "fkc is not built")
    def test_graphs_parse(self):
        for case in run.CASES:
            out = subprocess.run([FKC, case.graph_path, "--emit=graph"],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            # The parameters run.py read are those fkc sees.
            for p in case.load().params:
                self.assertIn('fk.name = "%s"' % p.name, out.stdout)

    def test_figures(self):
        by = {c.name: c.load() for c in run.CASES}
        gelu = by["gelu_f32"]
        self.assertEqual(gelu.bytes, 2 * 16384 * 4096 * 4 + 2 * 4096 * 4)
        self.assertEqual(gelu.unit, "GB/s")
        self.assertEqual(gelu.tolerance, 1e-4)
        ln = by["add_layernorm_f16"]
        self.assertEqual(ln.bytes, 4 * 16384 * 4096 * 2 + 2 * 4096 * 2)
        self.assertEqual([o.name for o in ln.outputs], ["y", "h"])
        self.assertEqual(ln.tolerance, 1e-2)
        mlp = by["mlp_f16"]
        self.assertEqual(mlp.flops, 2 * (2 * 8192 * 16384 * 4096))
        self.assertEqual(mlp.outputs[0].shape, (8192, 4096))
        self.assertEqual(mlp.unit, "TFLOP/s")
        att = by["attention_d128"]
        self.assertEqual(att.flops, 4 * 4 * 16 * 4096 ** 2 * 128)
        self.assertEqual(by["attention_d128_causal"].flops, att.flops // 2)
        self.assertAlmostEqual(att.rate(1.0), att.flops / 1e12)
        self.assertTrue(att.sdpa)
        self.assertIn("sdpa_cudnn", att.peers())
        self.assertNotIn("sdpa_flash", gelu.peers())
        self.assertEqual(att.peers()[-1], "fkc")
        for n in (4096, 8192):
            gemm = by["gemm_f16_%d" % n]
            self.assertEqual(gemm.flops, 2 * n ** 3)
            self.assertEqual([(o.name, o.dtype, o.shape) for o in gemm.outputs],
                             [("c", "f16", (n, n))])
            self.assertEqual(gemm.unit, "TFLOP/s")
            self.assertEqual(gemm.tolerance, 1e-2)
            self.assertIn("cuBLAS", gemm.eager_is)
            self.assertNotIn("sdpa_flash", gemm.peers())
        gelu_gemm = by["gemm_bias_gelu_f16_4096"]
        self.assertEqual(gelu_gemm.flops, 2 * 4096 ** 3)
        self.assertEqual(gelu_gemm.outputs[0].shape, (4096, 4096))
        self.assertEqual(gelu_gemm.family, "gemm_bias_gelu")
        bmm = by["bmm_f16"]
        self.assertEqual(bmm.flops, 2 * 16 * 2048 ** 3)
        self.assertEqual(bmm.outputs[0].shape, (16, 2048, 2048))
        self.assertEqual(bmm.bytes, 3 * 16 * 2048 * 2048 * 2)

    def test_shrink(self):
        case = run.Case("attention_d64", "attention", ["q", "k", "v"],
                        run._attention_outputs).load(shrink=8)
        self.assertEqual(case.params[0].shape, (4, 16, 512, 64))

    def test_select(self):
        chosen, unknown = run.select_cases("gelu*,mlp_f16,nothing*")
        self.assertEqual([c.name for c in chosen],
                         ["gelu_f32", "gelu_f16", "mlp_f16"])
        self.assertEqual(unknown, ["nothing*"])

    def test_timing(self):
        t = run.Timing(_args())
        self.assertEqual(t.iterations(1e-4), 200)       # capped
        self.assertEqual(t.iterations(0.01), 40)        # budget / time
        self.assertEqual(t.iterations(0.5), 5)          # at least 5
        self.assertEqual(t.iterations(2.0), 1)          # a slow call
        self.assertEqual(t.warmup_calls(0.001), 50)
        self.assertEqual(t.warmup_calls(0.1), 0)
        q = run.Timing(_args("--quick"))
        self.assertEqual(q.iterations(1e-4), 20)

    def test_parse_graph(self):
        with tempfile.NamedTemporaryFile("w", suffix=".graph",
                                         delete=False) as f:
            f.write("# graph nope(a: f32[1])\ngraph g(x: f16[2, 3],\n"
                    "  s: f32[]) {\n  return x\n}\n")
        try:
            name, params = run.parse_graph(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(name, "g")
        self.assertEqual([(p.name, p.dtype, p.shape) for p in params],
                         [("x", "f16", (2, 3)), ("s", "f32", ())])


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
                              "status": "unavailable",
                              "reason": "no artifact"}}},
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
        cases = [c.load() for c in run.CASES if c.name in names]
        with tempfile.TemporaryDirectory() as out:
            args = _args("--out", out, "--commit", "abc123")
            with contextlib.redirect_stdout(io.StringIO()):
                report = run.write_report(args, cases, _state())
            files = sorted(os.listdir(out))
            self.assertEqual(len(files), 2)
            self.assertTrue(files[0].endswith("-h100-80gb-hbm3.json"), files)
            with open(os.path.join(out, files[0])) as f:
                saved = json.load(f)
            with open(os.path.join(out, files[1])) as f:
                md = f.read()
        self.assertEqual(saved["commit"], "abc123")
        self.assertEqual(saved["gpu"], "NVIDIA H100 80GB HBM3")
        by = {c["case"]: c for c in report["cases"]}
        self.assertEqual(by["gelu_f32"]["fkc_check"], "pass")
        self.assertAlmostEqual(
            by["gelu_f32"]["peers"]["eager"]["fkc_speedup"], 2.0)
        self.assertAlmostEqual(
            by["gelu_f32"]["peers"]["compile"]["fkc_speedup"], 0.5)
        self.assertEqual(by["softmax_f16"]["fkc_check"], "fail")
        self.assertEqual(by["attention_d64"]["error"], "timed out")
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
        self.assertIn("- attention_d64: timed out", md)
        self.assertIn("device copy 3000 GB/s", md)

    def test_dry_run(self):
        buf = io.StringIO()
        cases = [c.load() for c in run.CASES]
        with contextlib.redirect_stdout(buf):
            self.assertEqual(run.dry_run(_args("--dry-run"), cases), 0)
        text = buf.getvalue()
        self.assertIn("attention_d128_causal: softmax(q @ k^T / sqrt(128) "
                      "+ causal mask) @ v", text)
        self.assertIn("2199 GFLOP", text)
        self.assertIn("bmm_f16: c = a @ b, batch 16 of 2048^3", text)
        self.assertIn("274.9 GFLOP", text)
        self.assertIn("eager:   runs one cuBLAS GEMM (torch.matmul)", text)

    def test_gemm_report_names_cublas(self):
        cases = [c.load() for c in run.CASES if c.name == "gemm_f16_8192"]
        ok = {"status": "ok", "median_s": 0.002, "iters": 10, "rate": 550.0}
        state = {"meta": None, "jax": None, "notes": [], "ceilings": None,
                 "results": {"gemm_f16_8192": {
                     "case": "gemm_f16_8192",
                     "peers": {"eager": dict(ok),
                               "fkc": dict(ok, median_s=0.004, rate=275.0,
                                           check="pass", error=3e-4)}}}}
        args = _args("--commit", "abc123")
        report = run.build_report(args, cases, state)
        self.assertEqual(report["cases"][0]["eager_is"],
                         "one cuBLAS GEMM (torch.matmul)")
        self.assertAlmostEqual(
            report["cases"][0]["peers"]["eager"]["fkc_speedup"], 0.5)
        md = run.markdown(report, cases)
        self.assertIn("- gemm_f16_8192: PyTorch eager runs one cuBLAS GEMM "
                      "(torch.matmul)", md)
        self.assertIn("550 (0.50x)", md)
        self.assertIn("pass (3.0e-04 < 0.01)", md)


if __name__ == "__main__":
    unittest.main()
