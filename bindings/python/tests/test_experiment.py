"""Experiment files through the binding: placements as the lines give
them, placement on a job, and errors naming their line."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TREE

import itg

TEXT = """# sender, receiver, flow
@1     -a @2        -T UDP -C 1000 -c 512 -t 5000
@beta  -a @gamma    -T TCP -E 200 -t 5000
       -a 10.0.0.2  -C 500 -t 5000
       -a @1        -O 300 -t 5000
"""


def test_flows_as_written() -> None:
    exp = itg.Experiment(TEXT)
    assert len(exp) == 4
    f = exp.flows
    assert [x.line for x in f] == [2, 3, 4, 5]
    assert (f[0].sender, f[0].sender_rank, f[0].sender_host) == ("rank", 1, "")
    assert (f[0].receiver, f[0].receiver_rank) == ("rank", 2)
    assert (f[1].sender, f[1].sender_rank, f[1].sender_host) == ("host", None, "beta")
    assert (f[1].receiver, f[1].receiver_host) == ("host", "gamma")
    assert (f[2].sender, f[2].receiver, f[2].receiver_host) == ("any", "address", "10.0.0.2")
    assert f[2].receiver_rank is None
    assert [round(x.rate, 6) for x in f] == [1000, 200, 500, 300]
    assert f[1].config.proto == "tcp"
    assert f[0].config.size == itg.DistSpec("constant", (512.0,))
    assert f[0].config.dst_host == "@2"
    assert f[2].config.dst_host == "10.0.0.2"
    assert list(exp) == f


def test_place_on_hosts() -> None:
    exp = itg.Experiment(TEXT)
    placed = exp.place(["alpha", "beta", "beta", "gamma"])
    # beta is rank 1 (its first rank), gamma rank 3; ranks 1-3 send. Rank 1
    # carries the two placed flows (1200 pkt/s); the others, heaviest
    # first: 500 to the least loaded, rank 2; 300, whose receiver is rank
    # 1, to rank 3 (0 against rank 2's 500).
    assert placed[0] == itg.Placement(1, 2)
    assert placed[1] == itg.Placement(1, 3)
    assert placed[2] == itg.Placement(2, None)
    assert placed[3] == itg.Placement(3, 1)
    assert exp.place(["alpha", "beta", "beta", "gamma"]) == placed


def test_place_balances_by_rate() -> None:
    text = "".join(f"-a 10.0.0.9 -C {r} -t 1000\n" for r in (300, 1000, 200, 500, 1000))
    exp = itg.Experiment(text)
    placed = exp.place(3)
    assert [p.sender for p in placed] == [2, 1, 2, 1, 2]
    assert all(p.receiver is None for p in placed)
    load = {1: 0.0, 2: 0.0}
    for p, f in zip(placed, exp.flows):
        load[p.sender] += f.rate
    assert load == {1: 1500.0, 2: 1500.0}


def test_errors_name_the_line() -> None:
    with pytest.raises(itg.InvalidArgument, match=r"^line 3: -C: 'abc' is not a number"):
        itg.Experiment("# x\n-a @1 -t 10\n-a @1 -C abc\n")
    with pytest.raises(itg.InvalidArgument, match="line 1: no receiver"):
        itg.Experiment("-C 10 -t 10\n")
    with pytest.raises(itg.InvalidArgument, match="line 1: holds a NUL byte"):
        itg.Experiment(b"-a @1 -t 10\0\n")
    with pytest.raises(itg.InvalidArgument, match="no flow in the experiment"):
        itg.Experiment("# nothing\n")
    exp = itg.Experiment("-a @1 -t 10\n@5 -a @0 -t 10\n")
    with pytest.raises(itg.InvalidArgument, match=r"line 2: @5: no such rank \(the job has 2\)"):
        exp.place(2)
    exp = itg.Experiment("-a @delta -t 10\n")
    with pytest.raises(itg.InvalidArgument, match="line 1: @delta: no rank of the job"):
        exp.place(["alpha", "beta"])
    with pytest.raises(itg.InvalidArgument, match="a job has 1 to"):
        exp.place(0)
    with pytest.raises(itg.InvalidArgument, match="NUL"):
        exp.place(["a\0b"])
    with pytest.raises(TypeError):
        exp.place("alpha")


def test_read_file(tmp_path: Path) -> None:
    path = tmp_path / "two.exp"
    path.write_text("@1 -a @2 -C 10 -t 10\n\n-a @1 -C 20 -t 10\n")
    exp = itg.Experiment.read(path)
    assert [f.line for f in exp] == [1, 3]
    with pytest.raises(itg.NotFound, match="none.exp"):
        itg.Experiment.read(tmp_path / "none.exp")


def test_example_file() -> None:
    exp = itg.Experiment.read(TREE / "examples" / "experiments" / "mixed.exp")
    placed = exp.place(4)
    assert {f.config.proto for f in exp} == {"udp", "tcp"}
    assert all(p.sender != p.receiver for p in placed)
    assert {p.sender for p in placed} >= {1, 2, 3}
