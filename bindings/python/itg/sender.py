"""The sender: flows paced and sent by the library's
own threads; Python only configures, starts, waits and reads the results."""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Union

from ._itg import ffi, lib
from ._util import PathLike, cstr, encode_text, seconds_to_ns, wait_in_slices
from .errors import Error, InvalidArgument, check, code_of, error_for
from .flow import _ERRLEN, FlowConfig, Options
from .receiver import Receiver

WAIT_MODES = {"hybrid": lib.ITG_WAIT_HYBRID, "sleep": lib.ITG_WAIT_SLEEP,
              "spin": lib.ITG_WAIT_SPIN}
START_MODES = {"spread": lib.ITG_START_SPREAD, "together": lib.ITG_START_TOGETHER}

_live: "weakref.WeakSet[Sender]" = weakref.WeakSet()

FlowLike = Union[Options, FlowConfig]


@dataclass(frozen=True)
class FlowResult:
    """What happened to one flow (times in ns, wall clock)."""

    flow_id: int
    status: int
    error: str
    seed: int
    packets: int
    bytes: int
    send_errors: int
    echoes: int
    received: int
    first_tx_ns: int
    last_tx_ns: int
    late: int
    late_max_ns: int
    late_sum_ns: int
    receiver_note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 0

    def exception(self) -> Optional[Error]:
        """The flow's error as an exception, None if it succeeded."""
        return None if self.status == 0 else error_for(self.status, self.error or None)


def _result_from_c(r: Any) -> FlowResult:
    return FlowResult(flow_id=r.flow_id, status=r.status, error=cstr(r.error),
                      seed=r.seed, packets=r.packets, bytes=r.bytes,
                      send_errors=r.send_errors, echoes=r.echoes, received=r.received,
                      first_tx_ns=r.first_tx_ns, last_tx_ns=r.last_tx_ns, late=r.late,
                      late_max_ns=r.late_max_ns, late_sum_ns=r.late_sum_ns,
                      receiver_note=cstr(r.receiver_note))


def _flow_of(flow: FlowLike) -> FlowConfig:
    return flow if isinstance(flow, FlowConfig) else FlowConfig(flow)


class Sender:
    """Sends flows to receivers.

        with itg.Sender(["-a 127.0.0.1 -C 100 -t 2000"]) as s:
            results = s.run()        # waits for the flows to end
        s = itg.Sender()
        s.add_flow("-C 500 -c 100", dst_host="::1", duration_ns=10**9)
        with s:                      # starts sending, as a Receiver starts
            while not s.wait(0.5): ...
            results = s.results()

    Entering the block starts the sender (start(): its flows are set up
    with their receivers, so they are added before); leaving it stops
    flows still running and frees the sender. run() raises the first
    failed flow's error (with .results attached); wait() returns whether
    every flow has ended. start="spread" (the default) starts flows of one
    start delay spread over their period, "together" all at once
    (itg_start_mode in itg/sender.h).
    """

    def __init__(self, flows: Iterable[FlowLike] = (), *, wait: str = "hybrid",
                 log: Optional[PathLike] = None, log_batch: Optional[int] = None,
                 log_server: Optional[str] = None, log_server_port: Optional[int] = None,
                 connect_timeout: Optional[float] = None, cpu: Optional[int] = None,
                 start: str = "spread") -> None:
        self._s: Any = None
        self._started = False
        cfg = ffi.new("itg_sender_cfg *")
        lib.itg_sender_cfg_init(cfg)
        try:
            cfg.wait = WAIT_MODES[wait.lower()]
        except KeyError:
            raise InvalidArgument(code_of("EINVAL"), f"wait: {wait!r} is not one of "
                                  f"{', '.join(WAIT_MODES)}") from None
        try:
            cfg.start = START_MODES[start.lower()]
        except KeyError:
            raise InvalidArgument(code_of("EINVAL"), f"start: {start!r} is not one of "
                                  f"{', '.join(START_MODES)}") from None
        if log is not None:
            cfg.log_path = encode_text(log, "log", ffi.sizeof(cfg.log_path))
        if log_batch is not None:
            cfg.log_batch = log_batch
        if log_server is not None:
            cfg.log_server = encode_text(log_server, "log_server", ffi.sizeof(cfg.log_server))
        if log_server_port is not None:
            cfg.log_server_port = log_server_port
        if connect_timeout is not None:
            cfg.connect_timeout_ns = seconds_to_ns(connect_timeout)
        if cpu is not None:
            cfg.cpu = cpu
        out = ffi.new("itg_sender **")
        check(lib.itg_sender_new(cfg, out))
        self._s = out[0]
        _live.add(self)
        for f in flows:
            self.add_flow(f)

    def _handle(self) -> Any:
        if self._s is None:
            raise ValueError("sender is closed")
        return self._s

    def add_flow(self, options: Optional[FlowLike] = None, **fields: Any) -> FlowConfig:
        """Adds a flow (before start) from options and/or FlowConfig fields;
        returns the settings added.

        Raises with the library's message: itg.InvalidArgument for a flow
        that does not validate, itg.AlreadyExists (EEXIST) for a flow id
        another flow of this sender has, itg.InvalidState once started."""
        flow = FlowConfig() if options is None else _flow_of(options).copy()
        flow.set(**fields)
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_sender_add_flow(self._handle(), flow._c, err, _ERRLEN)
        check(rc, cstr(err) or None)
        return flow

    @property
    def flow_count(self) -> int:
        return int(lib.itg_sender_flow_count(self._handle()))

    def start(self) -> None:
        """Sets up every flow with its receiver and starts sending; returns
        once the packets are on their way. Raises if no flow could start,
        itg.InvalidState if already started."""
        rc = lib.itg_sender_start(self._handle())
        if rc < 0:
            results = self.results()
            message = next((r.error for r in results if r.status == rc and r.error), None)
            raise error_for(rc, message)
        self._started = True

    @property
    def started(self) -> bool:
        return self._started

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits for every flow to end, at most timeout seconds (None: no
        limit); returns True when all have ended."""
        s = self._handle()
        rc = wait_in_slices(lambda ns: int(lib.itg_sender_wait(s, ns)), timeout,
                            code_of("ETIMEDOUT"))
        if rc == code_of("ETIMEDOUT"):
            return False
        check(rc)
        return True

    def stop(self) -> None:
        """Asks every flow to end now (safe from any thread)."""
        if self._s is not None:
            lib.itg_sender_stop(self._s)

    def run(self) -> List[FlowResult]:
        """Starts (unless started already, e.g. by `with`), waits for every
        flow to end and returns the results.

        Raises the first failed flow's error, with the results attached as
        its .results. Ctrl-C stops the flows before it propagates.
        """
        if not self._started:
            self.start()
        try:
            self.wait()
        except BaseException:
            self.stop()
            self.wait()
            raise
        results = self.results()
        for r in results:
            exc = r.exception()
            if exc is not None:
                exc.results = results  # type: ignore[attr-defined]
                raise exc
        return results

    def results(self) -> List[FlowResult]:
        """Each flow's result (during a run, a snapshot of the counters)."""
        s = self._handle()
        out = ffi.new("itg_flow_result *")
        results = []
        for i in range(lib.itg_sender_flow_count(s)):
            check(lib.itg_sender_flow_result(s, i, out))
            results.append(_result_from_c(out))
        return results

    def close(self) -> None:
        """Stops (if running), waits and frees the sender."""
        if self._s is not None:
            s, self._s = self._s, None
            _live.discard(self)
            lib.itg_sender_free(s)

    def __enter__(self) -> "Sender":
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


_SENDER_OPTIONS = ("wait", "log", "log_batch", "log_server", "log_server_port",
                   "connect_timeout", "cpu")


def send(to: Union[str, Receiver], options: Options = "", **kw: Any) -> FlowResult:
    """Sends one flow and returns its result once it has ended.

    to is the receiver's host, or a Receiver of this process (the flow then
    goes to its address and signaling port, as Receiver.flow() gives).
    options are itg-send's words for the flow (they come after the
    address, so a -a or -Sdp among them replaces it); keyword arguments are
    FlowConfig fields (e.g. duration_ns) or Sender settings (wait, log,
    log_batch, log_server, log_server_port, connect_timeout, cpu). Raises
    the flow's error if it failed.
    """
    sender_kw = {k: kw.pop(k) for k in _SENDER_OPTIONS if k in kw}
    flow = to.flow() if isinstance(to, Receiver) else FlowConfig(["-a", to])
    if options:
        flow.parse(options)
    flow.set(**kw)
    with Sender([flow], **sender_kw) as s:
        return s.run()[0]


def close_all() -> None:
    """Frees every sender still open (called at interpreter exit)."""
    for s in list(_live):
        s.close()
