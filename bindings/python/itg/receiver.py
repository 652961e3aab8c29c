"""The receiver: the library's own thread receives
and logs; Python is called only per batch of records (and per flow event)
when it asks for callbacks."""
from __future__ import annotations

import sys
import threading
import traceback
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ._itg import ffi, lib
from ._util import PathLike, cstr, encode_text, name_of, wait_in_slices
from .errors import InvalidState, check, code_of, error_for, message_of
from .flow import METERS, PROTOS, FlowConfig, Options
from .log import RecordBatch

_REC_SIZE: int = ffi.sizeof("itg_logrec")
_EVENT_KINDS = {lib.ITG_FLOW_OPENED: "opened", lib.ITG_FLOW_REFUSED: "refused",
                lib.ITG_FLOW_ENDED: "ended", lib.ITG_PEER_DROPPED: "dropped"}

_live: "weakref.WeakSet[Receiver]" = weakref.WeakSet()


@dataclass(frozen=True)
class FlowEvent:
    """A flow's life on the receiver: kind is "opened", "refused" or "ended"."""

    kind: str
    flow_id: int
    proto: str
    meter: str
    port: int
    peer: str
    packets: int = 0
    bytes: int = 0
    sent: int = 0
    sent_known: bool = False
    status: int = 0
    message: str = ""


@dataclass(frozen=True)
class ReceiverStats:
    packets: int
    bytes: int
    malformed: int
    flows_served: int
    flows_active: int
    flows_refused: int
    echoes: int


RecordsCallback = Callable[[RecordBatch], None]
FlowCallback = Callable[[FlowEvent], None]


class _Sink:
    """What the C thread calls into: the user's callbacks and the first
    exception they raised. Kept apart from Receiver so that the handle
    given to C does not keep the Receiver alive."""

    def __init__(self, on_records: Optional[RecordsCallback],
                 on_flow: Optional[FlowCallback]) -> None:
        self.on_records = on_records
        self.on_flow = on_flow
        self.error: Optional[BaseException] = None
        self.lock = threading.Lock()
        self.c_thread: Optional[int] = None

    def call(self, fn: Callable[[Any], None], make_arg: Callable[[], Any]) -> None:
        # After a callback has failed, later batches are not given to it:
        # the first exception is what the caller gets back at stop().
        self.c_thread = threading.get_ident()
        if self.error is not None:
            return
        try:
            fn(make_arg())
        except BaseException as exc:  # handed back to the caller, never lost
            with self.lock:
                if self.error is None:
                    self.error = exc

    def take_error(self) -> Optional[BaseException]:
        with self.lock:
            exc, self.error = self.error, None
            return exc


# ffi.def_extern, typed: it registers the function for the C side as is.
_def_extern: Callable[[], Callable[[Callable[..., None]], Callable[..., None]]] = ffi.def_extern


@_def_extern()
def itgpy_on_records(recs: Any, n: int, user: Any) -> None:
    sink: _Sink = ffi.from_handle(user)
    if sink.on_records is not None:
        sink.call(sink.on_records, lambda: RecordBatch(bytes(ffi.buffer(recs, n * _REC_SIZE))))


@_def_extern()
def itgpy_on_flow(ev: Any, user: Any) -> None:
    sink: _Sink = ffi.from_handle(user)
    if sink.on_flow is not None:
        sink.call(sink.on_flow, lambda: FlowEvent(
            kind=_EVENT_KINDS.get(ev.kind, str(ev.kind)), flow_id=ev.flow_id,
            proto=name_of(PROTOS, ev.proto), meter=name_of(METERS, ev.meter),
            port=ev.port, peer=cstr(ev.peer), packets=ev.packets, bytes=ev.bytes,
            sent=ev.sent, sent_known=bool(ev.sent_known), status=ev.status,
            message=cstr(ev.message)))


class Receiver:
    """Receives flows from senders and logs every packet.

        with itg.Receiver(log="/tmp/r.itglog", port=0) as rx:
            itg.send(rx, "-C 100 -t 1000")

    Entering the block starts the receiver (listening on the signaling
    port: 9000 by default, 0 picks a free one, then given by .port);
    rx.flow(...) is a flow addressed to it, itg.send(rx, ...) sends one;
    leaving the block stops the receiver (every flow ends, every log is flushed)
    and frees it. rcvbuf sets each data socket's receive buffer in bytes,
    cpu the CPU the receiving thread is pinned to.

    on_records(batch) is called on the receiver's thread with each batch
    of records it logs (an itg.RecordBatch); on_flow(event) when a flow is
    opened, refused or ends. Keep them short: the receiver waits for them.
    An exception a callback raises is kept (later calls are skipped) and
    raised again by stop() or at the end of the with block.
    """

    def __init__(self, log: Optional[PathLike] = None, *, port: int = lib.ITG_DEFAULT_SIG_PORT,
                 bind: str = "", log_dir: Optional[PathLike] = None,
                 log_batch: Optional[int] = None, max_flows: Optional[int] = None,
                 rcvbuf: Optional[int] = None, cpu: Optional[int] = None,
                 on_records: Optional[RecordsCallback] = None,
                 on_flow: Optional[FlowCallback] = None) -> None:
        self._r: Any = None
        self._running = False
        cfg = ffi.new("itg_receiver_cfg *")
        lib.itg_receiver_cfg_init(cfg)
        cfg.bind_host = encode_text(bind, "bind", ffi.sizeof(cfg.bind_host))
        cfg.sig_port = port
        if log is not None:
            cfg.log_path = encode_text(log, "log", ffi.sizeof(cfg.log_path))
        if log_dir is not None:
            cfg.log_dir = encode_text(log_dir, "log_dir", ffi.sizeof(cfg.log_dir))
        if log_batch is not None:
            cfg.log_batch = log_batch
        if max_flows is not None:
            cfg.max_flows = max_flows
        if rcvbuf is not None:
            cfg.rcvbuf = rcvbuf
        if cpu is not None:
            cfg.cpu = cpu
        self._sink = _Sink(on_records, on_flow)
        self._user = ffi.new_handle(self._sink)
        cfg.user = self._user
        if on_records is not None:
            cfg.on_records = lib.itgpy_on_records
        if on_flow is not None:
            cfg.on_flow = lib.itgpy_on_flow
        self._cfg = cfg
        out = ffi.new("itg_receiver **")
        check(lib.itg_receiver_new(cfg, out))
        self._r = out[0]
        _live.add(self)

    def _handle(self) -> Any:
        if self._r is None:
            raise ValueError("receiver is closed")
        return self._r

    def _not_from_callback(self, what: str) -> None:
        # The receiver's thread waiting for itself would never return.
        if self._sink.c_thread == threading.get_ident():
            raise InvalidState(code_of("ESTATE"), f"{what} called from a receiver callback")

    def start(self) -> "Receiver":
        """Binds the signaling port and starts the receiver's thread."""
        rc = lib.itg_receiver_start(self._handle())
        if rc < 0:
            raise error_for(rc, f"receiver on port {self._cfg.sig_port}: {message_of(rc)}")
        self._running = True
        return self

    @property
    def running(self) -> bool:
        return self._running

    @property
    def port(self) -> int:
        """The signaling port (the one picked, once started with port 0)."""
        if self._running:
            return int(lib.itg_receiver_port(self._handle()))
        return int(self._cfg.sig_port)

    def flow(self, options: Optional[Options] = None, **fields: Any) -> FlowConfig:
        """A flow addressed to this receiver: its signaling port (the one
        picked, for port 0), its address (loopback when it listens on every
        address) and data port 0, which the receiver picks; then options
        and fields as FlowConfig takes them, which may change any of it.

            with itg.Receiver(port=0) as rx, itg.Sender([rx.flow("-C 100 -t 1000")]) as s:
                s.wait()
        """
        bind = cstr(self._cfg.bind_host)
        host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(bind, bind)
        flow = FlowConfig(dst_host=host, sig_port=self.port, dst_port=0)
        if options is not None:
            flow.parse(options)
        return flow.set(**fields)

    def stats(self) -> ReceiverStats:
        out = ffi.new("itg_receiver_stats *")
        lib.itg_receiver_get_stats(self._handle(), out)
        return ReceiverStats(packets=out.packets, bytes=out.bytes, malformed=out.malformed,
                             flows_served=out.flows_served, flows_active=out.flows_active,
                             flows_refused=out.flows_refused, echoes=out.echoes)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Waits until every flow that started has ended and no sender is
        connected, at most timeout seconds; returns whether it is idle."""
        r = self._handle()
        self._not_from_callback("wait_idle()")
        rc = wait_in_slices(lambda ns: int(lib.itg_receiver_wait_idle(r, ns)), timeout,
                            code_of("ETIMEDOUT"))
        if rc == code_of("ETIMEDOUT"):
            return False
        check(rc)
        return True

    def stop(self) -> None:
        """Ends every flow, flushes the logs and stops the thread (idempotent).

        Raises the first exception a callback raised, else a log error.
        """
        self._not_from_callback("stop()")
        rc = 0
        if self._r is not None:
            rc = lib.itg_receiver_stop(self._r)
        self._running = False
        exc = self._sink.take_error()
        if exc is not None:
            if rc < 0 and hasattr(exc, "add_note"):
                exc.add_note(f"the receiver also reported: {message_of(rc)}")
            raise exc
        check(rc, f"receiver log: {message_of(rc)}" if rc < 0 else None)

    def close(self) -> None:
        """Stops (raising as stop() does) and frees the receiver."""
        if self._r is None:
            return
        try:
            self.stop()
        finally:
            r, self._r = self._r, None
            _live.discard(self)
            lib.itg_receiver_free(r)

    def __enter__(self) -> "Receiver":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _close_unattended(self) -> None:
        # No caller to raise to (garbage collection, interpreter exit): a
        # callback's exception is printed rather than dropped. Never on the
        # receiver's own thread, which cannot stop itself.
        if self._r is None or self._sink.c_thread == threading.get_ident():
            return
        try:
            self.close()
        except BaseException:
            print("itg: error from a receiver closed without stop():", file=sys.stderr)
            traceback.print_exc()

    def __del__(self) -> None:
        self._close_unattended()

    def __repr__(self) -> str:
        state = "running" if self._running else ("closed" if self._r is None else "stopped")
        return f"<itg.Receiver port {self.port if self._r is not None else '-'} {state}>"


def close_all() -> None:
    """Stops and frees every receiver still open (called at interpreter
    exit, so that no receiver thread calls into Python after it)."""
    for r in list(_live):
        r._close_unattended()
