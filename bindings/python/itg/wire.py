"""The packet header format, through the C codec.

Profiles are named "native" (libitg's 36-byte header; the 28-byte header
of version 1 still decodes) and "ditg" (the
payload D-ITG 2.8.1 sends with "-p 0"). Encoding and decoding run in the
library, so Python reads and writes exactly the bytes the sender and the
receiver do.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple, Union

from ._itg import ffi, lib
from ._util import value_of
from .errors import check

NATIVE = "native"
DITG = "ditg"
MAGIC: int = lib.ITG_WIRE_MAGIC
VERSION: int = lib.ITG_WIRE_VERSION
MAX_PACKET: int = lib.ITG_WIRE_MAX_PACKET
ECHO_REQUEST: int = lib.ITG_PKT_ECHO_REQUEST
ECHO_REPLY: int = lib.ITG_PKT_ECHO_REPLY

PROFILES = {NATIVE: lib.ITG_WIRE_NATIVE, DITG: lib.ITG_WIRE_DITG}

Profile = Union[str, int]
Buffer = Union[bytes, bytearray, memoryview]


@dataclass(frozen=True)
class PacketHeader:
    """The fields of a packet header.

    version is what decode found (0 for DITG); encode always writes the
    current version. length is the whole packet's length (DITG: only over
    TCP). tx_ns from a DITG decode is the time of day in ns. token is the
    flow's token (NATIVE version 2; 0 from a version 1 or DITG decode).
    """

    flow_id: int = 0
    seq: int = 0
    tx_ns: int = 0
    length: int = 0
    flags: int = 0
    version: int = VERSION
    token: int = 0


def header_len(profile: Profile = NATIVE, tcp: bool = False) -> int:
    """The header length of a profile (0 for an unknown profile value)."""
    return int(lib.itg_wire_hdr_len(value_of(PROFILES, profile, "wire"), int(bool(tcp))))


def encode(header: PacketHeader, profile: Profile = NATIVE, tcp: bool = False,
           buflen: int | None = None) -> bytes:
    """Encodes a header; returns its bytes (header_len of them).

    buflen is the size of the buffer handed to the encoder (default: the
    header length), to check how a short buffer is refused. Raises
    itg.Truncated when buflen is smaller than the header, itg.InvalidArgument
    for an unknown profile or a length field out of range.
    """
    p = value_of(PROFILES, profile, "wire")
    if buflen is None:
        buflen = max(int(lib.itg_wire_hdr_len(p, int(bool(tcp)))), 1)
    if buflen < 0:
        raise ValueError("buflen must not be negative")
    h = ffi.new("itg_pkt_hdr *")
    h.version = header.version
    h.flags = header.flags
    h.flow_id = header.flow_id
    h.seq = header.seq
    h.tx_ns = header.tx_ns
    h.length = header.length
    h.token = header.token
    # One spare byte so that a zero-length buffer is still a valid pointer.
    buf = ffi.new("uint8_t[]", buflen + 1)
    n = check(lib.itg_wire_encode(p, int(bool(tcp)), h, buf, buflen))
    return bytes(ffi.buffer(buf, n))


def decode(data: Buffer, profile: Profile = NATIVE, tcp: bool = False) -> PacketHeader:
    """Decodes the header at the start of data (over UDP: the whole datagram).

    Raises itg.Truncated, itg.Malformed, itg.UnsupportedVersion or
    itg.InvalidArgument as the C decoder reports them.
    """
    return decode_prefix(data, profile, tcp)[0]


def decode_prefix(data: Buffer, profile: Profile = NATIVE,
                  tcp: bool = False) -> Tuple[PacketHeader, int]:
    """Like decode, also giving the header's length: where the payload
    starts (over TCP, where the next read of the stream goes on)."""
    p = value_of(PROFILES, profile, "wire")
    raw = bytes(data)
    buf = ffi.new("uint8_t[]", len(raw) + 1)
    ffi.memmove(buf, raw, len(raw))
    h = ffi.new("itg_pkt_hdr *")
    n = check(lib.itg_wire_decode(p, int(bool(tcp)), buf, len(raw), h))
    return PacketHeader(flow_id=h.flow_id, seq=h.seq, tx_ns=h.tx_ns,
                        length=h.length, flags=h.flags, version=h.version,
                        token=h.token), n


def ditg_unwrap(tod_ns: int, ref_ns: int) -> int:
    """Places a D-ITG time of day (ns) on the day nearest to ref_ns."""
    return int(lib.itg_wire_ditg_unwrap(tod_ns, ref_ns))
