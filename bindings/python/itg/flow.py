"""Flow settings: one flow of a sender.

A FlowConfig is described by the same option words itg-send takes ("-T UDP
-C 1000 -c 64 -t 1000", parsed by the library), by keyword arguments named
after the fields of itg_flow_cfg, or both: options first, then fields.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, Sequence, Tuple, Union

from ._itg import ffi, lib
from ._util import cstr, encode_text, name_of, value_of
from .dist import kind_name, kind_value
from .errors import InvalidArgument, check, code_of, error_for
from .wire import PROFILES

# Options for a flow: a string (one line of an itg-send script) or a list
# of option words.
Options = Union[str, Sequence[str]]

_ERRLEN = 256

PROTOS = {"udp": lib.ITG_PROTO_UDP, "tcp": lib.ITG_PROTO_TCP, "sctp": lib.ITG_PROTO_SCTP,
          "dccp": lib.ITG_PROTO_DCCP, "icmp": lib.ITG_PROTO_ICMP}
METERS = {ffi.string(lib.itg_meter_name(m)).decode(): m
          for m in (lib.ITG_METER_OWD, lib.ITG_METER_RTT)}


@dataclass(frozen=True)
class DistSpec:
    """A law for a flow's inter-departure times or sizes.

    The law draws in its own unit; a draw times `scale` gives seconds (IDT)
    or bytes (size). kind "empirical" with `file` set replays a trace file.
    E.g. DistSpec("constant", (0.001,)) is -C 1000, DistSpec("normal", (10, 2),
    scale=1e-3) is -N 10 2.
    """

    kind: str
    params: Tuple[float, ...] = ()
    scale: float = 1.0
    file: str = ""


def _spec_to_c(spec: DistSpec, out: Any, field: str) -> None:
    if not isinstance(spec, DistSpec):
        raise TypeError(f"{field} must be an itg.DistSpec")
    params = tuple(float(p) for p in spec.params)
    if len(params) > lib.ITG_DIST_MAX_PARAMS:
        raise InvalidArgument(code_of("EINVAL"), f"{field}: too many parameters")
    out.kind = kind_value(spec.kind)
    out.p = list(params) + [0.0] * (lib.ITG_DIST_MAX_PARAMS - len(params))
    out.scale = float(spec.scale)
    out.file = encode_text(spec.file, f"{field}.file", ffi.sizeof(out.file))


def _spec_from_c(c: Any) -> DistSpec:
    n = lib.itg_dist_kind_nparams(c.kind)
    return DistSpec(kind=kind_name(c.kind), params=tuple(c.p[i] for i in range(max(n, 0))),
                    scale=c.scale, file=cstr(c.file))


_INT_FIELDS = ("flow_id", "dst_port", "src_port", "sig_port", "duration_ns",
               "max_packets", "max_bytes", "start_delay_ns", "seed", "has_seed",
               "tos", "ttl")
_TEXT_FIELDS = ("dst_host", "src_host", "recv_log")
_ENUM_FIELDS: Dict[str, Dict[str, int]] = {"proto": PROTOS, "meter": METERS,
                                           "wire": PROFILES}
FIELDS: Tuple[str, ...] = (_INT_FIELDS + _TEXT_FIELDS + tuple(_ENUM_FIELDS)
                           + ("nodelay", "idt", "size"))


def _words(options: Sequence[str]) -> Any:
    raw = [ffi.new("char[]", os.fsencode(w)) for w in options]
    return raw, ffi.new("const char *[]", raw or [ffi.NULL])


class FlowConfig:
    """One flow's settings, over the library's itg_flow_cfg.

    FlowConfig("-a 10.0.0.2 -T TCP -C 500 -c 1024 -t 5000") or
    FlowConfig(dst_host="10.0.0.2", proto="tcp", duration_ns=5_000_000_000).
    Fields read back as attributes (flow.dst_port, flow.idt, ...). Enum
    fields take and give names: proto "udp"/"tcp", meter "owd"/"rtt", wire
    "native"/"ditg"; idt and size are DistSpec; setting seed also sets
    has_seed. A bad option or field raises itg.InvalidArgument (or
    itg.NotFound for a missing trace file) whose message names it.
    """

    def __init__(self, options: Options | None = None, **fields: Any) -> None:
        object.__setattr__(self, "_c", ffi.new("itg_flow_cfg *"))
        lib.itg_flow_cfg_init(self._c)
        if options is not None:
            self.parse(options)
        self.set(**fields)

    def parse(self, options: Options) -> "FlowConfig":
        """Applies options on top of the current settings (left to right).

        A string is one line of an itg-send script (quotes group words, '#'
        starts a comment); a sequence is the words themselves. On error the
        settings are left unchanged.
        """
        err = ffi.new("char[]", _ERRLEN)
        if isinstance(options, str):
            rc = lib.itg_flow_parse_line(self._c, options.encode("utf-8"), err, _ERRLEN)
        else:
            keep, argv = _words(list(options))
            rc = lib.itg_flow_parse_args(self._c, len(keep), argv, err, _ERRLEN)
        check(rc, cstr(err) or None)
        return self

    def set(self, **fields: Any) -> "FlowConfig":
        """Sets fields by name (those of itg_flow_cfg); all or none are applied."""
        trial = self.copy()
        for name, value in fields.items():
            trial._set_field(name, value)
        ffi.memmove(self._c, trial._c, ffi.sizeof("itg_flow_cfg"))
        return self

    def _set_field(self, name: str, value: Any) -> None:
        c = self._c
        try:
            if name in _INT_FIELDS:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise InvalidArgument(code_of("EINVAL"),
                                          f"{name}: {value!r} is not an integer")
                setattr(c, name, value)
                if name == "seed":
                    c.has_seed = 1
            elif name in _TEXT_FIELDS:
                setattr(c, name, encode_text(value, name, ffi.sizeof(getattr(c, name))))
            elif name in _ENUM_FIELDS:
                setattr(c, name, value_of(_ENUM_FIELDS[name], value, name))
            elif name == "nodelay":
                c.nodelay = int(bool(value))
            elif name in ("idt", "size"):
                _spec_to_c(value, getattr(c, name), name)
            else:
                raise TypeError(f"FlowConfig has no field {name!r}")
        except OverflowError:
            raise InvalidArgument(code_of("EINVAL"),
                                  f"{name}: {value!r} is out of range") from None

    def get(self, name: str) -> Any:
        """A field's value by name."""
        c = self._c
        if name in _INT_FIELDS:
            return int(getattr(c, name))
        if name in _TEXT_FIELDS:
            return cstr(getattr(c, name))
        if name in _ENUM_FIELDS:
            return name_of(_ENUM_FIELDS[name], getattr(c, name))
        if name == "nodelay":
            return bool(c.nodelay)
        if name in ("idt", "size"):
            return _spec_from_c(getattr(c, name))
        raise AttributeError(f"FlowConfig has no field {name!r}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.set(**{name: value})

    def as_dict(self) -> Dict[str, Any]:
        return {name: self.get(name) for name in FIELDS}

    @classmethod
    def _blank(cls) -> "FlowConfig":
        """A FlowConfig over zeroed memory, for the caller to fill."""
        other = cls.__new__(cls)
        object.__setattr__(other, "_c", ffi.new("itg_flow_cfg *"))
        return other

    def copy(self) -> "FlowConfig":
        other = FlowConfig._blank()
        ffi.memmove(other._c, self._c, ffi.sizeof("itg_flow_cfg"))
        return other

    def validate(self) -> None:
        """Checks the flow as the sender will; raises with the library's message."""
        err = ffi.new("char[]", _ERRLEN)
        rc = lib.itg_flow_validate(self._c, err, _ERRLEN)
        if rc < 0:
            raise error_for(rc, cstr(err) or None)

    def describe(self) -> str:
        """A one-line description, e.g. "UDP 127.0.0.1:8999 IDT constant(...) ..."."""
        buf = ffi.new("char[]", 512)
        lib.itg_flow_describe(self._c, buf, 512)
        return cstr(buf)

    def __repr__(self) -> str:
        return f"<itg.FlowConfig {self.describe()}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FlowConfig):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]
