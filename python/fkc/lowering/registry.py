"""The table of lowerings, filled by the modules of this package."""
LOWERINGS = {}


def lowers(*ops):
    def register(fn):
        for op in ops:
            LOWERINGS[op] = fn
        return fn
    return register
