"""The exception hierarchy against include/itg/common.h's error table, and
errors raised where a caller meets them."""
from __future__ import annotations

import contextlib
import errno
import pickle
import re
from pathlib import Path
from typing import List, Tuple

import pytest
from conftest import TREE

import itg


def _table() -> List[Tuple[str, int, str]]:
    """(name, value, message) of every XX(...) line of the header's table."""
    text = (TREE / "include" / "itg" / "common.h").read_text()
    rows = re.findall(r'XX\((\w+),\s*(-\d+),\s*"([^"]*)"\)', text)
    assert rows, "error table not found in common.h"
    return [(n, int(v), m) for n, v, m in rows]


TABLE = _table()


@pytest.mark.parametrize("name,value,message", TABLE, ids=[n for n, _, _ in TABLE])
def test_every_code_has_its_class(name: str, value: int, message: str) -> None:
    cls = getattr(itg, name)
    assert issubclass(cls, itg.Error)
    assert cls is not itg.Error
    exc = itg.errors.error_for(value)
    assert type(exc) is cls
    assert exc.code == value
    assert exc.name == name
    assert exc.message == message
    assert str(exc) == f"{message} ({name})"


def test_classes_are_distinct_and_named() -> None:
    classes = [getattr(itg, n) for n, _, _ in TABLE]
    assert len(set(classes)) == len(classes)
    assert itg.InvalidArgument is itg.EINVAL
    assert itg.TimedOut is itg.ETIMEDOUT
    assert issubclass(itg.InvalidArgument, ValueError)


def test_unknown_code_gives_the_base_class() -> None:
    exc = itg.errors.error_for(-9999)
    assert type(exc) is itg.Error
    assert exc.name == "UNKNOWN"


def test_error_pickles() -> None:
    exc = itg.errors.error_for(-1, "-C: 'abc' is not a number")
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is itg.InvalidArgument
    assert (back.code, back.message) == (exc.code, exc.message)


@pytest.mark.parametrize("options,word", [
    ("-T UDP -C abc -c 64", "abc"),
    ("-C 1000 -Q 5", "-Q"),
    ("-c", "-c"),
    ("-T QUIC", "QUIC"),
])
def test_bad_option_names_the_word(options: str, word: str) -> None:
    with pytest.raises(itg.InvalidArgument) as info:
        itg.FlowConfig(options)
    assert info.value.name == "EINVAL"
    assert word in info.value.message


def test_send_with_a_bad_option_raises_before_sending() -> None:
    with pytest.raises(itg.InvalidArgument) as info:
        itg.send("127.0.0.1", "-C 1000 -c 64 -t oops")
    assert "oops" in str(info.value)


def test_bad_fields() -> None:
    with pytest.raises(itg.InvalidArgument) as info:
        itg.FlowConfig(dst_port=70000)  # fixed port: refused
    assert "dst_port" in str(info.value)
    with pytest.raises(itg.InvalidArgument):
        itg.FlowConfig(proto="quic")
    with pytest.raises(itg.InvalidArgument):
        itg.FlowConfig(dst_host="x" * 300)
    with pytest.raises(TypeError):
        itg.FlowConfig(no_such_field=1)
    flow = itg.FlowConfig(duration_ns=0)  # unbounded: refused by validation
    with pytest.raises(itg.InvalidArgument):
        flow.validate()


def test_a_failed_set_changes_nothing() -> None:
    flow = itg.FlowConfig("-C 50")
    with pytest.raises(itg.InvalidArgument):
        flow.set(dst_port=1234, src_port=-1)  # fixed port: refused
    assert flow.dst_port == itg.DEFAULT_DATA_PORT
    with pytest.raises(itg.InvalidArgument):
        flow.parse("-c 100 -C zz")
    assert flow.idt == itg.FlowConfig("-C 50").idt


def test_port_in_use(tmp_path: Path) -> None:
    with itg.Receiver(port=0) as rx:
        with pytest.raises(itg.AddressInUse) as info:
            itg.Receiver(port=rx.port).start()
        assert info.value.name == "EADDRINUSE"


def test_no_receiver_refuses_the_flow(closed_port: int) -> None:
    # Caught as Python's own exception, as a socket's refusal would be.
    with pytest.raises(ConnectionRefusedError) as info:
        itg.send("127.0.0.1", "-C 100 -t 200", sig_port=closed_port, dst_port=0,
                 connect_timeout=2.0)
    assert isinstance(info.value, itg.ConnectionRefused)
    assert info.value.name == "ECONNREFUSED"
    assert info.value.errno == errno.ECONNREFUSED


@pytest.mark.parametrize("cls,builtin,number", [
    (itg.NotFound, FileNotFoundError, errno.ENOENT),
    (itg.ConnectionRefused, ConnectionRefusedError, errno.ECONNREFUSED),
    (itg.TimedOut, TimeoutError, errno.ETIMEDOUT),
])
def test_os_errors_are_pythons_own(cls: type, builtin: type, number: int) -> None:
    exc = itg.errors.error_for(itg.errors.code_of(cls.c_name), "what happened")
    assert type(exc) is cls and isinstance(exc, builtin) and isinstance(exc, OSError)
    assert (exc.errno, exc.strerror) == (number, "what happened")
    assert str(exc) == f"what happened ({cls.c_name})"
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is cls and back.errno == number


def test_decode_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        itg.decode(tmp_path / "nothing.itglog")
    assert isinstance(info.value, itg.NotFound)
    with pytest.raises(itg.InvalidArgument):
        itg.decode([])


def test_add_flow_raises_the_librarys_message() -> None:
    flow = "-a 127.0.0.1 -C 10 -c 64 -z 5"
    with contextlib.closing(itg.Sender()) as s:
        s.add_flow(flow, flow_id=7)
        with pytest.raises(itg.AlreadyExists) as dup:
            s.add_flow(flow, flow_id=7)
        assert dup.value.code == itg.errors.code_of("EEXIST")
        assert dup.value.message == "flow id 7 is already used by flow 1"
        with pytest.raises(itg.InvalidArgument) as want:
            itg.FlowConfig("-a 127.0.0.1 -t 0").validate()
        with pytest.raises(itg.InvalidArgument) as bad:
            s.add_flow("-a 127.0.0.1 -t 0")
        assert "no end" in bad.value.message
        assert bad.value.message == want.value.message
        # D-ITG's SCTP is read, and refused by the sender with the reason.
        with pytest.raises(itg.NotSupported) as sctp:
            s.add_flow("-a 127.0.0.1 -T SCTP -z 5")
        assert sctp.value.message.startswith("-T SCTP: ")
        assert s.flow_count == 1
