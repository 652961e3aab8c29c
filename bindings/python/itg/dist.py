"""Random laws: the library's own generators, so a law,
its parameters and a seed give the same draws here as in a flow."""
from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Sequence, Union

from ._itg import ffi, lib
from ._util import PathLike, value_of
from .errors import check, error_for, message_of

# Law names as the library spells them ("constant", "uniform", ...).
KINDS: Dict[str, int] = {}
for _k in range(64):
    _name = lib.itg_dist_kind_name(_k)
    if _name == ffi.NULL:
        break
    KINDS[ffi.string(_name).decode("ascii")] = _k
del _k, _name

Kind = Union[str, int]


def kind_value(kind: Kind) -> int:
    """The C value of a law given by name or value."""
    return value_of(KINDS, kind, "law")


def kind_name(value: int) -> str:
    name = lib.itg_dist_kind_name(value)
    return str(value) if name == ffi.NULL else ffi.string(name).decode("ascii")


def read_trace(path: PathLike) -> List[float]:
    """The values of a trace file (one number a line) for an empirical law.

    Raises itg.NotFound, itg.Malformed (naming the bad line), ...
    """
    values = ffi.new("double **")
    n = ffi.new("size_t *")
    bad = ffi.new("size_t *")
    rc = lib.itg_dist_read_file(os.fsencode(path), values, n, bad)
    if rc < 0:
        where = f" (line {bad[0]})" if bad[0] else ""
        raise error_for(rc, f"{os.fspath(path)}{where}: {message_of(rc)}")
    try:
        return list(ffi.unpack(values[0], n[0]))
    finally:
        lib.itg_free(values[0])


class Dist:
    """A random law with its own generator, seeded explicitly.

    Dist("exponential", [0.001], seed=7).next() draws like the flow layer's
    laws; a law takes its parameters in the order itg-send's option for
    it does (`itg-send --help`), times in seconds.
    """

    def __init__(self, kind: Kind, params: Sequence[float] = (), seed: int = 0) -> None:
        k = kind_value(kind)
        p = ffi.new("double[]", [float(x) for x in params] or [0.0])
        out = ffi.new("itg_dist **")
        rc = lib.itg_dist_new(k, p, len(params), seed, out)
        if rc < 0:
            raise error_for(rc, f"{kind_name(k)}{tuple(params)}: {message_of(rc)}")
        self._d: Any = ffi.gc(out[0], lib.itg_dist_free)

    @classmethod
    def empirical(cls, values: Sequence[float]) -> "Dist":
        """A law that replays values in order, from the start again at the end."""
        self = cls.__new__(cls)
        arr = ffi.new("double[]", [float(x) for x in values] or [0.0])
        out = ffi.new("itg_dist **")
        check(lib.itg_dist_new_empirical(arr, len(values), out))
        self._d = ffi.gc(out[0], lib.itg_dist_free)
        return self

    def _handle(self) -> Any:
        if self._d is None:
            raise ValueError("dist is closed")
        return self._d

    def close(self) -> None:
        if self._d is not None:
            ffi.release(self._d)
            self._d = None

    def __enter__(self) -> "Dist":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def kind(self) -> str:
        return kind_name(lib.itg_dist_get_kind(self._handle()))

    @property
    def mean(self) -> float:
        """The law's mean (NaN where it has none)."""
        return float(lib.itg_dist_mean(self._handle()))

    def next(self) -> float:
        return float(lib.itg_dist_next(self._handle()))

    def next_in(self, lo: float = -math.inf, hi: float = math.inf) -> float:
        """A draw inside [lo, hi] (the law truncated to it); NaN if lo > hi."""
        return float(lib.itg_dist_next_in(self._handle(), lo, hi))

    def draws(self, n: int) -> List[float]:
        """The next n draws."""
        d = self._handle()
        return [float(lib.itg_dist_next(d)) for _ in range(n)]

    def __repr__(self) -> str:
        return f"<itg.Dist {self.kind}>" if self._d is not None else "<itg.Dist closed>"
