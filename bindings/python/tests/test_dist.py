"""Random laws through the binding: the reference draws of
tests/vectors/dist_draws.txt, and the laws' errors."""
from __future__ import annotations

import math
from typing import List, Tuple

import pytest
from conftest import TREE, vectors_dir

import itg

Law = Tuple[str, List[float], int, List[float]]


def _read_draws() -> List[Law]:
    """The laws of dist_draws.txt: (name, params, seed, draws)."""
    laws: List[Law] = []
    for line in (vectors_dir() / "dist_draws.txt").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = line.split()
        if words[0] == "law":
            assert words[2] == "params" and words[-2] == "seed", line
            laws.append((words[1], [float(w) for w in words[3:-2]], int(words[-1]), []))
        else:
            assert laws, "draws before the first law line"
            laws[-1][3].append(float(line))
    return laws


LAWS = _read_draws()


def test_every_parametric_law_has_reference_draws() -> None:
    names = {name for name, _, _, _ in LAWS}
    assert names == set(itg.dist.KINDS) - {"empirical"}
    assert all(len(draws) == 1000 for _, _, _, draws in LAWS)


@pytest.mark.parametrize("name,params,seed,draws", LAWS,
                         ids=[f"{n}-seed{s}" for n, _, s, _ in LAWS])
def test_draws_equal_the_reference(name: str, params: List[float], seed: int,
                                   draws: List[float]) -> None:
    # The tolerance of tests/test_dist.c: the same C code runs, up to the
    # last bits of the math library's exp, log and pow.
    with itg.Dist(name, params, seed=seed) as d:
        assert d.kind == name
        got = d.draws(len(draws))
    for i, (g, w) in enumerate(zip(got, draws)):
        assert abs(g - w) <= 1e-12 * max(abs(g), abs(w)), f"draw {i}: {g!r} != {w!r}"


def test_same_seed_same_stream_other_seed_other_stream() -> None:
    a = itg.Dist("exponential", [2.0], seed=42).draws(50)
    b = itg.Dist("exponential", [2.0], seed=42).draws(50)
    c = itg.Dist("exponential", [2.0], seed=43).draws(50)
    assert a == b
    assert a != c


@pytest.mark.parametrize("kind,params", [
    ("exponential", [0.0]),      # mean must be > 0
    ("uniform", [5.0, 1.0]),     # min <= max
    ("normal", [1.0]),           # two parameters
    ("pareto", [1.0, math.nan]),
    ("nosuchlaw", [1.0]),
    ("empirical", []),           # made from values, not parameters
])
def test_bad_parameters_raise_invalid_argument(kind: str, params: List[float]) -> None:
    with pytest.raises(itg.InvalidArgument) as info:
        itg.Dist(kind, params, seed=1)
    assert info.value.name == "EINVAL"


def test_mean_and_truncation() -> None:
    d = itg.Dist("uniform", [-2.0, 4.0], seed=3)
    assert d.mean == pytest.approx(1.0)
    assert all(0.0 <= d.next_in(0.0, 1.0) <= 1.0 for _ in range(200))
    assert math.isnan(d.next_in(2.0, 1.0))
    assert math.isnan(itg.Dist("cauchy", [0.0, 1.0], seed=1).mean)


def test_empirical_replays_in_order() -> None:
    d = itg.Dist.empirical([3.0, 1.0, 2.0])
    assert d.kind == "empirical"
    assert d.draws(7) == [3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert d.mean == pytest.approx(2.0)
    with pytest.raises(itg.InvalidArgument):
        itg.Dist.empirical([])


def test_read_trace() -> None:
    values = itg.read_trace(TREE / "tests" / "data" / "flow_idt_ms.txt")
    assert values[:2] == [1.0, 2.5]
    with pytest.raises(itg.Malformed) as info:
        itg.read_trace(TREE / "tests" / "data" / "flow_bad_line.txt")
    assert "line 3" in str(info.value)
    with pytest.raises(itg.NotFound):
        itg.read_trace(TREE / "tests" / "data" / "no_such_trace.txt")


def test_closed_dist_refuses_draws() -> None:
    d = itg.Dist("constant", [1.5], seed=0)
    assert d.next() == 1.5
    d.close()
    with pytest.raises(ValueError):
        d.next()
