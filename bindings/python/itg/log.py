"""Per-packet log records and log files.

Records and file headers are encoded and decoded by the library itself, and
files are read by its reader, so Python sees a log exactly as itg-dec does.
With numpy installed, read_log() and RecordBatch.array() give the records
as a structured array with the fields of LogRecord.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, List, NamedTuple, Optional, Sequence, Union, overload

from ._itg import ffi, lib
from ._util import PathLike, cstr
from .errors import Error, Truncated, check, code_of, error_for, message_of

if TYPE_CHECKING:
    import numpy

RECORD_LEN: int = lib.ITG_LOG_RECORD_LEN
HEADER_LEN: int = lib.ITG_LOG_HEADER_LEN
VERSION: int = lib.ITG_LOG_VERSION

REC_TX: int = lib.ITG_REC_TX
REC_RX: int = lib.ITG_REC_RX
REC_RTT: int = lib.ITG_REC_RTT
REC_KERNEL_TS: int = lib.ITG_REC_KERNEL_TS
REC_FLOW_END: int = lib.ITG_REC_FLOW_END
REC_GAP: int = lib.ITG_REC_GAP
REC_TCP: int = lib.ITG_REC_TCP
REC_ALL_FLAGS: int = lib.ITG_REC_ALL_FLAGS
# The kind bits of a packet's record (a FLOW_END record may carry one too:
# LogRecord.is_packet and packet_records() tell them apart).
REC_PACKET: int = REC_TX | REC_RX | REC_RTT

ROLE_SENDER: int = lib.ITG_LOG_ROLE_SENDER
ROLE_RECEIVER: int = lib.ITG_LOG_ROLE_RECEIVER
CLOCK_REALTIME: int = lib.ITG_LOG_CLOCK_REALTIME
CLOCK_KERNEL: int = lib.ITG_LOG_CLOCK_KERNEL

# Records read from a file per call into the library.
_CHUNK = 65536


class LogRecord(NamedTuple):
    """One log record; times are ns since the Unix epoch (UTC)."""

    flow_id: int
    size: int
    flags: int
    seq: int
    tx_ns: int
    rx_ns: int

    @property
    def is_packet(self) -> bool:
        return bool(self.flags & REC_PACKET) and not self.flags & (REC_FLOW_END | REC_GAP)


@dataclass(frozen=True)
class LogHeader:
    """A log file's header."""

    role: int = ROLE_RECEIVER
    clock: int = CLOCK_REALTIME
    created_ns: int = 0
    host: str = ""
    version: int = VERSION


@dataclass(frozen=True)
class Damage:
    """A stretch of a version 2 log that a reader skipped as damaged: its
    first block's number (0 is the block after the header), the byte offset
    where it starts, and the records lost with it, reckoned from its length
    (for one damaged block: that block's count)."""

    block: int
    offset: int
    records: int


def _damage_from_c(d: Any) -> Damage:
    return Damage(block=d.block, offset=d.offset, records=d.records)


def _record_from_c(rec: Any) -> LogRecord:
    return LogRecord(rec.flow_id, rec.size, rec.flags, rec.seq, rec.tx_ns, rec.rx_ns)


def _record_to_c(rec: LogRecord, out: Any) -> None:
    out.flow_id, out.size, out.flags, out.seq, out.tx_ns, out.rx_ns = rec


def _header_from_c(h: Any) -> LogHeader:
    return LogHeader(role=h.role, clock=h.clock, created_ns=h.created_ns,
                     host=cstr(h.host), version=h.version)


def _buffer_of(data: Union[bytes, bytearray, memoryview], need: int) -> Any:
    raw = bytes(data)
    if len(raw) < need:
        raise Truncated(code_of("ETRUNC"),
                        f"{len(raw)} bytes where {need} are needed")
    buf = ffi.new("uint8_t[]", len(raw))
    ffi.memmove(buf, raw, len(raw))
    return buf


def encode_record(rec: LogRecord) -> bytes:
    """The 32 bytes of a record as written to a log file."""
    c = ffi.new("itg_logrec *")
    _record_to_c(rec, c)
    buf = ffi.new("uint8_t[]", RECORD_LEN)
    lib.itg_logrec_encode(c, buf)
    return bytes(ffi.buffer(buf))


def decode_record(data: Union[bytes, bytearray, memoryview]) -> LogRecord:
    """Decodes the 32 bytes at the start of data.

    Raises itg.Truncated if data is shorter than a record, itg.Malformed for
    a record that is not self-consistent.
    """
    c = ffi.new("itg_logrec *")
    check(lib.itg_logrec_decode(_buffer_of(data, RECORD_LEN), c))
    return _record_from_c(c)


def encode_header(hdr: LogHeader) -> bytes:
    """The HEADER_LEN bytes of a log file header (the version written is
    always VERSION; the host name is cut to 31 bytes; the checksum last)."""
    c = ffi.new("itg_log_hdr *")
    c.version = hdr.version
    c.role = hdr.role
    c.clock = hdr.clock
    c.created_ns = hdr.created_ns
    # The field takes as many bytes as it holds; the encoder keeps 31.
    c.host = os.fsencode(hdr.host)[: ffi.sizeof(c.host)]
    buf = ffi.new("uint8_t[]", HEADER_LEN)
    lib.itg_log_hdr_encode(c, buf)
    return bytes(ffi.buffer(buf))


def decode_header(data: Union[bytes, bytearray, memoryview]) -> LogHeader:
    """Decodes a file header, version VERSION or 1, from data (HEADER_LEN
    bytes or more; 64 for version 1).

    Raises itg.Truncated, itg.Malformed or itg.UnsupportedVersion.
    """
    raw = bytes(data)
    buf = ffi.new("uint8_t[]", len(raw) + 1)
    ffi.memmove(buf, raw, len(raw))
    c = ffi.new("itg_log_hdr *")
    check(lib.itg_log_hdr_decode(buf, len(raw), c))
    return _header_from_c(c)


def record_dtype() -> "numpy.dtype[Any]":
    """The numpy dtype of records: LogRecord's fields, as the C struct lays them out."""
    import numpy as np

    return np.dtype({
        "names": list(LogRecord._fields),
        "formats": ["u4", "u2", "u2", "u8", "i8", "i8"],
        "offsets": [ffi.offsetof("itg_logrec", f) for f in LogRecord._fields],
        "itemsize": ffi.sizeof("itg_logrec"),
    })


def packet_records(arr: "numpy.ndarray[Any, Any]",
                   flow_id: Optional[int] = None) -> "numpy.ndarray[Any, Any]":
    """The records of an array that stand for packets (LogRecord.is_packet),
    of one flow if given."""
    flags = arr["flags"]
    keep = ((flags & REC_PACKET) != 0) & ((flags & (REC_FLOW_END | REC_GAP)) == 0)
    if flow_id is not None:
        keep &= arr["flow_id"] == flow_id
    packets: "numpy.ndarray[Any, Any]" = arr[keep]
    return packets


class RecordBatch(Sequence[LogRecord]):
    """A batch of records, as the receiver hands them to a callback.

    It holds a copy of the records (the C buffer is reused once the
    callback returns): index it or iterate for LogRecord tuples, or take
    array() for a numpy structured array.
    """

    __slots__ = ("_raw", "_recs")

    def __init__(self, raw: bytes) -> None:
        if len(raw) % ffi.sizeof("itg_logrec"):
            raise ValueError("not a whole number of records")
        self._raw = raw
        self._recs: Any = ffi.from_buffer("itg_logrec[]", raw) if raw else None

    @classmethod
    def from_records(cls, records: Sequence[LogRecord]) -> "RecordBatch":
        arr = ffi.new("itg_logrec[]", max(len(records), 1))
        for i, rec in enumerate(records):
            _record_to_c(LogRecord(*rec), arr[i])
        return cls(bytes(ffi.buffer(arr, len(records) * ffi.sizeof("itg_logrec"))))

    def __len__(self) -> int:
        return len(self._raw) // int(ffi.sizeof("itg_logrec"))

    @overload
    def __getitem__(self, i: int) -> LogRecord: ...
    @overload
    def __getitem__(self, i: slice) -> "List[LogRecord]": ...

    def __getitem__(self, i: Union[int, slice]) -> Union[LogRecord, List[LogRecord]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("record index out of range")
        return _record_from_c(self._recs[i])

    def __iter__(self) -> Iterator[LogRecord]:
        for i in range(len(self)):
            yield _record_from_c(self._recs[i])

    def __repr__(self) -> str:
        return f"<RecordBatch of {len(self)} records>"

    @property
    def raw(self) -> bytes:
        """The records as the C struct array's bytes (native byte order)."""
        return self._raw

    def c_array(self) -> Any:
        """The records as a cffi itg_logrec array (valid while the batch lives)."""
        return self._recs

    def array(self) -> "numpy.ndarray[Any, Any]":
        """The records as a numpy structured array (a copy)."""
        import numpy as np

        return np.frombuffer(self._raw, dtype=record_dtype()).copy()


class LogReader:
    """Reads a log file record by record (a context manager and an iterator).

    A damaged block of a version 2 file is skipped: reading goes on after
    it, and `damaged` lists what was skipped (Damage). Iteration stops at
    the clean end of the file, where it is cut short, or at the first
    damaged record of a version 1 file; then `error` holds what stopped it
    (None at a clean end) and `offset` where the damage starts. A file
    still being written can be read again from there once it has grown.
    """

    def __init__(self, path: PathLike) -> None:
        self._r: Any = None
        self.path = os.fspath(path)
        out = ffi.new("itg_logreader **")
        rc = lib.itg_logreader_open(os.fsencode(self.path), out)
        if rc < 0:
            raise error_for(rc, f"{self.path}: {message_of(rc)}")
        self._r = out[0]
        h = ffi.new("itg_log_hdr *")
        lib.itg_logreader_header(self._r, h)
        self.header = _header_from_c(h)
        self.error: Optional[Error] = None
        self.damaged: List[Damage] = []

    def _reader(self) -> Any:
        if self._r is None:
            raise ValueError("log reader is closed")
        return self._r

    def close(self) -> None:
        if self._r is not None:
            lib.itg_logreader_close(self._r)
            self._r = None

    def __enter__(self) -> "LogReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    @property
    def offset(self) -> int:
        """Byte offset of the next record (after damage: of the damaged one)."""
        return int(lib.itg_logreader_offset(self._reader()))

    def read(self, max_records: int = _CHUNK) -> RecordBatch:
        """Reads up to max_records records, past damaged blocks (noted in
        `damaged`); fewer (maybe none) at the end or at damage that stops
        the reader, which `error` then tells apart."""
        arr = ffi.new("itg_logrec[]", max(max_records, 1))
        got = ffi.new("size_t *")
        d = ffi.new("itg_log_damage *")
        n = 0
        self.error = None
        while True:
            rc = lib.itgpy_read_records(self._reader(), arr + n, max_records - n, got)
            n += got[0]
            if rc == code_of("EBADMSG") and lib.itg_logreader_damage(self._r, d) > len(self.damaged):
                self.damaged.append(_damage_from_c(d))
                continue
            break
        if rc < 0:
            self.error = error_for(rc, f"{self.path}: {message_of(rc)} at byte {self.offset}")
        return RecordBatch(bytes(ffi.buffer(arr, n * ffi.sizeof("itg_logrec"))))

    def __iter__(self) -> Iterator[LogRecord]:
        while True:
            batch = self.read()
            yield from batch
            if len(batch) == 0 or self.error is not None:
                return


def read_log(path: PathLike, strict: bool = False) -> "numpy.ndarray[Any, Any]":
    """Every record of a log file as a numpy structured array.

    Damaged blocks of a version 2 file are skipped; reading stops where the
    file is cut short or at a damaged record of a version 1 file. With
    strict=True any damage raises (itg.Truncated, itg.Malformed, ...)
    instead of returning the records around it.
    """
    import numpy as np

    parts = []
    with LogReader(path) as reader:
        while True:
            batch = reader.read()
            if len(batch):
                parts.append(np.frombuffer(batch.raw, dtype=record_dtype()))
            if len(batch) == 0 or reader.error is not None:
                break
        if strict and reader.error is not None:
            raise reader.error
        if strict and reader.damaged:
            d = reader.damaged[0]
            raise error_for(code_of("EBADMSG"),
                            f"{reader.path}: block {d.block} at byte {d.offset} is damaged: "
                            f"{d.records} records lost")
    if not parts:
        return np.zeros(0, dtype=record_dtype())
    return np.concatenate(parts)
