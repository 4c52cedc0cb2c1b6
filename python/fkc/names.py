"""Legal, unique names for the .graph language (identifiers, not keywords)."""
import re

# Keywords of the language (docs/language.md, section 2) cannot be names.
KEYWORDS = frozenset({"graph", "return", "true", "false", "inf"})

# The operations of the language (section 11): a graph named so could not be called.
LANGUAGE_OPS = frozenset("""add sub mul div pow max min neg abs relu floor exp log sqrt rsqrt tanh
sigmoid silu erf sin cos gelu eq ne lt le gt ge select cast sum mean reshape transpose broadcast
iota full matmul softmax layernorm rmsnorm attention gather argmax argmin slice concat pad
dynamic_slice update_slice""".split())


def legalize(text):
    """Maps any text (a state_dict key such as `h.0.attn.c_attn.weight`) to an identifier.

    Every character outside [A-Za-z0-9_] becomes `_`; a leading digit gets a
    leading `_`; a keyword gets a trailing `_`. The mapping is deterministic;
    `NameTable` makes the results unique.
    """
    name = re.sub(r"[^A-Za-z0-9_]", "_", text) or "_"
    if name[0].isdigit():
        name = "_" + name
    if name in KEYWORDS:
        name += "_"
    return name


class NameTable:
    """Hands out unique identifiers: a taken name gets `_1`, `_2`, ... appended."""

    def __init__(self):
        self._taken = set()

    def reserve(self, wanted):
        base = legalize(wanted)
        name, k = base, 0
        while name in self._taken:
            k += 1
            name = f"{base}_{k}"
        self._taken.add(name)
        return name

    def __contains__(self, name):
        return name in self._taken
