"""A graph's signature (its inputs and outputs: names, dtypes, shapes) read
from the manifest of the artifact fkc compiled it to.

The artifact, not the .graph file, is the source: it is what fkc actually
compiled and what the runtime checks every run against, so the peers are
given exactly the tensors fkc's kernels take, and no second parser of the
language can drift from fkc's. The framing is docs/artifact.md's: the
manifest is JSON in the file's leading `//` comment block, between the lines
`// fkc-manifest-begin` and `// fkc-manifest-end`. Only what the benchmark
needs is read here; the runtime validates the whole manifest when fkc is run.
"""

import json
import math

FORMAT = "fkc-artifact"
VERSIONS = (1, 2)          # the artifact versions this reader knows
BEGIN, END = "// fkc-manifest-begin", "// fkc-manifest-end"

DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "i1": 1}


class ManifestError(ValueError):
    """An artifact without a readable manifest, or without the graph."""


class Tensor:
    """A graph input or output: name, dtype (the language's spelling) and
    shape."""

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)

    def __repr__(self):
        return "Tensor(%s)" % self.text()

    @property
    def numel(self):
        return math.prod(self.shape)

    @property
    def bytes(self):
        return self.numel * DTYPE_BYTES[self.dtype]

    def text(self):
        return "%s: %s[%s]" % (self.name, self.dtype,
                               ", ".join(str(d) for d in self.shape))

    def as_json(self):
        return {"name": self.name, "dtype": self.dtype,
                "shape": list(self.shape)}


class Signature:
    """One graph of an artifact: its name, inputs and outputs, in call
    order."""

    def __init__(self, name, inputs, outputs):
        self.name, self.inputs, self.outputs = name, inputs, outputs

    def shrunk(self, factor):
        """The signature with every dimension of 256 or more divided by
        `factor` (--shrink, a test aid)."""
        def shrink(tensors):
            return [Tensor(t.name, t.dtype,
                           [d // factor if d >= 256 else d for d in t.shape])
                    for t in tensors]
        return Signature(self.name, shrink(self.inputs), shrink(self.outputs))


def read_manifest(path):
    """The manifest of the artifact at `path`, as parsed JSON."""
    lines, inside, line_no = [], False, 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line_no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not inside:
                if line == BEGIN:
                    inside = True
                elif line and not line.startswith("//"):
                    break          # the leading comment block has ended
            elif line == END:
                return _parse(path, "\n".join(lines))
            elif line == "//" or line.startswith("// "):
                lines.append(line[3:])
            else:
                raise ManifestError("%s:%d: a line inside the manifest must "
                                    "start with '// '" % (path, line_no))
    if inside:
        raise ManifestError("%s: no '%s' line" % (path, END))
    raise ManifestError("%s: no fkc manifest (no '%s' line in the leading "
                        "comments): not an fkc artifact" % (path, BEGIN))


def _parse(path, text):
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise ManifestError("%s: the manifest is not valid JSON: %s"
                            % (path, e)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ManifestError("%s: the manifest's format is not %r"
                            % (path, FORMAT))
    if manifest.get("version") not in VERSIONS:
        raise ManifestError(
            "%s: artifact version %r, but the benchmark reads versions %s"
            % (path, manifest.get("version"),
               " and ".join(str(v) for v in VERSIONS)))
    return manifest


def read_signature(path, graph):
    """The signature of graph `graph` of the artifact at `path`."""
    graphs = read_manifest(path).get("graphs") or []
    names = [g.get("name") for g in graphs]
    if graph not in names:
        raise ManifestError("%s: no graph %r in the manifest (it has %s)"
                            % (path, graph, ", ".join(map(str, names))
                               or "none"))
    entry = graphs[names.index(graph)]
    try:
        return Signature(graph, _tensors(entry["inputs"]),
                         _tensors(entry["outputs"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ManifestError("%s: graph %r: a malformed input or output (%s)"
                            % (path, graph, e)) from None


def _tensors(entries):
    tensors = []
    for t in entries:
        if t["dtype"] not in DTYPE_BYTES:
            raise ValueError("unknown dtype %r" % t["dtype"])
        tensors.append(Tensor(t["name"], t["dtype"],
                              [int(d) for d in t["shape"]]))
    return tensors
