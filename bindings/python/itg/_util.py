"""Conversions between Python values and the C structs' fields."""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Mapping, Optional, Union

from ._itg import ffi
from .errors import InvalidArgument, code_of

PathLike = Union[str, "os.PathLike[str]"]


def cstr(cdata: Any) -> str:
    """The text of a NUL-terminated char array or pointer."""
    return str(ffi.string(cdata).decode("utf-8", "replace"))


def encode_text(value: "str | os.PathLike[str]", field: str, size: int) -> bytes:
    """Encodes text for a char[size] field, refusing what would not fit.

    Raises InvalidArgument when the text holds a NUL or needs `size` bytes
    or more (the C side wants it terminated inside the array).
    """
    raw = os.fsencode(value)
    if b"\0" in raw:
        raise InvalidArgument(code_of("EINVAL"), f"{field}: contains a NUL character")
    if len(raw) >= size:
        raise InvalidArgument(code_of("EINVAL"),
                              f"{field}: longer than {size - 1} bytes")
    return raw


def value_of(table: Mapping[str, int], value: Union[str, int], what: str) -> int:
    """The C value of an enum given by name (any case) or by value."""
    if isinstance(value, str):
        try:
            return table[value.lower()]
        except KeyError:
            raise InvalidArgument(code_of("EINVAL"), f"{what}: {value!r} is not one of "
                                  f"{', '.join(table)}") from None
    return int(value)


def name_of(table: Mapping[str, int], value: int) -> str:
    """The name of an enum's C value (the number itself if it has none)."""
    return next((name for name, v in table.items() if v == value), str(value))


# The longest a wait stays in C before Python gets to handle signals (Ctrl-C).
_POLL_S = 0.2


def seconds_to_ns(seconds: float | None) -> int:
    """A timeout in seconds as the C API's nanoseconds (None: -1, no limit)."""
    if seconds is None:
        return -1
    if seconds != seconds or seconds < 0:
        raise ValueError(f"timeout must be a non-negative number of seconds, not {seconds!r}")
    return min(int(seconds * 1e9), 2**63 - 1)


def wait_in_slices(call: Callable[[int], int], timeout: Optional[float], timed_out: int) -> int:
    """Runs a C wait, call(timeout_ns), for at most timeout seconds (None: no
    limit) in slices of _POLL_S, so that a signal (Ctrl-C) is handled in
    between. Returns the last result: timed_out when the time ran out."""
    seconds_to_ns(timeout)  # refuses a bad timeout before waiting
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = _POLL_S if deadline is None else max(0.0, min(_POLL_S, deadline - time.monotonic()))
        rc = call(seconds_to_ns(left))
        if rc != timed_out or (deadline is not None and time.monotonic() >= deadline):
            return rc
