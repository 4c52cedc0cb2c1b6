"""Where an exported node comes from: its module path and the user's source line."""
import importlib
import inspect
import os
import re
import sysconfig

import torch

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_SITE_DIRS = sorted({os.path.abspath(p) + os.sep for p in
                     (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])},
                    key=len, reverse=True)


def _short_path(path):
    path = os.path.abspath(path)
    for site in _SITE_DIRS:
        if path.startswith(site):
            return path[len(site):]
    cwd = os.getcwd() + os.sep
    if path.startswith(cwd):
        return path[len(cwd):]
    return path


def source_location(node):
    """`file:line` of the innermost frame of the node's stack trace outside torch
    itself (so an `nn.Linear` points at the model line that called it), or ''."""
    # Generated code (`<eval_with_key>`, where export re-traced a region) has no
    # file to point at: then the forward of the module the node runs in.
    frames = [f for f in _FRAME.findall(node.meta.get("stack_trace") or "")
              if not f[0].startswith("<")]
    if not frames:
        return _module_forward(node)
    user = [f for f in frames if not os.path.abspath(f[0]).startswith(_TORCH_DIR)]
    path, line = (user or frames)[-1]
    return f"{_short_path(path)}:{line}"


def _module_forward(node):
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    cls = list(stack.values())[-1][1]
    try:
        if isinstance(cls, str):
            module_name, _, cls_name = cls.rpartition(".")
            cls = getattr(importlib.import_module(module_name), cls_name)
        forward = inspect.unwrap(cls.forward)
        return f"{_short_path(inspect.getsourcefile(forward))}:{inspect.getsourcelines(forward)[1]}"
    except (ImportError, AttributeError, TypeError, OSError):
        return ""


def module_path(node):
    """The state_dict-style path of the innermost module the node runs in, with
    its class: `transformer.h.0.attn (GPT2Attention)`; the root is `(Model)`."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    path, cls = list(stack.values())[-1]
    cls = cls.__name__ if isinstance(cls, type) else str(cls).rsplit(".", 1)[-1]
    return f"{path} ({cls})" if path else f"({cls})"
