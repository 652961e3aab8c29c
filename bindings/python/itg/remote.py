"""Remote control (include/itg/remote.h): agents that run flows on command
(itg-agent, itg-send --daemon) and the connection that drives one, proven
on both sides by a shared token (no token ever crosses the wire).

    with itg.remote.connect("10.0.0.2", 9003, token) as a:
        offset_ns, rtt_ns = a.clock()
        a.start(["-a 10.0.0.3 -Sdp 9000 -C 100 -t 2000"],
                at_wall_ns=itg.clock_real_ns() + offset_ns + 500_000_000)
        status = a.results(wait=10.0)
        print(status.state, [f.packets for f in status.flows])

An Agent runs one in this process, for tests and embedding:

    with itg.remote.Agent(token, port=0, recv_port=0) as agent:
        with itg.remote.connect("127.0.0.1", agent.port, token) as a: ...
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Iterable, List, Optional, Tuple, Union

from ._itg import ffi, lib
from ._util import PathLike, cstr, encode_text, name_of, seconds_to_ns, wait_in_slices
from .errors import InvalidArgument, check, code_of, message_of
from .flow import PROTOS
from .sender import FlowResult, _result_from_c

_ERRLEN = 600

DEFAULT_PORT: int = lib.ITG_REMOTE_DEFAULT_PORT
STATES = {"idle": lib.ITG_REMOTE_IDLE, "held": lib.ITG_REMOTE_HELD,
          "running": lib.ITG_REMOTE_RUNNING, "ended": lib.ITG_REMOTE_ENDED}

Token = Union[bytes, str]


def _token(token: Token) -> bytes:
    raw = token.encode("utf-8") if isinstance(token, str) else bytes(token)
    if not 1 <= len(raw) <= lib.ITG_REMOTE_TOKEN_MAX:
        raise InvalidArgument(code_of("EINVAL"),
                              f"token: 1 to {lib.ITG_REMOTE_TOKEN_MAX} bytes, not {len(raw)}")
    return raw


def read_token(path: PathLike) -> bytes:
    """A token file's bytes, trailing white space left out (as itg-ctl and
    itg-agent read --token-file)."""
    with open(path, "rb") as f:
        return _token(f.read().rstrip())


@dataclass(frozen=True)
class RxFlow:
    """A flow the agent's receiver took and has ended. log_file is the
    receiver log it went to, as fetch_log takes it: the name its sender
    gave (-x), or NAME.1, NAME.2, ... when NAME existed at the agent (""
    if it named none)."""

    flow_id: int
    proto: str
    port: int
    peer: str
    packets: int
    bytes: int
    sent: int
    sent_known: bool
    log_file: str


@dataclass(frozen=True)
class Status:
    """The agent's state ("idle", "held", "running", "ended"), its sender
    flows' results (live counters while they run) and its receiver's."""

    state: str
    start_status: int
    start_wall_ns: int
    flows: List[FlowResult]
    rx_flows: List[RxFlow]
    rx_packets: int
    rx_bytes: int
    rx_malformed: int
    rx_flows_served: int
    rx_flows_active: int
    rx_flows_refused: int

    @property
    def ended(self) -> bool:
        return self.state == "ended"


# ffi.def_extern, typed: it registers the function for the C side as is.
_def_extern: Callable[[], Callable[[Callable[..., int]], Callable[..., int]]] = ffi.def_extern


@_def_extern()
def itgpy_on_log_data(data: Any, n: int, user: Any) -> int:
    out: BinaryIO = ffi.from_handle(user)
    try:
        out.write(bytes(ffi.buffer(data, n)))
    except OSError:
        return int(code_of("EIO"))
    return 0


class Remote:
    """A connection to an agent (see connect). Used from one thread at a
    time; every call waits for the agent's answer, at most the timeout
    given to connect, and raises the library's error (itg.PermissionDenied
    for a token the agent refuses, itg.Busy when another client controls
    it, itg.ConnectionClosed once the agent is gone, ...)."""

    def __init__(self, host: str, port: int = DEFAULT_PORT, token: Token = b"", *,
                 timeout: float = 5.0) -> None:
        self._r: Any = None
        raw = _token(token)
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        out = ffi.new("itg_remote **")
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_remote_connect(host.encode("utf-8"), port, raw, len(raw),
                                    seconds_to_ns(timeout), out, err, _ERRLEN)
        check(rc, cstr(err) or None)
        self._r = out[0]

    def _handle(self) -> Any:
        if self._r is None:
            raise ValueError("connection is closed")
        return self._r

    @property
    def software(self) -> str:
        """The agent's software and version, e.g. "libitg 0.9.0"."""
        return cstr(lib.itg_remote_agent_software(self._handle()))

    @property
    def receiver_port(self) -> int:
        """The agent's receiver signaling port (a flow towards it gives it as -Sdp)."""
        return int(lib.itg_remote_receiver_port(self._handle()))

    def clock(self, rounds: int = 20) -> Tuple[int, int]:
        """(offset_ns, rtt_ns): the agent's wall clock less this host's, from
        the exchange of least round trip of `rounds`; the offset is right
        within rtt_ns / 2."""
        offset = ffi.new("int64_t *")
        rtt = ffi.new("int64_t *")
        check(lib.itg_remote_clock(self._handle(), rounds, offset, rtt))
        return int(offset[0]), int(rtt[0])

    def start(self, lines: Union[str, Iterable[str]], at_wall_ns: int = 0) -> None:
        """Gives the agent flows (itg-send script lines, or one line) to
        release together at at_wall_ns on the agent's wall clock (0: at
        once); returns once they are set up. Raises with the agent's
        sentence when it refuses them (naming the line)."""
        words = [lines] if isinstance(lines, str) else list(lines)
        keep = [ffi.new("char[]", line.encode("utf-8")) for line in words]
        arr = ffi.new("const char *[]", keep)
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_remote_start(self._handle(), arr, len(keep), at_wall_ns, err, _ERRLEN)
        check(rc, cstr(err) or None)

    def _status(self, st: Any) -> Status:
        r = self._handle()
        out = ffi.new("itg_flow_result *")
        flows = []
        for i in range(st.flows):
            check(lib.itg_remote_flow_result(r, i, out))
            flows.append(_result_from_c(out))
        rx = ffi.new("itg_remote_rx_flow *")
        rx_flows = []
        for i in range(st.rx_flows):
            check(lib.itgpy_remote_rx_flow(r, i, rx))
            rx_flows.append(RxFlow(flow_id=rx.flow_id, proto=name_of(PROTOS, rx.proto),
                                   port=rx.port, peer=cstr(rx.peer), packets=rx.packets,
                                   bytes=rx.bytes, sent=rx.sent,
                                   sent_known=bool(rx.sent_known),
                                   log_file=cstr(rx.log_file)))
        return Status(state=name_of(STATES, st.state), start_status=st.start_status,
                      start_wall_ns=st.start_wall_ns, flows=flows, rx_flows=rx_flows,
                      rx_packets=st.rx_packets, rx_bytes=st.rx_bytes,
                      rx_malformed=st.rx_malformed, rx_flows_served=st.rx_flows_served,
                      rx_flows_active=st.rx_flows_active,
                      rx_flows_refused=st.rx_flows_refused)

    def status(self) -> Status:
        """The agent's state and live counters."""
        st = ffi.new("itg_remote_status *")
        check(lib.itgpy_remote_status(self._handle(), st))
        return self._status(st)

    def stop(self) -> None:
        """Asks the agent to end its flows now."""
        check(lib.itg_remote_stop(self._handle()))

    def results(self, wait: Optional[float] = 0.0) -> Status:
        """Waits at most `wait` seconds (None: until they end) for the
        agent's flows to end, then returns its state: .ended tells whether
        they have (else the counters are live). Ctrl-C is handled between
        waits of a fraction of a second."""
        r = self._handle()
        st = ffi.new("itg_remote_status *")
        timed_out = code_of("ETIMEDOUT")
        rc = wait_in_slices(lambda ns: int(lib.itg_remote_results(r, ns, st)), wait, timed_out)
        if rc != timed_out:
            check(rc)
        return self._status(st)

    def fetch_log(self, name: str, dest: Union[PathLike, BinaryIO, None] = None) -> Optional[bytes]:
        """Fetches a log file the agent wrote (its name as the agent's
        configuration or a flow's -x gave it) into dest, a path or a binary
        file; with no dest, returns its bytes."""
        if dest is None:
            buf = io.BytesIO()
            self.fetch_log(name, buf)
            return buf.getvalue()
        if isinstance(dest, (str, bytes, os.PathLike)):
            with open(dest, "wb") as f:
                self.fetch_log(name, f)
            return None
        handle = ffi.new_handle(dest)
        rc = lib.itg_remote_fetch_log(self._handle(), encode_text(name, "name", 4096),
                                      lib.itgpy_on_log_data, handle)
        check(rc, f"log {name!r}: {message_of(rc)}")
        return None

    def close(self) -> None:
        """Says goodbye (the agent keeps its flows and results) and frees."""
        if self._r is not None:
            r, self._r = self._r, None
            lib.itg_remote_close(r)

    def __enter__(self) -> "Remote":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def connect(host: str, port: int = DEFAULT_PORT, token: Token = b"", *,
            timeout: float = 5.0) -> Remote:
    """Connects to the agent at host:port and proves both sides hold token
    (bytes, or text sent as UTF-8); timeout (seconds) bounds the
    connection and every exchange on it. Use it as a context manager."""
    return Remote(host, port, token, timeout=timeout)


class Agent:
    """An agent in this process: a receiver, and a sender for the flows a
    client with the token gives it.

        with itg.remote.Agent(token, port=0, recv_port=0, log_dir=d) as agent:
            print(agent.port, agent.receiver_port)

    listen is the control address ("" any; default loopback), allow the
    networks ("10.0.0.0/8") clients may come from besides loopback.
    Entering the block starts it; leaving it stops it and frees it.
    """

    def __init__(self, token: Token, *, listen: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 recv_port: int = lib.ITG_DEFAULT_SIG_PORT, allow: Iterable[str] = (),
                 log_dir: Optional[PathLike] = None, auth_timeout: Optional[float] = None) -> None:
        self._a: Any = None
        raw = _token(token)
        cfg = ffi.new("itg_agent_cfg *")
        lib.itg_agent_cfg_init(cfg)
        cfg.listen_host = encode_text(listen, "listen", ffi.sizeof(cfg.listen_host))
        cfg.listen_port = port
        cfg.recv_port = recv_port
        ffi.memmove(cfg.token, raw, len(raw))
        cfg.token_len = len(raw)
        count = ffi.new("uint32_t *")
        bad = ffi.new("char[]", 128)
        most = len(cfg.allow)
        rc = lib.itg_logserver_net_list_parse(",".join(allow).encode("utf-8"), cfg.allow,
                                              most, count, bad, 128)
        check(rc, f"allow: {cstr(bad)!r} is not a network" if cstr(bad)
              else f"allow: more than {most} networks")
        cfg.allow_count = count[0]
        if log_dir is not None:
            cfg.log_dir = encode_text(log_dir, "log_dir", ffi.sizeof(cfg.log_dir))
        if auth_timeout is not None:
            cfg.auth_timeout_ms = int(auth_timeout * 1000)
        out = ffi.new("itg_agent **")
        err = ffi.new("char[]", _ERRLEN)
        check(lib.itg_agent_new(cfg, out, err, _ERRLEN), cstr(err) or None)
        ffi.memmove(cfg.token, b"\0" * len(raw), len(raw))
        self._a = out[0]
        self._running = False

    def _handle(self) -> Any:
        if self._a is None:
            raise ValueError("agent is closed")
        return self._a

    def start(self) -> "Agent":
        """Starts the receiver and the control port; returns once both listen."""
        err = ffi.new("char[]", _ERRLEN)
        check(lib.itg_agent_start(self._handle(), err, _ERRLEN), cstr(err) or None)
        self._running = True
        return self

    @property
    def port(self) -> int:
        """The control port (the one picked, once started with port 0)."""
        return int(lib.itg_agent_port(self._handle()))

    @property
    def receiver_port(self) -> int:
        """The receiver's signaling port."""
        return int(lib.itg_agent_receiver_port(self._handle()))

    def stop(self) -> None:
        """Stops serving and ends its flows (safe from any thread)."""
        if self._a is not None:
            lib.itg_agent_stop(self._a)
            self._running = False

    def close(self) -> None:
        if self._a is not None:
            a, self._a = self._a, None
            lib.itg_agent_free(a)

    def __enter__(self) -> "Agent":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
