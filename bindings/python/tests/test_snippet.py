"""The scenario of the binding's specification, as written: a receiver on
the default signaling port (9000) and a sender in one process on loopback.
Only the log's path differs, so that runs never share a file."""
from __future__ import annotations

from pathlib import Path

import itg


def test_receiver_and_sender_in_one_process(tmp_path: Path) -> None:
    path = str(tmp_path / "r.itglog")
    with itg.Receiver(log=path) as rx:
        itg.send("127.0.0.1", "-T UDP -C 1000 -c 64 -t 1000")
    report = itg.decode(path)
    assert report.total.packets == 1000 and report.total.lost == 0
    assert rx.port == 9000
