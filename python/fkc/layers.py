"""Repeated layers written once: the blocks of a ModuleList whose statements
are the same up to names (a transformer's layers) become one graph, which the
model's graph calls once per layer (docs/language.md, section 9)."""
import re

from .context import Statement
from .graph import GraphDef
from .names import LANGUAGE_OPS, NameTable, legalize

_LAYER_PATH = re.compile(r"^(.*)\.(\d+)$")
# A value name in a statement: not an op or graph called, an attribute's name
# or value, a string, or part of a number.
_VALUE_NAME = re.compile(r'(?<![\w.="])([A-Za-z_]\w*)(?![\w(=])')


def _rename(text, mapping):
    return _VALUE_NAME.sub(lambda m: mapping.get(m.group(1), m.group(1)), text)


def _names_in(text):
    return _VALUE_NAME.findall(text)


def _layer_of(statement):
    """(list path, index, class) of the outermost ModuleList entry the node runs in."""
    if statement.node is None:
        return None
    for path, cls in (statement.node.meta.get("nn_module_stack") or {}).values():
        match = _LAYER_PATH.match(path)
        if match:
            cls = cls.__name__ if isinstance(cls, type) else str(cls).rsplit(".", 1)[-1]
            return match.group(1), int(match.group(2)), cls
    return None


class _Layer:
    def __init__(self, positions, statements, used_later, types):
        self.positions = positions
        self.statements = statements
        self.defined = [t for s in statements for t in s.targets]
        defined = set(self.defined)
        self.inputs = []
        for s in statements:
            for name in _names_in(s.expr):
                if name in types and name not in defined and name not in self.inputs:
                    self.inputs.append(name)
        self.outputs = [d for d in self.defined if d in used_later]
        mapping = {d: f"%v{k}" for k, d in enumerate(self.defined)}
        mapping.update({a: f"%a{k}" for k, a in enumerate(self.inputs)})
        self.canonical = "\n".join(_rename(s.text, mapping) for s in statements)
        self.output_slots = [self.defined.index(o) for o in self.outputs]


def _symbols_given_by_calls(layer, types, symbols):
    """Whether each symbol the layer uses is a whole dimension of one of its
    inputs, as a call must give it (docs/language.md, symbolic F4): a layer
    that sees S only inside `B*S` stays inline."""
    texts = [types[a] for a in layer.inputs] + [s.expr for s in layer.statements] + \
        [types[d] for d in layer.defined]
    used = {w for t in texts for w in re.findall(r"[A-Za-z_]\w*", t)} & set(symbols)
    whole = {d.strip() for a in layer.inputs for d in types[a].split("[", 1)[1][:-1].split(",")}
    return used <= whole


def factor_layers(main, types, enabled, symbols=()):
    """[layer graphs..., main graph], the layers' statements in `main` replaced by
    calls; `symbols`, the names of symbolic dimensions, name no parameter."""
    graphs, tried = [], set()
    while enabled:
        groups = {}
        for position, statement in enumerate(main.statements):
            layer = _layer_of(statement)
            if layer and layer[0] not in tried:
                prefix, index, cls = layer
                groups.setdefault((prefix, cls), {}).setdefault(index, []).append(position)
        if not groups:
            break
        (prefix, cls), layers = min(groups.items(), key=lambda g: min(min(p) for p in g[1].values()))
        tried.add(prefix)
        taken = {g.name for g in graphs} | {main.name}
        callee = _factor(main, prefix, cls, layers, types, taken, symbols)
        if callee is not None:
            graphs.append(callee)
    return graphs + [main]


def _factor(main, prefix, cls, layers, types, taken, symbols):
    if len(layers) < 2:
        return None
    parts = []
    for index in sorted(layers):
        positions = layers[index]
        if positions != list(range(positions[0], positions[-1] + 1)):
            return None  # interleaved with other statements: left as it is
        inside = set(positions)
        used_later = set(main.results)
        for p, s in enumerate(main.statements):
            if p not in inside:
                used_later.update(_names_in(s.expr))
        parts.append(_Layer(positions, [main.statements[p] for p in positions], used_later,
                            types))
    first = parts[0]
    if not first.outputs or any(
            p.canonical != first.canonical or p.output_slots != first.output_slots
            or [types[a] for a in p.inputs] != [types[a] for a in first.inputs] for p in parts):
        return None
    if not _symbols_given_by_calls(first, types, symbols):
        return None

    names = NameTable()
    for d in list(symbols) + first.defined:
        names.reserve(d)
    strip = legalize(f"{prefix}.{sorted(layers)[0]}") + "_"
    parameters = {}
    for a in first.inputs:
        short = a[len(strip):] if a.startswith(strip) and len(a) > len(strip) else a
        parameters[a] = names.reserve(short)
    body = [Statement(s.targets, _rename(s.expr, parameters), s.comment, s.node)
            for s in first.statements]
    name = legalize(cls)
    while name in taken or name in LANGUAGE_OPS:
        name += "_layer"
    # The callee's symbols are bounded as the caller's: each is a graph of the
    # file, compiled symbolic too.
    callee_types = " ".join(types[a] for a in first.inputs)

    def own(bounds):
        return {s: b for s, b in bounds.items() if re.search(rf"\b{re.escape(s)}\b", callee_types)}
    callee = GraphDef(name, [(parameters[a], types[a]) for a in first.inputs], body,
                      first.outputs, own(main.bounds), own(main.lower_bounds))

    statements, calls = [], {p.positions[0]: p for p in parts}
    skip = {q for p in parts for q in p.positions}
    for position, s in enumerate(main.statements):
        if position in calls:
            part = calls[position]
            index = sorted(layers)[parts.index(part)]
            statements.append(Statement(part.outputs, f"{name}({', '.join(part.inputs)})",
                                        f"{prefix}.{index} ({cls})"))
        elif position not in skip:
            statements.append(s)
    main.statements = statements
    return callee
