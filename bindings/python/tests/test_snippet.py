"""The scenario of the binding's specification (README.md): a receiver and
a sender in one process on loopback. The test runs it on ports the system
picks, not the default ones, so that runs never collide; the defaults are
checked without binding them."""
from __future__ import annotations

from pathlib import Path

import itg


def test_receiver_and_sender_in_one_process(tmp_path: Path) -> None:
    path = str(tmp_path / "r.itglog")
    with itg.Receiver(log=path, port=0) as rx:
        itg.send(rx, "-T UDP -C 1000 -c 64 -t 1000")
    report = itg.decode(path)
    assert report.total.packets == 1000 and report.total.lost == 0


def test_default_ports() -> None:
    rx = itg.Receiver()
    try:
        assert rx.port == 9000  # fixed port: the default, not bound
    finally:
        rx.close()
    flow = itg.FlowConfig("-C 1000 -t 1000")
    assert (flow.sig_port, flow.dst_port) == (9000, 8999)  # fixed port: the defaults
