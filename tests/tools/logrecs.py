"""Reads the records of a libitg log file without the library, for tests
that check what a log holds against what was sent (include/itg/log.h has
the format): version 2 keeps records in checksummed blocks after a 68-byte
header, version 1 bare after a 64-byte one. Only whole blocks (or whole
records) are read: what a full disk cut short is not there.

    from logrecs import records
    for flow, size, flags, seq in records("recv.log"): ...
"""
import struct

RECORD = struct.Struct("<IHHQ")  # the first 16 bytes of a 32-byte record


def offsets(data):
    """Yields where each whole record of a log's bytes lies."""
    if struct.unpack_from("<H", data, 8)[0] == 1:
        yield from range(64, len(data) - 31, 32)
        return
    off = 68
    while off + 8 <= len(data):
        (n,) = struct.unpack_from("<I", data, off + 4)
        if off + 8 + 32 * n + 4 > len(data):
            break
        yield from range(off + 8, off + 8 + 32 * n, 32)
        off += 8 + 32 * n + 4


def records(path):
    """Yields (flow, size, flags, seq) for each whole record of a file."""
    with open(path, "rb") as f:
        data = f.read()
    for off in offsets(data):
        yield RECORD.unpack_from(data, off)
