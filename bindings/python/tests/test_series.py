"""Interval series (itg.series, itg.Series) against itg-dec's own series
of the same log, and the log server (itg.LogServer) collecting a sender's
log shipped to it."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Callable

import pytest
from conftest import bin_dir

import itg

INTERVAL_NS = 100_000_000  # itg-dec -d 100


@pytest.fixture(scope="module")
def two_flows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("series") / "r.itglog"
    with itg.Receiver(log=path, port=0) as rx:
        itg.send(rx, "-C 1000 -c 100 -z 300 -t 0")
        itg.send(rx, "-C 500 -c 60 -z 100 -t 0", flow_id=4)
    return path


@pytest.mark.parametrize("option,field", [("-d", "delay"), ("-j", "jitter"),
                                          ("-b", "bitrate"), ("-p", "loss"),
                                          ("-c", "combined")])
def test_series_are_itg_decs(two_flows: Path, option: str, field: str) -> None:
    out = subprocess.run([str(bin_dir() / "itg-dec"), str(two_flows), option, "100",
                          "--csv", "-"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert itg.series(two_flows, INTERVAL_NS).csv(field) == out.stdout


def test_points_add_up_to_the_report(two_flows: Path) -> None:
    s = itg.series(two_flows, INTERVAL_NS)
    report = itg.decode(two_flows)
    assert s.flow_ids == [1, 4]
    total = s.points()
    assert len(total) == len(s) >= 4
    assert [p.start_ns for p in total] == [i * INTERVAL_NS for i in range(len(s))]
    assert sum(p.packets for p in total) == report.total.packets == 400
    assert sum(p.bytes for p in total) == report.total.bytes
    for flow_id in (1, 4):
        points = s.points(flow_id)
        assert {p.flow_id for p in points} == {flow_id}
        assert sum(p.packets for p in points) == report.flow(flow_id).packets
    busy = [p for p in total if p.packets]
    assert all(p.delay_avg_ns > 0 and p.bitrate_kbps > 0 for p in busy)
    with pytest.raises(KeyError):
        s.points(2)


def test_streaming_series_equals_the_files(two_flows: Path) -> None:
    live = itg.Series(INTERVAL_NS)
    records = itg.read_log(two_flows)
    for start in range(0, len(records), 64):  # in batches, as a receiver's callback gets them
        live.add(records[start:start + 64])
    assert live.csv() == itg.series(two_flows, INTERVAL_NS).csv()
    with pytest.raises(itg.InvalidArgument):
        itg.Series(0)
    with pytest.raises(itg.InvalidArgument):
        itg.Series(INTERVAL_NS, meter="nope")
    with pytest.raises(FileNotFoundError):
        itg.series(two_flows.parent / "missing.itglog", INTERVAL_NS)


def _until(cond: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def test_log_server_collects_a_shipped_log(tmp_path: Path) -> None:
    with itg.LogServer(tmp_path, port=0) as ls:
        assert ls.port not in (0, 9001) and ls.udp_port != 0  # fixed port: the default, not bound
        with itg.Receiver(port=0) as rx:
            res = itg.send(rx, "-C 1000 -c 64 -z 50 -t 0", log="sent.itglog",
                           log_server="127.0.0.1", log_server_port=ls.port)
        assert res.ok
        # The client has left once the server counts its session closed.
        assert _until(lambda: ls.stats().sessions_total == 1 and ls.stats().sessions_open == 0)
        st = ls.stats()
        assert (st.refused, st.incomplete, st.missing) == (0, 0, 0)
        assert st.records == 51  # 50 packets and the flow's end
    report = itg.decode(tmp_path / "sent.itglog")
    assert report.main_meter == "sent"
    assert (report.total.packets, report.total.bytes) == (50, 3200)


def test_log_server_refusals(tmp_path: Path) -> None:
    with pytest.raises(itg.InvalidArgument):
        itg.LogServer(tmp_path, allow=["not-a-network"])
    with itg.LogServer(tmp_path, port=0) as ls:
        with pytest.raises(itg.AddressInUse):
            itg.LogServer(tmp_path, port=ls.port).start()
    with pytest.raises(FileNotFoundError):
        with itg.LogServer(tmp_path / "no-such-dir", port=0):
            pass
