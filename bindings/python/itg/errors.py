"""Exceptions: one class per code of libitg's error table.

Every class derives from itg.Error, which carries the C code (.code, a
negative number) and its name in the table (.name, e.g. "EINVAL", as
itg_err_name gives it). Each class has a descriptive name and the C name as
an alias (itg.InvalidArgument is itg.EINVAL). The table is read from the
library when this module is imported, so a code the library knows but this
module does not name still gets a class of its own, named by its C name.

Some classes also derive from the built-in exception a Python program
already catches: InvalidArgument and OutOfRange from ValueError,
OutOfMemory from MemoryError, NotFound from FileNotFoundError,
ConnectionRefused from ConnectionRefusedError and TimedOut from
TimeoutError (these three with the matching .errno).
"""
from __future__ import annotations

import errno
import itertools
from typing import Dict, NoReturn, Optional, Type

from ._itg import ffi, lib


def _c_name(code: int) -> str:
    return str(ffi.string(lib.itg_err_name(code)).decode("ascii"))


def _c_message(code: int) -> str:
    return str(ffi.string(lib.itg_strerror(code)).decode("utf-8", "replace"))


class Error(Exception):
    """An error reported by libitg.

    Attributes: code (the negative ITG_E* value), name (its C name without
    the ITG_ prefix), message (what went wrong; the library's sentence for
    the code when nothing more precise is known).
    """

    c_name: str = "UNKNOWN"

    def __init__(self, code: int, message: Optional[str] = None) -> None:
        self.code = code
        self.name = _c_name(code)
        self.message = message or _c_message(code)
        super().__init__(self.message)
        if isinstance(self, OSError):
            # What code that catches OSError reads: the errno and its text.
            # Set by name, since only the OSError subclasses have them.
            setattr(self, "errno", _OS_ERRNO.get(self.name))
            setattr(self, "strerror", self.message)

    def __str__(self) -> str:
        return f"{self.message} ({self.name})"

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.code, self.message))


class InvalidArgument(Error, ValueError):
    c_name = "EINVAL"


class OutOfMemory(Error, MemoryError):
    c_name = "ENOMEM"


class OutOfRange(Error, ValueError):
    c_name = "ERANGE"


class InputOutputError(Error):
    c_name = "EIO"


class NotFound(Error, FileNotFoundError):
    c_name = "ENOENT"


class Truncated(Error):
    c_name = "ETRUNC"


class Malformed(Error):
    c_name = "EBADMSG"


class UnsupportedVersion(Error):
    c_name = "EVERSION"


class BadAddress(Error):
    c_name = "EADDR"


class SocketError(Error):
    c_name = "ESOCKET"


class ConnectionRefused(Error, ConnectionRefusedError):
    c_name = "ECONNREFUSED"


class TimedOut(Error, TimeoutError):
    c_name = "ETIMEDOUT"


class ConnectionClosed(Error):
    c_name = "ECLOSED"


class ProtocolError(Error):
    c_name = "EPROTO"


class Refused(Error):
    c_name = "EREFUSED"


class Busy(Error):
    c_name = "EBUSY"


class NotSupported(Error):
    c_name = "ENOTSUP"


class InvalidState(Error):
    c_name = "ESTATE"


class Canceled(Error):
    c_name = "ECANCELED"


class LimitReached(Error):
    c_name = "ELIMIT"


class ThreadError(Error):
    c_name = "ETHREAD"


class AddressInUse(Error):
    c_name = "EADDRINUSE"


class PermissionDenied(Error):
    c_name = "EPERM"


class NoSpace(Error):
    c_name = "ENOSPC"


class AlreadyExists(Error):
    c_name = "EEXIST"


_OS_ERRNO: Dict[str, int] = {"ENOENT": errno.ENOENT, "ECONNREFUSED": errno.ECONNREFUSED,
                             "ETIMEDOUT": errno.ETIMEDOUT}

# The C names, for code that thinks in them (except itg.EINVAL: ...).
EINVAL = InvalidArgument
ENOMEM = OutOfMemory
ERANGE = OutOfRange
EIO = InputOutputError
ENOENT = NotFound
ETRUNC = Truncated
EBADMSG = Malformed
EVERSION = UnsupportedVersion
EADDR = BadAddress
ESOCKET = SocketError
ECONNREFUSED = ConnectionRefused
ETIMEDOUT = TimedOut
ECLOSED = ConnectionClosed
EPROTO = ProtocolError
EREFUSED = Refused
EBUSY = Busy
ENOTSUP = NotSupported
ESTATE = InvalidState
ECANCELED = Canceled
ELIMIT = LimitReached
ETHREAD = ThreadError
EADDRINUSE = AddressInUse
EPERM = PermissionDenied
ENOSPC = NoSpace
EEXIST = AlreadyExists

# What `from itg.errors import *` gives: Error, every class by its
# descriptive name and by its C name (and, below, any class made for a code
# this module does not name).
__all__ = [
    "Error",
    "InvalidArgument", "OutOfMemory", "OutOfRange", "InputOutputError", "NotFound",
    "Truncated", "Malformed", "UnsupportedVersion", "BadAddress", "SocketError",
    "ConnectionRefused", "TimedOut", "ConnectionClosed", "ProtocolError", "Refused",
    "Busy", "NotSupported", "InvalidState", "Canceled", "LimitReached", "ThreadError",
    "AddressInUse", "PermissionDenied", "NoSpace", "AlreadyExists",
    "EINVAL", "ENOMEM", "ERANGE", "EIO", "ENOENT", "ETRUNC", "EBADMSG", "EVERSION",
    "EADDR", "ESOCKET", "ECONNREFUSED", "ETIMEDOUT", "ECLOSED", "EPROTO", "EREFUSED",
    "EBUSY", "ENOTSUP", "ESTATE", "ECANCELED", "ELIMIT", "ETHREAD", "EADDRINUSE",
    "EPERM", "ENOSPC", "EEXIST",
]

_NAMED: Dict[str, Type[Error]] = {
    cls.c_name: cls for cls in Error.__subclasses__() if cls.c_name != "UNKNOWN"
}

# Code -> class and C name -> code, over the library's whole table: codes
# run from -1 downwards without holes until the library says UNKNOWN.
CLASSES: Dict[int, Type[Error]] = {}
CODES: Dict[str, int] = {}
for _code in itertools.count(-1, -1):
    _name = _c_name(_code)
    if _name == "UNKNOWN":
        break
    _cls = _NAMED.get(_name)
    if _cls is None:
        _cls = type(_name, (Error,), {"c_name": _name, "__module__": __name__})
        globals()[_name] = _cls
        __all__.append(_name)
    if _cls.__doc__ is None:
        # One line each, so that help() shows the table, not 50 copies of
        # Error's text.
        _cls.__doc__ = f"{_c_message(_code)} (ITG_{_name})."
    CLASSES[_code] = _cls
    CODES[_name] = _code
del _code, _name, _cls


def message_of(code: int) -> str:
    """The library's sentence for a code ("invalid argument", ...)."""
    return _c_message(code)


def code_of(name: str) -> int:
    """The C code of an error name such as "EINVAL"."""
    return CODES[name]


def error_for(code: int, message: Optional[str] = None) -> Error:
    """The exception for a negative C code (itg.Error for one not in the table)."""
    return CLASSES.get(code, Error)(code, message)


def raise_for(code: int, message: Optional[str] = None) -> NoReturn:
    raise error_for(code, message)


def check(rc: int, message: Optional[str] = None) -> int:
    """Returns rc when it is not an error, else raises its exception."""
    if rc < 0:
        raise error_for(rc, message)
    return rc
