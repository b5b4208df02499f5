"""The jitted kernels. Importing the package first keys Numba's disk cache by everything
a cached function depends on (kernels/caching.py), before any kernel is compiled."""

from kernels import caching as _caching

_caching.install()
