"""Remote control: an agent in this process driven through itg.remote,
on loopback, every port picked by the system."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

import itg
import itg.remote

TOKEN = b"a token of the binding's tests, 32+ bytes"


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[itg.remote.Agent]:
    with itg.remote.Agent(TOKEN, port=0, recv_port=0, log_dir=tmp_path) as a:
        yield a


def test_flow_to_the_agents_own_receiver(agent: itg.remote.Agent, tmp_path: Path) -> None:
    with itg.remote.connect("127.0.0.1", agent.port, TOKEN) as a:
        assert a.receiver_port == agent.receiver_port
        assert a.software.startswith("libitg ")
        offset, rtt = a.clock(rounds=5)
        # One clock on both ends: the offset is 0, known within rtt / 2.
        assert rtt > 0 and abs(offset) <= rtt // 2 + 1
        assert a.status().state == "idle"
        a.start(f"-a 127.0.0.1 -Sdp {a.receiver_port} -rp 0 -C 500 -c 64 -z 50 -x f.itglog")
        st = a.results(wait=20.0)
        assert st.ended and st.start_wall_ns > 0
        assert [(f.packets, f.received, f.ok) for f in st.flows] == [(50, 50, True)]
        assert [(r.packets, r.proto, r.log_file) for r in st.rx_flows] == [(50, "udp", "f.itglog")]
        assert st.rx_packets == 50
        data = a.fetch_log("f.itglog")
        assert data is not None and len(data) > 0
        a.fetch_log("f.itglog", tmp_path / "copy.itglog")
        # The same name again: the agent keeps the first log, and the
        # receiver flow says where the second went.
        a.start(f"-a 127.0.0.1 -Sdp {a.receiver_port} -rp 0 -C 500 -c 64 -z 30 -x f.itglog")
        st = a.results(wait=20.0)
        assert [(r.packets, r.log_file) for r in st.rx_flows] == [(50, "f.itglog"), (30, "f.itglog.1")]
        a.fetch_log(st.rx_flows[1].log_file, tmp_path / "again.itglog")
    assert itg.decode(tmp_path / "copy.itglog").total.packets == 50
    assert itg.decode(tmp_path / "again.itglog").total.packets == 30
    with pytest.raises(ValueError):
        a.status()  # closed by the with block


def test_refusals_are_errors(agent: itg.remote.Agent, tmp_path: Path) -> None:
    with pytest.raises(itg.PermissionDenied) as info:
        itg.remote.connect("127.0.0.1", agent.port, b"not the agent's token")
    assert "token" in str(info.value)
    with itg.remote.connect("127.0.0.1", agent.port, TOKEN) as a:
        with pytest.raises(itg.InvalidArgument) as bad:
            a.start(["-a 127.0.0.1 -C 100 -t 1000", "-C abc"])
        assert "abc" in str(bad.value)
        assert a.status().state == "idle"  # nothing started
        # A file beside the agent's log directory is not its to give.
        (tmp_path.parent / "escape.itglog").write_bytes(b"not a log of the agent")
        with pytest.raises((itg.PermissionDenied, itg.NotFound)):
            a.fetch_log("../escape.itglog")
    with pytest.raises(itg.InvalidArgument):
        itg.remote.connect("127.0.0.1", agent.port, b"")


def test_token_file(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_bytes(TOKEN + b" \n")
    assert itg.remote.read_token(path) == TOKEN
