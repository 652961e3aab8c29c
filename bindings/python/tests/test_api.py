"""The shape of the package as a user meets it: help(itg), the naming of
times, a Sender and a Receiver used together, each started by `with`."""
from __future__ import annotations

import json
import pydoc
from dataclasses import fields
from pathlib import Path

import itg


def test_help_is_the_api_not_the_error_table() -> None:
    text = pydoc.render_doc(itg, renderer=pydoc.plaintext)
    # The error classes are documented once, by help(itg.errors); help(itg)
    # names Error and the package, and points nowhere outside it.
    assert len(text.splitlines()) < 2000
    assert "class Error(" in text and "class NotFound(" not in text
    assert "include/" not in text
    errors_text = pydoc.render_doc(itg.errors, renderer=pydoc.plaintext)
    assert "class NotFound(" in errors_text
    assert "include/" not in errors_text
    assert itg.NotFound.__doc__ == "no such file or directory (ITG_ENOENT)."
    assert itg.NotFound is itg.ENOENT


def test_receiver_flow_goes_to_the_receiver(tmp_path: Path) -> None:
    path = tmp_path / "r.itglog"
    with itg.Receiver(log=path, port=0) as rx:
        flow = rx.flow("-C 1000 -c 64 -z 20 -t 0")
        assert (flow.dst_host, flow.sig_port, flow.dst_port) == ("127.0.0.1", rx.port, 0)
        assert rx.port != itg.DEFAULT_SIG_PORT
        # Options and fields come after the receiver's address.
        assert rx.flow("-rp 7000", flow_id=3).dst_port == 7000  # fixed port: read back, not bound
        res = itg.send(rx, "-C 1000 -c 64 -z 30 -t 0")
        assert res.ok and res.received == 30
        with itg.Sender([flow]) as s:
            assert s.wait(30.0)
    assert itg.decode(path).total.packets == 50


def test_sender_starts_on_with_and_runs_once() -> None:
    with itg.Receiver(port=0) as rx:
        with itg.Sender([rx.flow("-C 1000 -c 64 -z 40 -t 0")]) as s:
            assert s.started
            results = s.run()  # waits for the flows the block started
        assert [(r.packets, r.received) for r in results] == [(40, 40)]


def test_an_empty_sender_refuses_with_and_is_freed() -> None:
    s = itg.Sender()
    try:
        with s:
            raise AssertionError("a sender without flows started")
    except itg.Error:
        pass
    assert not s.started
    try:
        s.add_flow("-a 127.0.0.1 -C 10 -z 1")
    except ValueError as exc:  # closed by the failed `with`
        assert "closed" in str(exc)
    else:
        raise AssertionError("the sender was left open")


def test_times_are_ns_everywhere_but_itg_decs_json(tmp_path: Path) -> None:
    path = tmp_path / "r.itglog"
    with itg.Receiver(log=path, port=0) as rx:
        itg.send(rx, "-C 2000 -c 100 -z 50 -t 0")
    report = itg.decode(path)
    names = [f.name for f in fields(itg.FlowStats)]
    assert not [n for n in names if n.endswith("_s")]
    assert report.total.as_dict() == {n: getattr(report.total, n) for n in names}
    d = report.as_dict()
    assert d["total"]["delay_avg_ns"] == report.total.delay_avg_ns
    assert [f["flow_id"] for f in d["flows"]] == [1]
    assert d["totals"]["owd"] == report.total.as_dict()
    assert json.loads(json.dumps(d)) == d
    # itg-dec's document keeps its seconds, under _s keys.
    doc = json.loads(report.json_text)
    assert abs(doc["total"]["delay_avg_s"] * 1e9 - report.total.delay_avg_ns) < 1
