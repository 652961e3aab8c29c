"""libitg for Python: an embeddable network traffic generator.

    import itg
    with itg.Receiver(log="/tmp/r.itglog", port=0) as rx:
        itg.send(rx, "-T UDP -C 1000 -c 64 -t 1000")
    report = itg.decode("/tmp/r.itglog")
    print(report.total.packets, report.total.lost)

The pacing and the packet path run in the library's C threads; Python
configures, waits and reads results. Flows are described by the same
option words as itg-send (`itg-send --help`) or by FlowConfig fields.
Experiment files, the flows of a distributed run with the ranks they run
on, are read by itg.Experiment. Errors raise itg.Error subclasses named
after the library's error table (itg.InvalidArgument is itg.EINVAL, ...;
itg.NotFound is also a FileNotFoundError): help(itg.errors) lists them.
itg.series() and itg.Series give the interval series of itg-dec -d, -j,
-b, -p; itg.LogServer collects logs shipped over the network (itg-log).
Submodules: itg.wire (packet headers), itg.log (log records and files),
itg.dist (random laws), itg.remote (agents that run flows on command, and
the connection that drives one).
"""
from __future__ import annotations

import atexit

from . import dist, errors, log, remote, wire
from ._itg import ffi as _ffi
from ._itg import lib as _lib
from .dist import Dist, read_trace
from .errors import *  # noqa: F401,F403  (Error and one class per C error name)
from .experiment import Experiment, ExperimentFlow, Placement
from .flow import DistSpec, FlowConfig
from .logserver import LogServer, LogServerStats
from .logserver import close_all as _close_logservers
from .log import Damage, LogHeader, LogReader, LogRecord, RecordBatch, read_log, record_dtype
from .receiver import FlowEvent, Receiver, ReceiverStats
from .receiver import close_all as _close_receivers
from .report import FileStatus, FlowStats, Report, Stats, decode
from .sender import FlowResult, Sender, send
from .series import Series, SeriesPoint, series
from .sender import close_all as _close_senders

__version__: str = _ffi.string(_lib.itg_version_string()).decode("ascii")

DEFAULT_SIG_PORT: int = _lib.ITG_DEFAULT_SIG_PORT
DEFAULT_DATA_PORT: int = _lib.ITG_DEFAULT_DATA_PORT


def clock_real_ns() -> int:
    """The wall clock in ns since the Unix epoch (UTC), as the library reads it."""
    return int(_lib.itg_clock_real_ns())


def clock_mono_ns() -> int:
    """The monotonic clock in ns (arbitrary origin), as the pacer reads it."""
    return int(_lib.itg_clock_mono_ns())


__all__ = [
    "dist", "errors", "log", "remote", "wire",
    "Dist", "read_trace", "DistSpec", "FlowConfig",
    "Experiment", "ExperimentFlow", "Placement",
    "Damage", "LogHeader", "LogReader", "LogRecord", "RecordBatch", "read_log", "record_dtype",
    "FlowEvent", "Receiver", "ReceiverStats",
    "FileStatus", "FlowStats", "Report", "Stats", "decode",
    "FlowResult", "Sender", "send",
    "Series", "SeriesPoint", "series", "LogServer", "LogServerStats",
    "DEFAULT_SIG_PORT", "DEFAULT_DATA_PORT", "clock_real_ns", "clock_mono_ns",
    "__version__",
]
# The exception classes are attributes of itg (itg.NotFound) but only
# Error is listed here: help(itg) shows the API, help(itg.errors) the table.
__all__ += ["Error"]


@atexit.register
def _close_everything() -> None:
    # No C thread may call into Python once the interpreter is going away:
    # stop the senders, then the receivers whose callbacks they feed.
    _close_senders()
    _close_receivers()
    _close_logservers()
