"""The shared wire and log vectors (tests/vectors/), byte for byte, through
the binding's itg.wire and itg.log."""
from __future__ import annotations

from typing import List, Tuple

import pytest
from conftest import Vector, read_vectors, vec_bytes, vec_int

import itg
from itg import log, wire


def _result_class(v: Vector) -> "type[itg.Error] | None":
    name = v.get("result", "OK")
    return None if name == "OK" else itg.errors.CLASSES[itg.errors.code_of(name)]


def _wire_vectors() -> List[Tuple[str, str, Vector]]:
    out = []
    for fname, profile in (("wire_native.txt", wire.NATIVE), ("wire_ditg.txt", wire.DITG)):
        out += [(profile, name, v) for name, v in read_vectors(fname)]
    return out


def _header_of(v: Vector, profile: str) -> wire.PacketHeader:
    # DITG vectors have no token: it decodes as 0.
    token = vec_int(v, "token") if profile == wire.NATIVE else 0
    return wire.PacketHeader(version=vec_int(v, "version"), flags=vec_int(v, "flags"),
                             flow_id=vec_int(v, "flow_id"), seq=vec_int(v, "seq"),
                             tx_ns=vec_int(v, "tx_ns"), length=vec_int(v, "length"),
                             token=token)


def _assert_fields(got: wire.PacketHeader, v: Vector, profile: str) -> None:
    assert got == _header_of(v, profile)


@pytest.mark.parametrize("profile,name,v", _wire_vectors(),
                         ids=[f"{p}:{n}" for p, n, _ in _wire_vectors()])
def test_wire_vector(profile: str, name: str, v: Vector) -> None:
    test = v["test"]
    if test == "unwrap":
        assert wire.ditg_unwrap(vec_int(v, "tod_ns"), vec_int(v, "ref_ns")) == vec_int(v, "expect_ns")
        return
    tcp = bool(vec_int(v, "tcp"))
    data = vec_bytes(v)
    hlen = wire.header_len(profile, tcp)
    if test == "roundtrip":
        out = wire.encode(_header_of(v, profile), profile, tcp, buflen=len(data))
        assert out == data[:hlen]
        got, n = wire.decode_prefix(data, profile, tcp)
        assert n == hlen
        _assert_fields(got, v, profile)
        for k in range(len(data)):
            if k < hlen or (profile == wire.NATIVE and not tcp):
                with pytest.raises(itg.Truncated):
                    wire.decode(data[:k], profile, tcp)
    elif test == "decode":
        cls = _result_class(v)
        if cls is None:
            got, n = wire.decode_prefix(data, profile, tcp)
            # An older version's header is shorter than the one encode writes.
            assert n == (vec_int(v, "hdr_len") if "hdr_len" in v else hlen)
            _assert_fields(got, v, profile)
        else:
            with pytest.raises(cls) as info:
                wire.decode(data, profile, tcp)
            assert info.value.name == v["result"]
    elif test == "encode":
        buflen = vec_int(v, "buflen") if "buflen" in v else len(data)
        cls = _result_class(v)
        if cls is None:
            out = wire.encode(_header_of(v, profile), profile, tcp, buflen=buflen)
            assert len(out) == hlen
            assert data.startswith(out) and len(data) >= hlen
        else:
            with pytest.raises(cls) as info:
                wire.encode(_header_of(v, profile), profile, tcp, buflen=buflen)
            assert info.value.name == v["result"]
    else:
        pytest.fail(f"unknown test {test!r}")


def _record_of(v: Vector) -> log.LogRecord:
    return log.LogRecord(flow_id=vec_int(v, "flow_id"), size=vec_int(v, "size"),
                         flags=vec_int(v, "flags"), seq=vec_int(v, "seq"),
                         tx_ns=vec_int(v, "tx_ns"), rx_ns=vec_int(v, "rx_ns"))


def _log_header_of(v: Vector) -> log.LogHeader:
    return log.LogHeader(version=vec_int(v, "version"), role=vec_int(v, "role"),
                         clock=vec_int(v, "clock"), created_ns=vec_int(v, "created_ns"),
                         host=v["host"])


_LOG = read_vectors("logrec.txt")


@pytest.mark.parametrize("name,v", _LOG, ids=[n for n, _ in _LOG])
def test_log_vector(name: str, v: Vector) -> None:
    data = vec_bytes(v)
    what, test = v["what"], v["test"]
    assert what in ("record", "header")
    encode = log.encode_record if what == "record" else log.encode_header
    decode = log.decode_record if what == "record" else log.decode_header
    fields = _record_of if what == "record" else _log_header_of
    cls = _result_class(v)
    if test in ("roundtrip", "encode"):
        assert cls is None
        assert encode(fields(v)) == data  # type: ignore[arg-type]
    if test == "roundtrip" or (test == "decode" and cls is None):
        assert decode(data) == fields(v)
    elif test == "decode":
        with pytest.raises(cls) as info:  # type: ignore[arg-type]
            decode(data)
        assert info.value.name == v["result"]
    assert test in ("roundtrip", "decode", "encode")


def test_record_dtype_matches_the_file_layout() -> None:
    """A record of the vectors read as raw little-endian bytes with numpy's
    on-disk view gives the same fields as the binding's decoder."""
    np = pytest.importorskip("numpy")
    name, v = next((n, v) for n, v in _LOG if n == "rec_rx_kernel_extremes")
    disk = np.dtype([("flow_id", "<u4"), ("size", "<u2"), ("flags", "<u2"),
                     ("seq", "<u8"), ("tx_ns", "<i8"), ("rx_ns", "<i8")])
    row = np.frombuffer(vec_bytes(v), dtype=disk)[0]
    assert log.decode_record(vec_bytes(v)) == log.LogRecord(*(int(x) for x in row))
    assert log.record_dtype().itemsize == log.RECORD_LEN
    assert log.record_dtype().names == log.LogRecord._fields
