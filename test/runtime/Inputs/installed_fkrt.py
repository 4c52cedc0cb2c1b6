#!/usr/bin/env python3
"""Imports fkrt as pip installed it and prints what pip-install.test checks.

    installed_fkrt.py MODEL.ptx

Where the binding and the library it loaded lie, relative to the
environment's site-packages; the artifact's graphs and signatures (read
without a GPU); then what loading it on CUDA device 0 gives: the runtime's
status name and message on failure (ERROR_NO_DRIVER without a driver).
"""

import os
import sys
import sysconfig

import fkrt

site_packages = sysconfig.get_paths()["platlib"]


def where(path):
    return os.path.join("site-packages", os.path.relpath(path, site_packages))


STATUS_NAMES = {getattr(fkrt, name): name for name in dir(fkrt)
                if name.startswith("ERROR_")}

print("module:", where(fkrt.__file__))
print("library:", where(fkrt.library()._name))
with fkrt.Module(sys.argv[1]) as module:
    print("graphs:", " ".join(module.graph_names()))
    for graph in module.graph_names():
        for info in module.inputs(graph):
            print("input %s: %s" % (info.name, info.type_text()))
        for info in module.outputs(graph):
            print("output %s: %s" % (info.name, info.type_text()))
    try:
        module.load_cuda(0)
        print("load_cuda: loaded on cuda:%d" % module.device)
    except fkrt.Error as e:
        print("load_cuda: %s: %s" % (STATUS_NAMES.get(e.status, e.status), e))
