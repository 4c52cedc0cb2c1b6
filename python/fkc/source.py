"""Where an exported node comes from: its module path and the user's source line."""
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
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    if not frames:
        return ""
    user = [f for f in frames if not os.path.abspath(f[0]).startswith(_TORCH_DIR)]
    path, line = (user or frames)[-1]
    return f"{_short_path(path)}:{line}"


def module_path(node):
    """The state_dict-style path of the innermost module the node runs in, with
    its class: `transformer.h.0.attn (GPT2Attention)`; the root is `(Model)`."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return ""
    path, cls = list(stack.values())[-1]
    cls = cls.__name__ if isinstance(cls, type) else str(cls).rsplit(".", 1)[-1]
    return f"{path} ({cls})" if path else f"({cls})"
