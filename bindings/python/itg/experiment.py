"""Experiment files: the flows of a distributed
run, one itg-send script line each, with '@' placements of their sender
and receiver, and their placement on a job's ranks.

    exp = itg.Experiment("@1 -a @2 -C 1000 -t 5000\\n-a @1 -E 200 -t 5000\\n")
    for flow in exp.flows:
        print(flow.line, flow.sender, flow.receiver, flow.rate)
    exp.place(["alpha", "beta", "gamma"])  # [(1, 2), (2, 1)]
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, List, NamedTuple, Optional, Sequence, Union

from ._itg import ffi, lib
from ._util import PathLike, cstr, name_of
from .errors import InvalidArgument, check, code_of
from .flow import FlowConfig

_ERRLEN = 512

WHERE = {"any": lib.ITG_EXPERIMENT_ANY, "rank": lib.ITG_EXPERIMENT_RANK,
         "host": lib.ITG_EXPERIMENT_HOST, "address": lib.ITG_EXPERIMENT_ADDRESS}


@dataclass(frozen=True)
class ExperimentFlow:
    """One flow of an experiment, as its line gives it.

    sender is "any" (placed by Experiment.place), "rank" or "host";
    receiver is "rank", "host" or "address" (outside the job). The rank is
    None and the host "" where they do not apply; receiver_host holds the
    address of an outside receiver. rate is the weight placement gives the
    flow, its mean packet rate in pkt/s.
    """

    line: int
    config: FlowConfig
    sender: str
    sender_rank: Optional[int]
    sender_host: str
    receiver: str
    receiver_rank: Optional[int]
    receiver_host: str
    rate: float


class Placement(NamedTuple):
    """Where one flow runs: its sender rank, and its receiver rank (None
    for a receiver outside the job)."""

    sender: int
    receiver: Optional[int]


def _rank(kind: int, rank: int) -> Optional[int]:
    return int(rank) if kind == lib.ITG_EXPERIMENT_RANK else None


class Experiment:
    """An experiment parsed from text (Experiment(text)) or from a file
    (Experiment.read(path)). A bad line raises itg.InvalidArgument (or
    itg.NotFound for a missing file) whose message starts "line N: ".
    """

    def __init__(self, text: Union[str, bytes]) -> None:
        raw = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        out = ffi.new("itg_experiment **")
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_experiment_parse(raw, len(raw), out, err, _ERRLEN)
        check(rc, cstr(err) or None)
        self._take(out[0])

    @classmethod
    def read(cls, path: PathLike) -> "Experiment":
        """Reads and parses the experiment file at path."""
        out = ffi.new("itg_experiment **")
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_experiment_read(os.fsencode(path), out, err, _ERRLEN)
        check(rc, cstr(err) or None)
        exp = cls.__new__(cls)
        exp._take(out[0])
        return exp

    def _take(self, c: Any) -> None:
        self._c = ffi.gc(c, lib.itg_experiment_free)
        self._flows = [self._flow(i) for i in range(lib.itg_experiment_count(c))]

    def _flow(self, i: int) -> ExperimentFlow:
        cfg = FlowConfig._blank()
        check(lib.itg_experiment_flow_cfg(self._c, i, cfg._c))
        f = ffi.new("itg_experiment_flow *")
        check(lib.itg_experiment_flow_at(self._c, i, f))
        return ExperimentFlow(
            line=int(f.line), config=cfg,
            sender=name_of(WHERE, f.sender), sender_rank=_rank(f.sender, f.sender_rank),
            sender_host=cstr(f.sender_host),
            receiver=name_of(WHERE, f.receiver),
            receiver_rank=_rank(f.receiver, f.receiver_rank),
            receiver_host=cstr(f.receiver_host), rate=float(f.rate))

    @property
    def flows(self) -> List[ExperimentFlow]:
        """The flows in line order."""
        return list(self._flows)

    def __len__(self) -> int:
        return len(self._flows)

    def __iter__(self) -> Iterator[ExperimentFlow]:
        return iter(self._flows)

    def place(self, job: Union[int, Sequence[str]]) -> List[Placement]:
        """Places the flows on a job: its number of ranks, or the host name
        of each rank (rank r runs on job[r]). Returns one Placement per
        flow, in line order; a rank or host the job lacks raises
        itg.InvalidArgument naming the line."""
        c_job = ffi.new("itg_experiment_job *")
        lib.itg_experiment_job_init(c_job)
        keep: List[Any] = []
        if isinstance(job, int) and not isinstance(job, bool):
            nranks = job
        elif isinstance(job, (str, bytes)) or not isinstance(job, Sequence):
            raise TypeError("job must be a number of ranks or a sequence of host names")
        else:
            nranks = len(job)
            raw = [os.fsencode(h) for h in job]
            if any(b"\0" in h for h in raw):
                raise InvalidArgument(code_of("EINVAL"), "a host name contains a NUL character")
            keep = [ffi.new("char[]", h) for h in raw]
            hosts = ffi.new("const char *[]", keep or [ffi.NULL])
            keep.append(hosts)
            c_job.hosts = hosts
        try:
            c_job.nranks = nranks
        except OverflowError:
            raise InvalidArgument(code_of("EINVAL"), f"{nranks} ranks: out of range") from None
        n = len(self._flows)
        senders = ffi.new("int[]", max(n, 1))
        receivers = ffi.new("int[]", max(n, 1))
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_experiment_place(self._c, c_job, senders, receivers, n, err, _ERRLEN)
        check(rc, cstr(err) or None)
        return [Placement(int(senders[i]), None if receivers[i] < 0 else int(receivers[i]))
                for i in range(n)]

    def __repr__(self) -> str:
        return f"<itg.Experiment of {len(self._flows)} flows>"
