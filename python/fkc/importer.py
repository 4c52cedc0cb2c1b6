"""from_torch: a torch.nn.Module, exported with torch.export, as a .graph."""
import torch
import torch.utils._pytree as pytree
from torch.export.graph_signature import InputKind, OutputKind, TensorArgument

from .context import GraphText, NodeContext, Statement
from .dtypes import FK_DTYPES, Unsupported, fk_dtype
from .dynamic_shapes import TorchSizes, UserDims
from .errors import FkcError, Problem, UnsupportedModelError
from .graph import Graph, GraphDef
from .layers import factor_layers
from .lowering import LOWERINGS
from .names import LANGUAGE_OPS, legalize
from .sizes import InexpressibleSize, format_shape
from .source import module_path, source_location
from .values import Joined, Tensor

# Kept whole by the decomposition to core ATen: each is one op of the language
# (or a readable few), where its decomposition would spell it out.
PRESERVED_OPS = (
    torch.ops.aten.linear.default,
    torch.ops.aten.layer_norm.default,
    torch.ops.aten.scaled_dot_product_attention.default,
    torch.ops.aten.silu.default,
)

def export(model, args, kwargs=None, dynamic_shapes=None):
    """torch.export (non-strict) decomposed to core ATen, but for PRESERVED_OPS."""
    program = torch.export.export(model, tuple(args), kwargs=kwargs or {},
                                  dynamic_shapes=dynamic_shapes, strict=False)
    table = torch.export.default_decompositions()
    for op in PRESERVED_OPS:
        table.pop(op, None)
    return program.run_decompositions(table)


def from_torch(model, args, kwargs=None, *, name=None, dynamic_shapes=None,
               layers_as_graphs=True):
    """Imports `model` called on the example `args` (and `kwargs`) as a Graph.

    With `layers_as_graphs`, the layers of a ModuleList that compute the same
    statements (a transformer's blocks) are written once, as a graph that the
    model's graph calls per layer (docs/language.md, section 9).

    Shapes are those of the examples, but for the axes `dynamic_shapes` names
    (torch.export's argument: `{"input_ids": {1: "S"}}`, with names or
    torch.export.Dims, by argument name or position): those are symbolic
    dimensions of the graph, under the names given, bounded by the Dims' `max`.
    Raises UnsupportedModelError naming every operation the language cannot
    express (at these sizes, or for every size of the symbolic ones).
    """
    model_name = type(model).__name__
    user_dims = None
    if dynamic_shapes is not None:
        user_dims = UserDims(model, args, kwargs, dynamic_shapes)
    try:
        program = export(model, args, kwargs, user_dims.torch_spec if user_dims else None)
    except Exception as e:  # torch's own message says what it could not capture
        raise FkcError(f"torch.export could not capture {model_name}: "
                       f"{_torch_message(e, user_dims)}") from e
    return _Importer(program, name or model_name, model_name, layers_as_graphs,
                     user_dims).run(args, kwargs)


def _torch_message(error, user_dims):
    """torch's first line; for sizes of dynamic_shapes that the model does not
    allow (a size it makes constant, a range it bounds), each violation and
    torch's suggested fix, in the user's names."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines or not lines[0].startswith("Constraints violated") or user_dims is None:
        return f"{type(error).__name__}: {lines[0] if lines else ''}"
    violations = [line[2:].split(". If you")[0] for line in lines if line.startswith("- ")]
    fixes = lines[lines.index("Suggested fixes:") + 1:] if "Suggested fixes:" in lines else []
    fixes = [f for f in fixes if "=" in f and not f.startswith("The error above")]
    text = "dynamic_shapes asks for sizes the model does not allow: " + "; ".join(violations)
    if fixes:
        text += " (suggested: " + ", ".join(fixes) + ")"
    return user_dims.rename(text)


def _output_names(program):
    """Names of the outputs from their place in the returned structure: the
    fields of a ModelOutput (`logits`), positions of a tuple (`output_0`)."""
    spec = program.call_spec.out_spec
    skeleton = pytree.tree_unflatten(list(range(spec.num_leaves)), spec)
    names = []
    for path, _ in pytree.tree_flatten_with_path(skeleton)[0]:
        parts = [str(getattr(k, "key", getattr(k, "idx", getattr(k, "name", k)))) for k in path]
        text = "_".join(parts)
        names.append("output" if not text else ("output_" + text if text[0].isdigit() else text))
    return names


class _Importer:
    def __init__(self, program, graph_name, model_name, layers_as_graphs, user_dims):
        self.program, self.model_name = program, model_name
        self.user_dims = user_dims
        self.layers_as_graphs = layers_as_graphs
        self.graph_name = legalize(graph_name)
        if self.graph_name in LANGUAGE_OPS:
            self.graph_name += "_graph"
        self.text = GraphText()
        self.problems = []
        self.env = {}
        self.poisoned = set()

    def problem(self, node, op, reason):
        self.problems.append(Problem(op, reason, module_path(node), source_location(node)))

    def run(self, args, kwargs):
        program, signature = self.program, self.program.graph_signature
        graph = program.graph_module.graph
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        specs = dict(zip([n.name for n in placeholders], signature.input_specs))

        # Names: the model's inputs, then the weights (after their state_dict keys),
        # then the outputs; the other statements take the exported nodes' names.
        input_nodes = [n for n in placeholders if specs[n.name].kind == InputKind.USER_INPUT
                       and isinstance(n.meta.get("val"), torch.Tensor)]
        self.sizes = TorchSizes(program, self.user_dims, input_nodes)
        for symbol in self.sizes.symbols():  # symbols and values share the graph's names
            self.text.names.reserve(symbol)
        user_inputs, weights = [], []
        for node in placeholders:
            spec = specs[node.name]
            if spec.kind == InputKind.USER_INPUT:
                if isinstance(node.meta.get("val"), torch.Tensor):
                    user_inputs.append((node, self.text.names.reserve(node.name)))
                else:  # None or a number: the export holds it as a constant
                    self.env[node] = getattr(spec.arg, "value", None)
            elif node.users:
                weights.append((node, self.text.names.reserve(spec.target), spec))
        output_node = next(n for n in graph.nodes if n.op == "output")
        output_values = list(output_node.args[0])
        wanted_output = {}
        user_outputs = [(v, s) for v, s in zip(output_values, signature.output_specs)]
        out_names = iter(_output_names(program))
        for value, spec in user_outputs:
            if spec.kind != OutputKind.USER_OUTPUT:
                self.problem(output_node, "output",
                             f"the model updates {spec.kind.name.lower()} '{spec.target}' in "
                             f"place (only pure functions are imported)")
                continue
            name = next(out_names)
            if isinstance(value, torch.fx.Node) and value.op == "call_function" \
                    and value not in wanted_output:
                wanted_output[value] = self.text.names.reserve(name)

        parameters = []  # (name, type text)
        for node, name in user_inputs:
            self._placeholder(node, name, parameters)
        for node, name, _ in weights:
            self._placeholder(node, name, parameters)

        for node in graph.nodes:
            if node.op == "call_function":
                self._call(node, wanted_output.get(node))
            elif node.op == "get_attr":
                self.problem(node, str(node.target), "a submodule or attribute reference "
                             "(control flow such as torch.cond is not imported)")
                self._poison(node)

        results = []
        for value, spec in user_outputs:
            if spec.kind != OutputKind.USER_OUTPUT:
                continue
            if value in self.poisoned:
                continue
            v = self.env.get(value) if isinstance(value, torch.fx.Node) else value
            if isinstance(v, Joined):
                self.problem(output_node, "output", v.why())
                continue
            if not isinstance(v, Tensor):
                self.problem(output_node, "output", f"the output {value!r} is not a tensor")
                continue
            wanted = wanted_output.get(value)
            if wanted is not None and wanted not in self.text.defined:
                # The node only renamed a value (a clone, a view of nothing): name it.
                self.text.define(Statement([wanted], v.name, "output"),
                                 [self.text.types[v.name]])
                v = Tensor(wanted, v.dtype, v.shape)
            results.append(v.name)
        if self.problems:
            raise UnsupportedModelError(self.model_name, self.problems)

        tensors = {}
        state_dict_names = {}
        for node, name, spec in weights:
            tensors[name] = _weight(self.program, spec)
            state_dict_names[name] = spec.target
        example = pytree.tree_leaves((tuple(args), dict(kwargs or {})))
        user_specs = [s for s in signature.input_specs if s.kind == InputKind.USER_INPUT]
        example_inputs = {}
        tensor_examples = iter([e for e in example if isinstance(e, torch.Tensor)])
        for spec in user_specs:
            if isinstance(spec.arg, TensorArgument):
                example_inputs[spec.arg.name] = next(tensor_examples)
        inputs = {name: example_inputs[node.name] for node, name in user_inputs
                  if node.name in example_inputs}
        main = GraphDef(self.graph_name, parameters, self.text.statements, results,
                        self.sizes.bounds, self.sizes.lower_bounds)
        graphs = factor_layers(main, self.text.types, self.layers_as_graphs, self.sizes.symbols())
        return Graph(graphs, self.model_name, tensors, state_dict_names, inputs)

    def _placeholder(self, node, name, parameters):
        try:
            val = node.meta["val"]
            shape = self.sizes.shape(val.shape)
            type_text = f"{fk_dtype(val.dtype)}{format_shape(shape)}"
        except Unsupported as e:
            self.problem(node, f"input {node.name}", str(e))
            self._poison(node)
            return
        self.env[node] = Tensor(name, val.dtype, shape)
        self.text.types[name] = type_text
        parameters.append((name, type_text))

    def _call(self, node, output_name):
        op = str(node.target)
        if isinstance(node.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool)):
            # A size computed from sizes (or a float or condition of them, for
            # torch's checks): a number of the lowerings that take it.
            try:
                self.env[node] = self.sizes.dim(node.meta["val"])
            except Unsupported as e:
                self.problem(node, op, str(e))
                self._poison(node)
            return
        lowering = LOWERINGS.get(node.target)
        # A node downstream of a problem is still lowered, on stand-ins of its
        # inputs, so that every problem of the model is found in one run; only its
        # own problems are reported (not a dtype it inherits).
        downstream = any(i in self.poisoned for i in node.all_input_nodes)
        if lowering is None:
            self.problem(node, op, "no lowering to the language")
            self._poison(node)
            return
        args = torch.fx.node.map_arg(node.args, lambda n: self.env[n])
        kwargs = torch.fx.node.map_arg(node.kwargs, lambda n: self.env[n])
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in ("device", "layout", "pin_memory", "memory_format", "non_blocking")}
        comment = ", ".join(w for w in (module_path(node), source_location(node)) if w)
        try:
            joined = [a for a in pytree.tree_leaves((args, kwargs)) if isinstance(a, Joined)]
            if joined and not getattr(lowering, "takes_joined", False):
                raise Unsupported(joined[0].why())
            val = node.meta.get("val")
            if isinstance(val, torch.Tensor) and not downstream:
                fk_dtype(val.dtype)
            name = output_name or self.text.names.reserve(node.name)
            ctx = NodeContext(self.text, node, name, comment, self.sizes)
            self.env[node] = lowering(ctx, *args, **kwargs)
            if downstream:
                self._poison(node)
        except Unsupported as e:
            inherited = "has no counterpart" in str(e) or isinstance(e, InexpressibleSize)
            if not (downstream and inherited):
                self.problem(node, op, str(e))
            self._poison(node)
        except Exception as e:  # a case the lowering did not foresee: reported, not raised
            if not downstream:
                self.problem(node, op, f"not imported: the importer failed on it with "
                             f"{type(e).__name__}: {e}")
            self._poison(node)

    def _poison(self, node):
        """Marks the node's value as not importable, with a stand-in of its type."""
        self.poisoned.add(node)

        def stand_in(val):
            if isinstance(val, torch.Tensor):
                dtype = val.dtype if val.dtype in FK_DTYPES else torch.float32
                return Tensor(node.name, dtype, [int(d) if isinstance(d, int) else 1
                                                 for d in val.shape])
            if isinstance(val, (list, tuple)):
                return [stand_in(v) for v in val]
            return val
        self.env[node] = stand_in(node.meta.get("val"))


def _weight(program, spec):
    if spec.target in program.state_dict:
        tensor = program.state_dict[spec.target]
    else:
        tensor = program.constants[spec.target]
    return tensor.detach()
