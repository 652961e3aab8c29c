"""The sender: flows from option strings or fields, blocking and
non-blocking runs."""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

import itg
from itg import DistSpec


def test_options_and_fields_describe_the_same_flow() -> None:
    flow = "-a 10.1.2.3 -rp 7000 -T TCP -C 1000 -c 64 -t 1500 -s 9"  # fixed port: never sent
    by_options = itg.FlowConfig(flow)
    by_fields = itg.FlowConfig(dst_host="10.1.2.3", dst_port=7000,  # fixed port: never sent
                               proto="tcp",
                               idt=DistSpec("constant", (0.001,)),
                               size=DistSpec("constant", (64.0,)),
                               duration_ns=1_500_000_000, seed=9)
    assert by_options == by_fields
    assert by_fields.has_seed == 1
    assert by_options.proto == "tcp" and by_options.dst_port == 7000
    assert by_options.idt == DistSpec("constant", (0.001,), 1.0, "")
    # A list of words is parsed like the line; a second IDT option on it
    # is refused rather than silently replacing the first.
    assert itg.FlowConfig(["-a", "10.1.2.3", "-rp", "7000", "-T", "TCP", "-C", "1000",
                           "-c", "64", "-t", "1500", "-s", "9"]) == by_options
    with pytest.raises(itg.InvalidArgument) as info:
        itg.FlowConfig("-C 5 -C 1000 -c 64")
    assert "the IDT law is already set by -C" in str(info.value)
    assert "TCP 10.1.2.3:7000" in by_options.describe()


def test_blocking_run_with_two_flows(tmp_path: Path) -> None:
    path = tmp_path / "two.itglog"
    with itg.Receiver(log=path, port=0) as rx:
        s = itg.Sender()
        s.add_flow("-C 1000 -c 80 -z 100 -t 0", sig_port=rx.port, dst_port=0)
        s.add_flow(sig_port=rx.port, dst_port=0, proto="tcp",
                   idt=DistSpec("constant", (0.002,)), size=DistSpec("uniform", (100, 300)),
                   duration_ns=0, max_packets=50, seed=3)
        assert s.flow_count == 2
        with s:
            results = s.run()
    assert [r.flow_id for r in results] == [1, 2]
    assert [r.packets for r in results] == [100, 50]
    assert all(r.ok and r.received == r.packets for r in results)
    assert results[1].seed == 3
    report = itg.decode(path)
    assert [(f.flow_id, f.packets, f.lost) for f in report.flows] == [(1, 100, 0), (2, 50, 0)]
    assert report.flow(1).bytes == 8000
    assert 50 * 100 <= report.flow(2).bytes <= 50 * 300
    assert report.total.packets == 150


def test_start_modes() -> None:
    # Two flows of one start delay, 100 ms apart: spread (the default)
    # starts the second half a period after the sender's start, never
    # earlier; together sends both first packets at once. An unknown mode
    # is refused.
    with pytest.raises(itg.InvalidArgument) as info:
        itg.Sender(start="staggered")
    assert "spread, together" in str(info.value)
    with itg.Receiver(port=0) as rx:
        flow = f"-C 10 -c 64 -z 2 -Sdp {rx.port} -rp 0"
        for mode in ("spread", "together"):
            before = time.time_ns()
            with itg.Sender([flow, flow], start=mode) as s:
                first, second = s.run()
            assert first.packets == second.packets == 2
            if mode == "spread":
                assert second.first_tx_ns >= before + 50_000_000
            else:
                assert second.first_tx_ns - first.first_tx_ns < 50_000_000


def test_start_wait_stop(tmp_path: Path) -> None:
    with itg.Receiver(port=0) as rx:
        with itg.Sender([f"-C 1000 -c 64 -t 60000 -Sdp {rx.port} -rp 0"]) as s:
            assert s.started  # entering the block started it, as a Receiver
            assert not s.wait(0.2)  # a minute-long flow is still running
            running = s.results()[0].packets
            assert running > 0
            s.stop()
            assert s.wait(10.0)
            done = s.results()[0]
            assert running <= done.packets < 60000
            with pytest.raises(itg.InvalidState):
                s.start()


def test_ctrl_c_stops_a_blocking_run() -> None:
    with itg.Receiver(port=0) as rx:
        with itg.Sender([f"-C 1000 -c 64 -t 60000 -Sdp {rx.port} -rp 0"]) as s:
            timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
            timer.start()
            try:
                with pytest.raises(KeyboardInterrupt):
                    s.run()
            finally:
                timer.cancel()
            assert s.wait(0)  # the flow was stopped before the exception came out
            assert 0 < s.results()[0].packets < 60000


def test_send_returns_the_result_and_rtt_meter(tmp_path: Path) -> None:
    with itg.Receiver(port=0) as rx:
        res = itg.send("127.0.0.1", "-m rttm -C 500 -c 100 -z 50 -t 0",
                       sig_port=rx.port, dst_port=0, log=tmp_path / "s.itglog")
    assert isinstance(res, itg.FlowResult)
    assert res.ok and res.packets == 50 and res.echoes == 50 and res.bytes == 5000
    report = itg.decode(tmp_path / "s.itglog")
    assert report.main_meter == "rtt"
    assert report.total.packets == 50 and report.total.lost == 0
    assert report.total.delay_min_ns > 0


def test_closed_sender_refuses_use() -> None:
    s = itg.Sender()
    s.close()
    s.close()
    with pytest.raises(ValueError):
        s.add_flow("-C 10")
