"""The importer's exceptions: every problem of a model is reported at once."""


class FkcError(Exception):
    """Base class of the errors the importer raises."""


class UnsupportedModelError(FkcError):
    """The model uses operations or constructs the importer cannot express.

    `problems` holds one `Problem` per offending node, in graph order; the
    message lists them all, each with its module path and source line.
    """

    def __init__(self, model_name, problems):
        self.problems = list(problems)
        lines = [f"cannot import {model_name}: {len(self.problems)} unsupported "
                 f"operation{'s' if len(self.problems) != 1 else ''}"]
        lines += ["  " + str(p) for p in self.problems]
        super().__init__("\n".join(lines))


class Problem:
    """One unsupported node: what it is, why, where in the model and the source."""

    def __init__(self, op, reason, module, location):
        self.op, self.reason, self.module, self.location = op, reason, module, location

    def __str__(self):
        where = ", ".join(w for w in (self.module, self.location) if w)
        return f"{self.op}: {self.reason}" + (f" [{where}]" if where else "")
