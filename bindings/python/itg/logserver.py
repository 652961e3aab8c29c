"""The log server, itg-log's engine: collects the logs that senders and
receivers ship to it (Sender(log_server=...), a flow's recv_log_server) and
writes each client's session to a file of its own in dir, in the ordinary
log format. It runs in the library's own thread."""
from __future__ import annotations

import os
import weakref
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from ._itg import ffi, lib
from ._util import PathLike, cstr, encode_text
from .errors import check, error_for, message_of

_live: "weakref.WeakSet[LogServer]" = weakref.WeakSet()


@dataclass(frozen=True)
class LogServerStats:
    """Sessions open now and since start, those that ended without their
    client leaving (incomplete), clients refused or closed for not
    registering in time (expired), records written and counted lost on the
    way (missing, UDP)."""

    sessions_open: int
    sessions_total: int
    incomplete: int
    refused: int
    records: int
    missing: int
    expired: int


class LogServer:
    """A log server writing its sessions' files into dir.

        with itg.LogServer(tmpdir, port=0) as ls:
            itg.send(rx, "-C 100 -z 50", log="sender.itglog",
                     log_server="127.0.0.1", log_server_port=ls.port)
        # tmpdir/sender.itglog holds the sender's records

    Entering the block starts it (port: 9001 by default, 0 picks free TCP
    and UDP ports, then given by .port and .udp_port); leaving it closes
    every session (flushed; a session whose client had not left is renamed
    NAME.incomplete) and frees it. Clients must come from loopback or from
    a network in allow ("10.0.0.0/8", ...) and, with token set, present it.
    """

    def __init__(self, dir: PathLike = ".", *, port: int = 9001, bind: str = "",
                 token: Optional[str] = None, allow: Iterable[str] = (),
                 max_clients: Optional[int] = None, max_peer_clients: Optional[int] = None,
                 handshake_s: Optional[float] = None, flush_s: Optional[float] = None) -> None:
        self._s: Any = None
        self._running = False
        cfg = ffi.new("itg_logserver_cfg *")
        lib.itg_logserver_cfg_init(cfg)
        cfg.bind_host = encode_text(bind, "bind", ffi.sizeof(cfg.bind_host))
        cfg.port = port
        cfg.dir = encode_text(os.fspath(dir), "dir", ffi.sizeof(cfg.dir))
        if token is not None:
            cfg.token = encode_text(token, "token", ffi.sizeof(cfg.token))
        for net in allow:
            check(lib.itg_logserver_cfg_allow(cfg, net.encode("utf-8")),
                  f"allow: {net!r} is not a network (ADDR/PREFIX)")
        if max_clients is not None:
            cfg.max_clients = max_clients
        if max_peer_clients is not None:
            cfg.max_peer_clients = max_peer_clients
        if handshake_s is not None:
            cfg.handshake_ms = round(handshake_s * 1000)
        if flush_s is not None:
            cfg.flush_ms = round(flush_s * 1000)
        out = ffi.new("itg_logserver **")
        check(lib.itg_logserver_new(cfg, out))
        self._s = out[0]
        self._cfg = cfg
        _live.add(self)

    def _handle(self) -> Any:
        if self._s is None:
            raise ValueError("log server is closed")
        return self._s

    def start(self) -> "LogServer":
        """Binds the ports and starts the server's thread."""
        rc = lib.itg_logserver_start(self._handle())
        if rc < 0:
            raise error_for(rc, f"log server on port {self._cfg.port}: {message_of(rc)}")
        self._running = True
        return self

    @property
    def port(self) -> int:
        """The TCP port (the one picked, once started with port 0)."""
        if self._running:
            return int(lib.itg_logserver_port(self._handle()))
        return int(self._cfg.port)

    @property
    def udp_port(self) -> int:
        """The UDP port UDP clients send their records to (once started)."""
        return int(lib.itg_logserver_udp_port(self._handle()))

    @property
    def dir(self) -> str:
        return cstr(self._cfg.dir)

    def stats(self) -> LogServerStats:
        out = ffi.new("itg_logserver_stats *")
        check(lib.itg_logserver_get_stats(self._handle(), out))
        return LogServerStats(sessions_open=out.sessions_open,
                              sessions_total=out.sessions_total, incomplete=out.incomplete,
                              refused=out.refused, records=out.records, missing=out.missing,
                              expired=out.expired)

    def stop(self) -> None:
        """Closes every session and stops the thread (idempotent)."""
        if self._s is not None:
            check(lib.itg_logserver_stop(self._s))
        self._running = False

    def close(self) -> None:
        """Stops and frees the server."""
        if self._s is not None:
            s, self._s = self._s, None
            self._running = False
            _live.discard(self)
            lib.itg_logserver_free(s)

    def __enter__(self) -> "LogServer":
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self._running else ("closed" if self._s is None else "stopped")
        return f"<itg.LogServer port {self.port if self._s is not None else '-'} {state}>"


def close_all() -> None:
    """Frees every log server still open (called at interpreter exit)."""
    for s in list(_live):
        s.close()
