#!/usr/bin/env python3
"""Checks the layering rules of libitg/LAYERS.md and prints one line per
violation:

  include  a file includes a header its folder may not (from its
           #include "..." lines), or another file's NAME_internal.h;
  call     a file of core/ calls a thread, lock or socket function;
  os       a file outside platform/ tests _WIN32;
  cycle    files of one folder call each other round in a cycle (from the
           built objects: what each defines and leaves undefined, by nm).

Exits 0 when there is none, 1 when there is any, 2 when it cannot check
(no objects built: run make first).

Usage: layers.py [--root DIR] [--build DIR]
  --root   the source tree (default: the one holding this script)
  --build  the build directory whose obj/ holds the objects (default:
           ROOT/build)
"""
import argparse
import os
import re
import subprocess
import sys

# What the files of each folder of libitg/ may include: folders, "public"
# (include/itg.h and include/itg/*.h), or single headers.
MAY_INCLUDE = {
    "platform": {"platform", "public"},
    "core": {"core", "platform", "public"},
    "log": {"log", "core", "platform", "public"},
    "engine": {"engine", "log", "core", "platform", "public"},
    "mpi": {"mpi", "engine", "log", "core", "platform", "public"},
    "programs": {"public", "libitg/programs/cli.h",
                 "libitg/programs/report.h", "libitg/programs/ditg_out.h",
                 "libitg/programs/json.h", "libitg/programs/run_report.h",
                 "libitg/programs/agent_cli.h"},
}

# Threads, locks and sockets, which core/ may not own.
FORBIDDEN_IN_CORE = re.compile(
    r"\b(uv_(?:thread|mutex|rwlock|cond|sem|barrier|key|udp|tcp|pipe|poll)_\w+"
    r"|pthread_\w+|socket|socketpair"
    r"|itg__sock_\w+|itg__(?:send|recv)_batch|itg__stream_(?:send|recv)"
    r"|itg__thread_\w+)\s*\(")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".c", ".h")


def rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


def folder_of(relpath):
    """The layer a repository path belongs to: "public" for the public
    headers, the first folder under libitg/ for the library's files."""
    parts = relpath.split("/")
    if relpath == "include/itg.h" or parts[:2] == ["include", "itg"]:
        return "public"
    if parts[0] == "libitg" and len(parts) > 2:
        return parts[1]
    return None


def library_files(root):
    """Every .c and .h under libitg/, as repository paths, sorted."""
    out = []
    for d, _, names in os.walk(os.path.join(root, "libitg")):
        for n in names:
            if n.endswith(SOURCES):
                out.append(rel(root, os.path.join(d, n)))
    return sorted(out)


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked
    (newlines kept, so line numbers hold)."""
    pattern = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                         r"'(?:\\.|[^'\\\n])*'", re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def resolve(root, path, name):
    """Where #include "name" in path leads, as C looks for it: beside the
    file, then in include/ and libitg/ (the build's -I)."""
    for base in (os.path.dirname(path), "include", "libitg"):
        cand = os.path.normpath(os.path.join(root, base, name))
        if os.path.isfile(cand):
            return rel(root, cand)
    return None


def check_includes(root, files, out):
    for path in files:
        folder = folder_of(path)
        allowed = MAY_INCLUDE.get(folder)
        if allowed is None:
            out.append(f"include  {path}: libitg/{folder}/ is a folder the "
                       "layering does not name (add it to libitg/LAYERS.md "
                       "and tests/check/layers.py)")
            continue
        with open(os.path.join(root, path), encoding="utf-8",
                  errors="replace") as f:
            lines = f.read().split("\n")
        for no, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(root, path, m.group(1))
            if target is None:
                out.append(f'include  {path}:{no}: "{m.group(1)}" is not '
                           "in the tree")
                continue
            where = folder_of(target)
            if where not in allowed and target not in allowed:
                out.append(f"include  {path}:{no}: {folder}/ may not include "
                           f"{target} (may: {', '.join(sorted(allowed))})")
                continue
            base = os.path.basename(target)
            if base.endswith("_internal.h"):
                owner = base[:-len("_internal.h")]
                mine = os.path.basename(path)
                if (not mine.startswith(owner) or
                        os.path.dirname(target) != os.path.dirname(path)):
                    out.append(f"include  {path}:{no}: {target} belongs to "
                               f"{owner}*.c of its folder only")


def check_core_calls(root, files, out):
    for path in files:
        if folder_of(path) != "core":
            continue
        with open(os.path.join(root, path), encoding="utf-8",
                  errors="replace") as f:
            text = strip_comments_and_strings(f.read())
        calls = {}
        for no, line in enumerate(text.split("\n"), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in FORBIDDEN_IN_CORE.finditer(line):
                calls.setdefault(m.group(1), []).append(str(no))
        for name in sorted(calls):
            out.append(f"call     {path}: core/ owns no threads, locks or "
                       f"sockets, but calls {name}() (line"
                       f"{'s' if len(calls[name]) > 1 else ''} "
                       f"{', '.join(calls[name])})")


def check_os_tests(root, files, out):
    for path in files:
        if folder_of(path) == "platform":
            continue
        with open(os.path.join(root, path), encoding="utf-8",
                  errors="replace") as f:
            text = strip_comments_and_strings(f.read())
        lines = [str(no) for no, line in enumerate(text.split("\n"), 1)
                 if re.search(r"\b_WIN32\b", line)]
        if lines:
            out.append(f"os       {path}: only platform/ tests _WIN32 (line"
                       f"{'s' if len(lines) > 1 else ''} {', '.join(lines)})")


def symbols(obj):
    """(defined, undefined) global symbols of an object file, by nm."""
    res = subprocess.run(["nm", "-P", obj], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"layers: nm {obj}: {res.stderr.strip()}")
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def strongly_connected(nodes, edges):
    """Tarjan's components of the graph, each a sorted list."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return comps


def shortest_cycle(start, edges, within):
    """The shortest path from start back to itself inside within."""
    prev, frontier, seen = {}, [start], {start}
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, ())):
                if w not in within:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in seen:
                    seen.add(w)
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return [start]


def check_cycles(root, build, files, out):
    """Builds, per folder, the graph "file A calls a function file B
    defines" from the objects of the sources that exist, and reports each
    group of files that reach one another."""
    objdir = os.path.join(build, "obj")
    sources = [p for p in files if p.endswith(".c")]
    by_folder = {}
    for src in sources:
        obj = os.path.join(objdir, src[:-2] + ".o")
        if os.path.isfile(obj):
            by_folder.setdefault(folder_of(src), []).append((src, obj))
    if not by_folder:
        print(f"layers: no objects under {objdir}/libitg: build first "
              "(make)", file=sys.stderr)
        sys.exit(2)
    for folder in sorted(by_folder):
        syms = {src: symbols(obj) for src, obj in by_folder[folder]}
        definer = {}
        for src, (defined, _) in syms.items():
            for s in defined:
                definer[s] = src
        edges, why = {}, {}
        for src, (_, undefined) in syms.items():
            for s in sorted(undefined):
                dst = definer.get(s)
                if dst and dst != src:
                    edges.setdefault(src, set()).add(dst)
                    why.setdefault((src, dst), s)
        for comp in strongly_connected(syms, edges):
            if len(comp) < 2:
                continue
            cycle = shortest_cycle(comp[0], edges, set(comp))
            steps = "; ".join(
                f"{os.path.basename(a)} calls {why[(a, b)]}() of "
                f"{os.path.basename(b)}" for a, b in zip(cycle, cycle[1:]))
            names = " ".join(os.path.basename(c) for c in comp)
            out.append(f"cycle    libitg/{folder}/: {names} call one another "
                       f"round; e.g. "
                       f"{' -> '.join(os.path.basename(c) for c in cycle)} "
                       f"({steps})")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(
        os.path.join(here, "..", "..")))
    ap.add_argument("--build")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    build = os.path.abspath(args.build or os.path.join(root, "build"))

    files = library_files(root)
    out = []
    check_includes(root, files, out)
    check_core_calls(root, files, out)
    check_os_tests(root, files, out)
    check_cycles(root, build, files, out)
    for line in out:
        print("layers: " + line)
    if out:
        print(f"layers: {len(out)} violation{'s' if len(out) > 1 else ''} of "
              "the rules in libitg/LAYERS.md")
        return 1
    print("layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
