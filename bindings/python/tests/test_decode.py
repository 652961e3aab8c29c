"""Decoding logs: the same numbers as itg-dec, damaged files reported up to
the damage or past it, older logs, and the records as numpy arrays."""
from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
from conftest import bin_dir

import itg
from itg.log import HEADER_LEN, RECORD_LEN, REC_FLOW_END, packet_records

np = pytest.importorskip("numpy")

PACKETS = 250


@pytest.fixture(scope="module")
def recv_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A receiver log of two flows: 250 packets of 120 B, then 80 of 64 B."""
    path = tmp_path_factory.mktemp("logs") / "recv.itglog"
    with itg.Receiver(log=path, port=0) as rx:
        itg.send("127.0.0.1", f"-C 2000 -c 120 -z {PACKETS} -t 0", sig_port=rx.port,
                 dst_port=0)
        itg.send("127.0.0.1", "-C 2000 -c 64 -z 80 -t 0", sig_port=rx.port,
                 dst_port=0, flow_id=7)
    return path


def _itg_dec_json(*paths: Path) -> Dict[str, Any]:
    prog = bin_dir() / "itg-dec"
    assert prog.exists(), f"{prog} not built (set ITG_BIN to the build's bin directory)"
    out = subprocess.run([str(prog), "--json", *map(str, paths)], capture_output=True,
                         text=True, timeout=30)
    assert out.returncode in (0, 3), out.stderr
    report: Dict[str, Any] = json.loads(out.stdout)["end"]
    return report


def test_report_equals_itg_dec(recv_log: Path) -> None:
    report = itg.decode(recv_log)
    assert report.complete
    assert json.loads(report.json_text) == _itg_dec_json(recv_log)
    want = _itg_dec_json(recv_log)
    for entry, got in zip(want["flows"], report.flows):
        assert entry["flow"] == got.flow_id
        assert (entry["packets"], entry["lost"], entry["bytes"]) == (got.packets, got.lost, got.bytes)
        # The JSON gives seconds to the nanosecond.
        assert entry["delay_avg_s"] == pytest.approx(got.delay_avg_ns / 1e9, rel=0, abs=1e-9)
        assert entry["meter"] == got.meter
    assert [(f.flow_id, f.packets) for f in report.flows] == [(1, PACKETS), (7, 80)]
    assert report.total.packets == PACKETS + 80 and report.total.flows == 2
    assert report.totals["owd"] == report.total and report.main_meter == "owd"
    assert report.files[0].header.role == itg.log.ROLE_RECEIVER


def _blocks(data: bytes) -> List[Tuple[int, int]]:
    """The (offset, record count) of each block of a version 2 log, walked
    by the layout of include/itg/log.h."""
    out = []
    off = HEADER_LEN
    while off < len(data):
        assert data[off:off + 4] == b"ITGB"
        (n,) = struct.unpack_from("<I", data, off + 4)
        out.append((off, n))
        off += 8 + n * RECORD_LEN + 4
    assert off == len(data)
    return out


def test_truncated_log_is_reported_up_to_the_damage(recv_log: Path, tmp_path: Path) -> None:
    data = recv_log.read_bytes()
    blocks = _blocks(data)
    assert len(blocks) >= 2
    at, n = blocks[1]
    keep = blocks[0][1]
    cut = tmp_path / "cut.itglog"
    cut.write_bytes(data[:at + 8 + n * RECORD_LEN // 2])
    first = itg.read_log(recv_log)[:keep]
    report = itg.decode(cut)
    assert not report.complete
    status = report.files[0]
    assert status.error == itg.errors.code_of("ETRUNC")
    assert status.offset == at
    assert status.records == keep
    assert report.total.packets == len(packet_records(first))
    assert json.loads(report.json_text) == _itg_dec_json(cut)
    with pytest.raises(itg.Truncated) as info:
        itg.decode(cut, strict=True)
    assert str(at) in str(info.value)
    # The array readers stop at the same place.
    assert len(itg.read_log(cut)) == keep
    with pytest.raises(itg.Truncated):
        itg.read_log(cut, strict=True)
    reader = itg.LogReader(cut)
    assert len(list(reader)) == keep
    assert isinstance(reader.error, itg.Truncated) and reader.offset == status.offset
    reader.close()


def test_damaged_block_is_skipped(recv_log: Path, tmp_path: Path) -> None:
    data = bytearray(recv_log.read_bytes())
    blocks = _blocks(bytes(data))
    at, n = blocks[1]
    total = sum(c for _, c in blocks)
    data[at + 8 + RECORD_LEN + 3] ^= 0x01  # one bit of block 1's second record
    bad = tmp_path / "flipped.itglog"
    bad.write_bytes(bytes(data))
    report = itg.decode(bad)
    status = report.files[0]
    assert status.error == itg.errors.code_of("EBADMSG")
    assert (status.damaged, status.skipped) == (1, n)
    assert status.first_damage == itg.Damage(block=1, offset=at, records=n)
    assert status.records == total - n
    assert json.loads(report.json_text) == _itg_dec_json(bad)
    with pytest.raises(itg.Malformed) as info:
        itg.decode(bad, strict=True)
    assert f"block 1 at byte {at}" in str(info.value)
    whole = itg.read_log(recv_log)
    got = itg.read_log(bad)
    assert len(got) == total - n
    assert (got[:blocks[0][1]] == whole[:blocks[0][1]]).all()
    assert (got[blocks[0][1]:] == whole[blocks[0][1] + n:]).all()
    with pytest.raises(itg.Malformed):
        itg.read_log(bad, strict=True)
    with itg.LogReader(bad) as reader:
        assert len(list(reader)) == total - n
        assert reader.error is None
        assert reader.damaged == [itg.Damage(block=1, offset=at, records=n)]


def _as_version_1(data: bytes) -> bytes:
    """The same log in version 1: the header's first 64 bytes (version 1,
    header length 64), then the records without blocks."""
    head = bytearray(data[:64])
    struct.pack_into("<H", head, 8, 1)
    struct.pack_into("<H", head, 12, 64)
    recs = b"".join(data[at + 8:at + 8 + n * RECORD_LEN] for at, n in _blocks(data))
    return bytes(head) + recs


def test_version_1_logs(recv_log: Path, tmp_path: Path) -> None:
    old = tmp_path / "v1.itglog"
    data = _as_version_1(recv_log.read_bytes())
    old.write_bytes(data)
    report = itg.decode(old)
    assert report.complete and report.files[0].header.version == 1
    assert report.as_dict() == itg.decode(recv_log).as_dict()
    assert (itg.read_log(old) == itg.read_log(recv_log)).all()
    bad = tmp_path / "bad.itglog"
    broken = bytearray(data)
    broken[64 + 10 * RECORD_LEN + 6] = 0x80  # an unknown flag bit
    bad.write_bytes(bytes(broken))
    report = itg.decode(bad)
    assert report.files[0].error == itg.errors.code_of("EBADMSG")
    assert report.files[0].offset == 64 + 10 * RECORD_LEN
    assert report.files[0].records == 10 and report.total.packets == 10


def test_bad_headers(recv_log: Path, tmp_path: Path) -> None:
    data = bytearray(recv_log.read_bytes())
    short = tmp_path / "short.itglog"
    short.write_bytes(bytes(data[:HEADER_LEN - 1]))
    with pytest.raises(itg.Truncated):
        itg.decode(short)
    data[40] ^= 0x02  # a bit of the host name: the header's checksum fails
    flipped = tmp_path / "hflip.itglog"
    flipped.write_bytes(bytes(data))
    with pytest.raises(itg.Malformed):
        itg.decode(flipped)
    text = tmp_path / "text.itglog"
    text.write_bytes(b"not a log at all" * 8)
    with pytest.raises(itg.Malformed):
        itg.decode(text)


def test_several_files_add_up(recv_log: Path, tmp_path: Path) -> None:
    data = recv_log.read_bytes()
    at, n = _blocks(data)[0]
    cut = tmp_path / "cut.itglog"
    cut.write_bytes(data[:at + 8 + n * RECORD_LEN + 4])
    extra = packet_records(itg.read_log(cut))
    report = itg.decode([recv_log, cut])
    # The cut file ends between blocks, before its flows' end records,
    # which the other file given holds: neither was cut short. Alone, it
    # was.
    assert [f.complete for f in report.files] == [True, True]
    alone = itg.decode(cut)
    assert alone.files[0].error == itg.errors.code_of("ETRUNC")
    assert report.total.packets == PACKETS + 80 + len(extra)
    assert report.flow(1).duplicates == int(np.count_nonzero(extra["flow_id"] == 1))
    assert json.loads(report.json_text) == _itg_dec_json(recv_log, cut)


def test_packet_arrays(recv_log: Path) -> None:
    report = itg.decode(recv_log)
    pkts = report.packets(1)
    assert pkts.dtype == itg.record_dtype()
    assert len(pkts) == PACKETS
    assert sorted(pkts["seq"].tolist()) == list(range(1, PACKETS + 1))
    assert (pkts["size"] == 120).all() and (pkts["flow_id"] == 1).all()
    delays = pkts["rx_ns"] - pkts["tx_ns"]
    assert (delays > 0).all()
    assert delays.min() == report.flow(1).delay_min_ns
    assert delays.max() == report.flow(1).delay_max_ns
    assert float(delays.mean()) == pytest.approx(report.flow(1).delay_avg_ns, rel=1e-9)
    assert len(report.packets()) == PACKETS + 80
    allrecs = itg.read_log(recv_log)
    assert np.count_nonzero(allrecs["flags"] & REC_FLOW_END) == 2
    # The same records one by one through the reader.
    assert [tuple(int(x) for x in row) for row in allrecs] == list(itg.LogReader(recv_log))
