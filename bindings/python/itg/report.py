"""QoS reports: itg.decode() reads log files as
itg-dec does and gives the same numbers; Stats does the same live, fed
with records as they come (e.g. from a receiver's callback)."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Union

from ._itg import ffi, lib
from ._util import PathLike, name_of
from .errors import Error, InvalidArgument, check, code_of, error_for, message_of
from .log import (Damage, LogHeader, LogRecord, RecordBatch, _damage_from_c, _header_from_c,
                  packet_records, read_log, record_dtype)

if TYPE_CHECKING:
    import numpy

def _meters() -> Dict[str, int]:
    """The meters in report order, by name (the library's table)."""
    table: Dict[str, int] = {}
    while True:
        m = lib.itg_stats_meter_at(len(table))
        if m == lib.ITG_STATS_MAIN:
            return table
        table[ffi.string(lib.itg_stats_meter_name(m)).decode()] = m


METERS = _meters()


@dataclass(frozen=True)
class FlowStats:
    """One flow's results for one meter, or a total (flow_id 0).

    meter is "owd", "rtt" or "sent". The naming rule of the binding: a time
    is in nanoseconds and its name ends in _ns, here and in as_dict(); only
    the JSON text itg-dec prints (Report.json_text) has seconds, under keys
    ending in _s. The definitions are itg-dec's.
    """

    flow_id: int
    meter: str
    flows: int
    packets: int
    bytes: int
    expected: int
    lost: int
    duplicates: int
    reordered: int
    loss_bursts: int
    log_gaps: int
    first_ns: int
    last_ns: int
    duration_ns: int
    delay_min_ns: int
    delay_max_ns: int
    delay_p50_ns: int
    delay_p99_ns: int
    delay_avg_ns: float
    delay_std_ns: float
    jitter_avg_ns: float
    jitter_rfc3550_ns: float
    loss_pct: float
    loss_burst_avg: float
    bitrate_kbps: float
    rate_pps: float


    def as_dict(self) -> Dict[str, Any]:
        """The fields by name, as the attributes (times in ns)."""
        return asdict(self)


def _stats_from_c(c: Any) -> FlowStats:
    values = {f.name: getattr(c, f.name) for f in fields(FlowStats) if f.name != "meter"}
    return FlowStats(meter=name_of(METERS, c.meter), **values)


@dataclass(frozen=True)
class FileStatus:
    """How far one log file was read: error is 0 when it was read to its
    clean end, else the code that stopped it at byte `offset` (Malformed
    when it was read to its end past damaged blocks). damaged is how many
    damaged stretches of a version 2 file were skipped, skipped the records
    lost in them, first_damage the first of them (None if none)."""

    path: str
    error: int
    offset: int
    records: int
    header: LogHeader
    damaged: int = 0
    skipped: int = 0
    first_damage: Optional[Damage] = None

    @property
    def complete(self) -> bool:
        return self.error == 0

    def exception(self) -> Optional[Error]:
        if self.error == 0:
            return None
        if self.first_damage is not None and self.error == code_of("EBADMSG"):
            d = self.first_damage
            return error_for(self.error, f"{self.path}: {self.damaged} damaged stretch(es), "
                                         f"the first block {d.block} at byte {d.offset}: "
                                         f"{self.skipped} records skipped")
        return error_for(self.error, f"{self.path}: {message_of(self.error)} at byte "
                                     f"{self.offset}")


@dataclass(frozen=True)
class Report:
    """A QoS report: per-flow entries, the total of the main meter, and a
    total per meter that has entries. For itg.decode(), `files` says how
    far each file was read (a damaged file is reported up to the damage)."""

    flows: List[FlowStats]
    total: FlowStats
    totals: Dict[str, FlowStats]
    main_meter: str
    json_text: str
    files: List[FileStatus]

    @property
    def complete(self) -> bool:
        """Whether every file was read to its clean end."""
        return all(f.complete for f in self.files)

    def flow(self, flow_id: int, meter: Optional[str] = None) -> FlowStats:
        """The entry of one flow: of the meter named, else its first (OWD
        before RTT before SENT). Raises KeyError if there is none."""
        for f in self.flows:
            if f.flow_id == flow_id and (meter is None or f.meter == meter):
                return f
        raise KeyError(flow_id)

    def as_dict(self) -> Dict[str, Any]:
        """The report as plain values named as the attributes (times in ns):
        {"main_meter", "flows": [FlowStats.as_dict()...], "total", "totals"}.
        json_text is the same report as itg-dec --json prints it."""
        return {"main_meter": self.main_meter, "flows": [f.as_dict() for f in self.flows],
                "total": self.total.as_dict(),
                "totals": {m: t.as_dict() for m, t in self.totals.items()}}

    def packets(self, flow_id: Optional[int] = None) -> "numpy.ndarray[Any, Any]":
        """The packet records of the decoded files (those of one flow if
        given) as a numpy structured array, up to any damage, in file order.
        Delay of each: arr["rx_ns"] - arr["tx_ns"]."""
        import numpy as np

        parts = [read_log(f.path) for f in self.files]
        arr = np.concatenate(parts) if parts else np.zeros(0, dtype=record_dtype())
        return packet_records(arr, flow_id)


Records = Union[RecordBatch, Sequence[LogRecord], "numpy.ndarray[Any, Any]"]


def _batch_of(records: Records) -> RecordBatch:
    if isinstance(records, RecordBatch):
        return records
    if hasattr(records, "dtype"):
        import numpy as np

        return RecordBatch(np.ascontiguousarray(records, dtype=record_dtype()).tobytes())
    return RecordBatch.from_records(list(records))


class Stats:
    """Streaming statistics: add records in logged order, take a report at
    any time (the same object the decoder uses on files)."""

    def __init__(self) -> None:
        out = ffi.new("itg_stats **")
        check(lib.itg_stats_new(out))
        self._s: Any = ffi.gc(out[0], lib.itg_stats_free)

    def add(self, records: Records) -> None:
        """Adds records: a RecordBatch, LogRecord tuples or a numpy array of
        record_dtype(). Raises itg.InvalidArgument for a record with unknown
        or missing kind flags (then none of them is added)."""
        batch = _batch_of(records)
        if len(batch):
            check(lib.itg_stats_add(self._s, batch.c_array(), len(batch)))

    def report(self) -> Report:
        return _report(self._s, [])

    def json(self) -> str:
        """The report as JSON text (itg_stats_json: the "end" of itg-dec --json)."""
        return _json(self._s)


def _json(s: Any) -> str:
    needed = ffi.new("size_t *")
    rc = lib.itg_stats_json(s, ffi.NULL, 0, needed)
    if rc < 0 and rc != code_of("ERANGE"):
        check(rc)
    buf = ffi.new("char[]", needed[0])
    check(lib.itg_stats_json(s, buf, needed[0], needed))
    return str(ffi.string(buf).decode("utf-8"))


def _report(s: Any, files: List[FileStatus]) -> Report:
    out = ffi.new("itg_flow_stats *")
    flows = []
    for i in range(lib.itg_stats_flow_count(s)):
        check(lib.itg_stats_flow(s, i, out))
        flows.append(_stats_from_c(out))
    check(lib.itg_stats_total(s, lib.ITG_STATS_MAIN, out))
    total = _stats_from_c(out)
    totals = {}
    for name, meter in METERS.items():
        if any(f.meter == name for f in flows):
            check(lib.itg_stats_total(s, meter, out))
            totals[name] = _stats_from_c(out)
    return Report(flows=flows, total=total, totals=totals,
                  main_meter=name_of(METERS, lib.itg_stats_main_meter(s)),
                  json_text=_json(s), files=files)


def decode(paths: Union[PathLike, Iterable[PathLike]], strict: bool = False) -> Report:
    """Reads one log file or several, in order, into a report.

    A file that cannot be opened or is not a libitg log raises (itg.NotFound,
    itg.Malformed, ...). A file damaged further on is reported up to the
    damage (cut short, a corrupt record of a version 1 file) or past it (a
    damaged block of a version 2 file is skipped), and its FileStatus in
    report.files says where reading stopped and what was skipped; with
    strict=True the damage raises instead.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        names = [os.fspath(paths)]
    else:
        names = [os.fspath(p) for p in paths]
    if not names:
        raise InvalidArgument(code_of("EINVAL"), "decode: no log file given")
    names = [n.decode() if isinstance(n, bytes) else n for n in names]
    keep = [ffi.new("char[]", os.fsencode(n)) for n in names]
    cpaths = ffi.new("const char *[]", keep)
    st = ffi.new("itg_decode_status[]", len(names))
    out = ffi.new("itg_stats **")
    check(lib.itg_stats_new(out))
    s = ffi.gc(out[0], lib.itg_stats_free)
    rc = lib.itg_decode_files(cpaths, len(names), s, ffi.NULL, st)
    files = []
    for name, status in zip(names, st):
        if not status.opened:
            raise error_for(status.error, f"{name}: {message_of(status.error)}")
        first = (_damage_from_c(status.first_damage) if status.damaged else None)
        files.append(FileStatus(path=name, error=status.error, offset=status.offset,
                                records=status.records, header=_header_from_c(status.hdr),
                                damaged=status.damaged, skipped=status.skipped,
                                first_damage=first))
    if rc < 0 and not any(f.error == rc for f in files):
        check(rc)  # decoding itself failed (ENOMEM, ...), not a file
    if strict:
        for f in files:
            exc = f.exception()
            if exc is not None:
                raise exc
    return _report(s, files)
