"""The records of a log file, read without libitg, for the integration
tests that count what a log holds (the format: include/itg/log.h)."""
import struct


def offsets(data):
    """Where each record lies: in blocks after a 68-byte header (only the
    blocks written whole), or (version 1) bare after a 64-byte one."""
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
    """Each record of the file at path as (flow, size, flags, seq)."""
    data = open(path, "rb").read()
    for off in offsets(data):
        yield struct.unpack_from("<IHHQ", data, off)
