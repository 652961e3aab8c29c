"""Interval series: per interval of T, per flow and in total, the packets,
bytes, lost packets, mean delay, mean jitter and bitrate; what itg-dec's
-d, -j, -b and -p write (and -c, all four). itg.series() reads log files;
Series takes records as they come, as Stats does."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional, Union

from ._itg import ffi, lib
from ._util import PathLike, value_of
from .errors import InvalidArgument, check, code_of, error_for, message_of
from .report import METERS, Records, _batch_of

# What Series.csv writes: the columns of itg-dec's series files.
FIELDS: Dict[str, int] = {"delay": lib.ITG_SERIES_DELAY, "jitter": lib.ITG_SERIES_JITTER,
                          "bitrate": lib.ITG_SERIES_BITRATE, "loss": lib.ITG_SERIES_LOSS,
                          "combined": lib.ITG_SERIES_COMBINED}


@dataclass(frozen=True)
class SeriesPoint:
    """One flow's (flow_id 0: the total's) values in one interval, which
    starts start_ns after the first interval's start. delay_avg_ns and
    jitter_avg_ns are 0 in an interval without packets."""

    flow_id: int
    start_ns: int
    packets: int
    bytes: int
    lost: int
    delay_avg_ns: float
    jitter_avg_ns: float
    bitrate_kbps: float

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


class Series:
    """An interval series of one meter ("owd", "rtt" or "sent"), intervals
    interval_ns long, aligned on the first record added.

        s = itg.Series(100_000_000)          # 100 ms, as itg-dec -d 100
        s.add(batch)                         # records in logged order
        s.points()                           # the total, interval by interval
        s.points(flow_id=1), s.csv("delay")
    """

    def __init__(self, interval_ns: int, meter: str = "owd") -> None:
        if isinstance(interval_ns, bool) or not isinstance(interval_ns, int) or interval_ns <= 0:
            raise InvalidArgument(code_of("EINVAL"),
                                  f"interval_ns: {interval_ns!r} is not a positive integer")
        out = ffi.new("itg_series **")
        check(lib.itg_series_new(interval_ns, value_of(METERS, meter, "meter"), out))
        self._s: Any = ffi.gc(out[0], lib.itg_series_free)
        self.interval_ns = interval_ns

    def add(self, records: Records) -> None:
        """Adds records: a RecordBatch, LogRecord tuples or a numpy array of
        record_dtype(). Raises itg.InvalidArgument for a record with unknown
        or missing kind flags, itg.LimitReached past ITG_SERIES_MAX_CELLS."""
        batch = _batch_of(records)
        if len(batch):
            check(lib.itg_series_add(self._s, batch.c_array(), len(batch)))

    def __len__(self) -> int:
        """The number of intervals."""
        return int(lib.itg_series_interval_count(self._s))

    @property
    def flow_ids(self) -> List[int]:
        """The flows in the series, by id."""
        out = ffi.new("itg_series_point *")
        ids: List[int] = []
        if len(self) == 0:
            return ids
        for i in range(lib.itg_series_flow_count(self._s)):
            check(lib.itg_series_get(self._s, i, 0, out))
            ids.append(int(out.flow_id))
        return ids

    def points(self, flow_id: Optional[int] = None) -> List[SeriesPoint]:
        """Every interval's values for one flow, or the total (None)."""
        index = lib.ITG_SERIES_TOTAL
        if flow_id is not None:
            try:
                index = self.flow_ids.index(flow_id)
            except ValueError:
                raise KeyError(flow_id) from None
        out = ffi.new("itg_series_point *")
        points = []
        for i in range(len(self)):
            check(lib.itg_series_get(self._s, index, i, out))
            points.append(SeriesPoint(flow_id=out.flow_id, start_ns=out.start_ns,
                                      packets=out.packets, bytes=out.bytes, lost=out.lost,
                                      delay_avg_ns=out.delay_avg_ns,
                                      jitter_avg_ns=out.jitter_avg_ns,
                                      bitrate_kbps=out.bitrate_kbps))
        return points

    def csv(self, field: str = "combined") -> str:
        """The series as itg-dec --csv writes it with -d ("delay"), -j
        ("jitter"), -b ("bitrate"), -p ("loss") or -c ("combined"); delays
        and jitter in seconds there, as in itg-dec's files."""
        f = value_of(FIELDS, field, "field")
        needed = ffi.new("size_t *")
        rc = lib.itg_series_csv(self._s, f, 0, len(self), ffi.NULL, 0, needed)
        if rc < 0 and rc != code_of("ERANGE"):
            check(rc)
        buf = ffi.new("char[]", needed[0])
        check(lib.itg_series_csv(self._s, f, 0, len(self), buf, needed[0], needed))
        return str(ffi.string(buf).decode("utf-8"))


def series(paths: Union[PathLike, Iterable[PathLike]], interval_ns: int,
           meter: str = "owd") -> Series:
    """Reads log files, in order, into an interval series (as itg-dec -d T
    reads them, T = interval_ns). A file that cannot be opened or is not a
    libitg log raises; damage further on ends a file's records there (a
    damaged block of a version 2 file is skipped), as itg.decode does."""
    names = ([os.fspath(paths)] if isinstance(paths, (str, os.PathLike))
             else [os.fspath(p) for p in paths])
    if not names:
        raise InvalidArgument(code_of("EINVAL"), "series: no log file given")
    s = Series(interval_ns, meter)
    keep = [ffi.new("char[]", os.fsencode(n)) for n in names]
    st = ffi.new("itg_decode_status[]", len(names))
    rc = lib.itg_decode_files(ffi.new("const char *[]", keep), len(names), ffi.NULL,
                              s._s, st)
    for name, status in zip(names, st):
        if not status.opened:
            raise error_for(status.error, f"{name}: {message_of(status.error)}")
    if rc < 0 and not any(status.error == rc for status in st):
        check(rc)
    return s

