"""Decoding logs: the same numbers as itg-dec, damaged files reported up to
the damage, and the records as numpy arrays."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest
from conftest import bin_dir, free_port

import itg
from itg.log import HEADER_LEN, RECORD_LEN, REC_FLOW_END, REC_RX

np = pytest.importorskip("numpy")

PACKETS = 250


@pytest.fixture(scope="module")
def recv_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A receiver log of two flows: 250 packets of 120 B, then 80 of 64 B."""
    path = tmp_path_factory.mktemp("logs") / "recv.itglog"
    with itg.Receiver(log=path, port=0) as rx:
        itg.send("127.0.0.1", f"-C 2000 -c 120 -z {PACKETS} -t 0", sig_port=rx.port,
                 dst_port=free_port())
        itg.send("127.0.0.1", "-C 2000 -c 64 -z 80 -t 0", sig_port=rx.port,
                 dst_port=free_port(), flow_id=7)
    return path


def _itg_dec_json(*paths: Path) -> Dict[str, Any]:
    prog = bin_dir() / "itg-dec"
    assert prog.exists(), f"{prog} not built (set ITG_BIN to the build's bin directory)"
    out = subprocess.run([str(prog), "--json", *map(str, paths)], capture_output=True,
                         text=True, timeout=30)
    assert out.returncode in (0, 3), out.stderr
    report: Dict[str, Any] = json.loads(out.stdout)
    return report


def test_report_equals_itg_dec(recv_log: Path) -> None:
    report = itg.decode(recv_log)
    assert report.complete
    assert report.as_dict() == _itg_dec_json(recv_log)
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


def test_truncated_log_is_reported_up_to_the_damage(recv_log: Path, tmp_path: Path) -> None:
    keep = 100
    cut = tmp_path / "cut.itglog"
    shutil.copy(recv_log, cut)
    with open(cut, "r+b") as f:
        f.truncate(HEADER_LEN + keep * RECORD_LEN + RECORD_LEN // 2)
    first = itg.read_log(recv_log)[:keep]
    report = itg.decode(cut)
    assert not report.complete
    status = report.files[0]
    assert status.error == itg.errors.code_of("ETRUNC")
    assert status.offset == HEADER_LEN + keep * RECORD_LEN
    assert status.records == keep
    assert report.total.packets == int(np.count_nonzero(first["flags"] & REC_RX)) == keep
    assert report.as_dict() == _itg_dec_json(cut)
    with pytest.raises(itg.Truncated) as info:
        itg.decode(cut, strict=True)
    assert str(HEADER_LEN + keep * RECORD_LEN) in str(info.value)
    # The array readers stop at the same place.
    assert len(itg.read_log(cut)) == keep
    with pytest.raises(itg.Truncated):
        itg.read_log(cut, strict=True)
    reader = itg.LogReader(cut)
    assert len(list(reader)) == keep
    assert isinstance(reader.error, itg.Truncated) and reader.offset == status.offset
    reader.close()


def test_corrupt_record_and_bad_header(recv_log: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.itglog"
    data = bytearray(recv_log.read_bytes())
    data[HEADER_LEN + 10 * RECORD_LEN + 6] = 0x80  # an unknown flag bit
    bad.write_bytes(bytes(data))
    report = itg.decode(bad)
    assert report.files[0].error == itg.errors.code_of("EBADMSG")
    assert report.files[0].records == 10 and report.total.packets == 10
    short = tmp_path / "short.itglog"
    short.write_bytes(bytes(data[:HEADER_LEN - 1]))
    with pytest.raises(itg.Truncated):
        itg.decode(short)
    text = tmp_path / "text.itglog"
    text.write_bytes(b"not a log at all" * 8)
    with pytest.raises(itg.Malformed):
        itg.decode(text)


def test_several_files_add_up(recv_log: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.itglog"
    cut.write_bytes(recv_log.read_bytes()[: HEADER_LEN + 30 * RECORD_LEN])
    report = itg.decode([recv_log, cut])
    # The cut file ends between records but before its flow's end record.
    assert [f.complete for f in report.files] == [True, False]
    assert report.files[1].error == itg.errors.code_of("ETRUNC")
    assert report.total.packets == PACKETS + 80 + 30
    assert report.flow(1).duplicates == 30
    assert report.as_dict() == _itg_dec_json(recv_log, cut)


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
