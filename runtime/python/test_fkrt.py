"""Manifest queries through the Python binding; needs no GPU nor torch.

Skipped when the fkrt library cannot be loaded (set FKRT_LIBRARY).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fkrt  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "tests", "data", "sample.ptx")

try:
    fkrt.library()
    LIBRARY_ERROR = None
except OSError as e:
    LIBRARY_ERROR = str(e)


@unittest.skipIf(LIBRARY_ERROR, LIBRARY_ERROR or "")
class ManifestTest(unittest.TestCase):
    def test_queries(self):
        with fkrt.Module(SAMPLE) as m:
            self.assertEqual(m.version, 1)
            self.assertEqual(m.target, "sm_90")
            self.assertEqual(m.graph_names(), ["mlp", "mask"])
            ins = m.inputs("mlp")
            self.assertEqual([i.name for i in ins], ["x", "w"])
            self.assertEqual(ins[0].dtype, "f16")
            self.assertEqual(ins[0].shape, (64, 32))
            self.assertEqual(ins[0].bytes, 64 * 32 * 2)
            outs = m.outputs("mask")
            self.assertEqual(outs[0].shape, ())
            self.assertEqual(outs[0].dtype, "f32")
            self.assertEqual(m.workspace_bytes("mlp"), 8192)

    def test_from_memory(self):
        with open(SAMPLE, "rb") as f:
            m = fkrt.Module(data=f.read())
        self.assertEqual(m.graph_names(), ["mlp", "mask"])

    def test_errors(self):
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module("/nonexistent/x.ptx")
        self.assertEqual(e.exception.status, 2)
        self.assertIn("cannot open", str(e.exception))
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module(data=b"// fkc-manifest-begin\n// {}\n"
                             b"// fkc-manifest-end\n")
        self.assertIn("manifest: missing field 'format'", str(e.exception))
        with fkrt.Module(SAMPLE) as m:
            with self.assertRaises(fkrt.Error) as e:
                m.inputs("nope")
            self.assertEqual(e.exception.status, 5)


if __name__ == "__main__":
    unittest.main()
