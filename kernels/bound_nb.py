"""A kernel's arguments boxed once (jitted code only), for a loop that calls it again and
again with the same ones: the training environments' steps.

Numba unboxes every argument at every call, and a run context's plug-in slots are 36
first-class functions, each looked up through Python: about 100 us a call, where a step
of one deal takes 2. ``Bound`` holds the arguments in one Numba structure, made once
(``bind_nb``); a kernel's bound form (``env_step_bound_nb``, ...) takes it and unboxes one
pointer. It holds the arrays themselves (not copies) and the compiled addresses of the
plug-ins: the caller keeps the run context alive beside it.

The parallel kernels pass their run context into their loops the same way (``held =
bind_nb(run)``, then ``held.arguments`` in each block): Numba's parallel loop cannot take
a namedtuple holding tuples of functions (kernels/contexts_nb.py), but takes a pointer.
"""

from collections import namedtuple

from numba import config, njit, types
from numba.experimental import structref


@structref.register
class BoundType(types.StructRef):
    pass


class Bound(structref.StructRefProxy):
    """The Python handle of a ``BoundType``: ``arguments``, a tuple, read by the kernels."""


if config.DISABLE_JIT:  # the kernels run as Python: a plain holder of the same field (a StructRef needs the compiler)
    Bound = namedtuple("Bound", ["arguments"])  # noqa: F811
else:
    structref.define_proxy(Bound, BoundType, ["arguments"])


@njit(cache=True)
def bind_nb(arguments):
    return Bound(arguments)
