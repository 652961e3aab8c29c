"""Shared helpers of the binding's tests: where the tree's test vectors and
programs are, a loopback port nothing listens on, and a reader of the
vector files. Receivers listen on port 0 and flows ask for data port 0:
the system picks, so that runs on one machine never collide."""
from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

HERE = Path(__file__).resolve().parent
TREE = HERE.parent.parent.parent


def vectors_dir() -> Path:
    """tests/vectors of the tree, or $ITG_VECTORS (as the C tests find them)."""
    return Path(os.environ.get("ITG_VECTORS") or TREE / "tests" / "vectors")


def bin_dir() -> Path:
    """The programs of the build the tests run against ($ITG_BIN, else build/bin)."""
    return Path(os.environ.get("ITG_BIN") or TREE / "build" / "bin")


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A TCP port of 127.0.0.1 held bound but not listening for the test:
    a connection to it is refused, and no other program can take it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


Vector = Dict[str, str]


def read_vectors(name: str) -> List[Tuple[str, Vector]]:
    """The vectors of one file, in order, as (name, {key: value}).

    The syntax is tests/vectors/README.md's; a malformed line fails.
    """
    path = vectors_dir() / name
    vectors: List[Tuple[str, Vector]] = []
    last_key = None
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{path}:{lineno}"
        if line[0] in " \t":
            assert vectors and last_key, f"{where}: continuation without a key"
            fields = vectors[-1][1]
            fields[last_key] = f"{fields[last_key]} {stripped}"
        elif stripped.startswith("[") and stripped.endswith("]"):
            vec_name = stripped[1:-1]
            assert all(vec_name != n for n, _ in vectors), f"{where}: duplicate [{vec_name}]"
            vectors.append((vec_name, {}))
            last_key = None
        else:
            key, sep, value = stripped.partition("=")
            assert sep and vectors, f"{where}: not 'key = value' inside a vector"
            last_key = key.strip()
            vectors[-1][1][last_key] = value.strip()
    assert vectors, f"{path}: no vectors"
    return vectors


def vec_int(v: Vector, key: str) -> int:
    """An integer field: decimal (optionally negative) or 0x hexadecimal."""
    text = v[key]
    return int(text, 16) if text.lower().startswith("0x") else int(text, 10)


def vec_bytes(v: Vector) -> bytes:
    return bytes.fromhex("".join(v.get("bytes", "").split()))
