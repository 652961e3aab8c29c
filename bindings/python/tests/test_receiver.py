"""The receiver: ports, statistics, and the callbacks, whose exceptions
come back to the caller."""
from __future__ import annotations

import threading
from typing import List
from pathlib import Path

import pytest

import itg
from itg.log import REC_FLOW_END, REC_RX


def test_port_zero_picks_a_free_port(tmp_path: Path) -> None:
    rx = itg.Receiver(port=0)
    assert rx.port == 0 and not rx.running
    with rx:
        assert rx.running and rx.port != 0
    assert not rx.running


def test_records_callback_sees_every_packet(tmp_path: Path) -> None:
    path = tmp_path / "cb.itglog"
    batches: List[itg.RecordBatch] = []
    events: List[itg.FlowEvent] = []
    threads = set()

    def on_records(batch: itg.RecordBatch) -> None:
        threads.add(threading.get_ident())
        batches.append(batch)

    with itg.Receiver(log=path, port=0, on_records=on_records, on_flow=events.append) as rx:
        res = itg.send("127.0.0.1", "-C 2000 -c 100 -z 300 -t 0", sig_port=rx.port,
                       dst_port=0)
        assert rx.wait_idle(10.0)
        stats = rx.stats()
    records = [r for b in batches for r in b]
    packets = [r for r in records if r.is_packet and r.flags & REC_RX]
    assert res.packets == 300
    assert len(packets) == 300 == stats.packets
    assert sorted(r.seq for r in packets) == list(range(1, 301))
    assert all(r.size == 100 and r.flow_id == res.flow_id for r in packets)
    assert all(r.rx_ns >= r.tx_ns > 0 for r in packets)
    assert [r.seq for r in records if r.flags & REC_FLOW_END] == [300]
    assert threading.get_ident() not in threads  # called on the receiver's thread
    # The callback saw what the log holds, record for record.
    assert records == list(itg.LogReader(path))
    kinds = [e.kind for e in events]
    assert kinds == ["opened", "ended"]
    assert events[0].port > 0 and events[0].proto == "udp"
    assert events[1].packets == 300 and events[1].sent == 300 and events[1].sent_known


class Boom(Exception):
    pass


def test_callback_exception_is_raised_at_exit(tmp_path: Path) -> None:
    path = tmp_path / "boom.itglog"
    calls = []

    def on_records(batch: itg.RecordBatch) -> None:
        calls.append(len(batch))
        raise Boom("from the callback")

    with pytest.raises(Boom, match="from the callback"):
        with itg.Receiver(log=path, port=0, on_records=on_records) as rx:
            res = itg.send("127.0.0.1", "-C 1000 -c 64 -z 200 -t 0", sig_port=rx.port,
                           dst_port=0)
    # Raised once, called once (later batches skip the failed callback),
    # and the receiver went on logging: the C thread never saw it.
    assert len(calls) == 1
    assert res.packets == 200
    assert itg.decode(path).total.packets == 200


def test_callback_exception_is_raised_by_stop_once() -> None:
    def on_flow(ev: itg.FlowEvent) -> None:
        raise KeyError(ev.kind)

    rx = itg.Receiver(port=0, on_flow=on_flow).start()
    try:
        itg.send("127.0.0.1", "-C 100 -z 5 -t 0", sig_port=rx.port, dst_port=0)
        with pytest.raises(KeyError, match="opened"):
            rx.stop()
        rx.stop()  # already handed over: not raised again
    finally:
        rx.close()


def test_callback_may_not_stop_its_receiver() -> None:
    holder: List[itg.Receiver] = []

    def on_flow(ev: itg.FlowEvent) -> None:
        holder[0].stop()

    with pytest.raises(itg.InvalidState, match="callback"):
        with itg.Receiver(port=0, on_flow=on_flow) as rx:
            holder.append(rx)
            itg.send("127.0.0.1", "-C 100 -z 3 -t 0", sig_port=rx.port, dst_port=0)


def test_live_stats_match_the_decoded_log(tmp_path: Path) -> None:
    path = tmp_path / "live.itglog"
    live = itg.Stats()
    with itg.Receiver(log=path, port=0, on_records=live.add) as rx:
        itg.send("127.0.0.1", "-E 2000 -c 200 -z 400 -t 0 -s 5", sig_port=rx.port,
                 dst_port=0)
    from_file = itg.decode(path)
    assert live.report().total == from_file.total
    assert live.report().as_dict() == from_file.as_dict()
    assert from_file.total.packets == 400 and from_file.total.bytes == 400 * 200
