#!/usr/bin/env python3
"""The layering check (layers.py) on two small trees built here: a clean
one it must pass, and one with a violation of each kind (includes, a
thread call in core/, _WIN32 outside platform/, a cycle of calls) that it must report, each once,
and nothing else.

Usage: layers_test.py [CC]   (default: cc)
"""
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CC = shlex.split(sys.argv[1] if len(sys.argv) > 1 else "cc")

CLEAN = {
    "include/itg.h": '#include "itg/common.h"\n',
    "include/itg/common.h": "int itg_version(void);\n",
    "libitg/platform/platform.h": '#include "itg/common.h"\n'
                                  "int itg__plat(void);\n",
    "libitg/platform/plat.c": '#include "platform/platform.h"\n'
                              "#ifdef _WIN32\n#endif\n"
                              "int itg__plat(void) { return 1; }\n",
    "libitg/core/calc.h": "int itg__calc(int x);\n",
    # Names of forbidden calls in a comment and a string are not calls.
    "libitg/core/calc.c": '#include "core/calc.h"\n'
                          '#include "platform/platform.h"\n'
                          "/* never uv_mutex_lock(&m) here */\n"
                          'const char *itg__calc_note = "socket(";\n'
                          "int itg__calc(int x) { return x + itg__plat(); }\n",
    "libitg/log/log.c": '#include "core/calc.h"\n'
                        "int itg__log(int x);\n"
                        "int itg__log(int x) { return itg__calc(x); }\n",
    "libitg/engine/eng_internal.h": "int itg__eng_b(void);\n"
                                    "int itg__eng_c(void);\n",
    "libitg/engine/eng.c": '#include "engine/eng_internal.h"\n'
                           "int itg__eng(void);\n"
                           "int itg__eng(void) { return itg__eng_b(); }\n",
    "libitg/engine/eng_b.c": '#include "eng_internal.h"\n'
                             "int itg__eng_b(void) { return itg__eng_c(); }\n",
    "libitg/engine/eng_c.c": '#include "engine/eng_internal.h"\n'
                             "int itg__eng_c(void) { return 3; }\n",
    "libitg/programs/cli.h": "int cli(void);\n",
    "libitg/programs/itg-x.c": '#include "itg.h"\n#include "programs/cli.h"\n'
                               "int main(void) { return itg_version(); }\n",
}

# One violation of each kind, and the line that must report it.
DIRTY = dict(CLEAN)
DIRTY.update({
    # core/ includes engine/; a program includes core/; another module's
    # internal header.
    "libitg/core/calc.c": '#include "core/calc.h"\n'
                          '#include "engine/eng_internal.h"\n'
                          '#include "platform/platform.h"\n'
                          "static int m;\n"
                          "int itg__calc(int x) {\n"
                          "  uv_mutex_lock(&m);\n"
                          "  return x + uv_mutex_lock (&m);\n"
                          "}\n",
    "libitg/programs/itg-x.c": '#include "itg.h"\n#include "core/calc.h"\n'
                               "int main(void) { return itg_version(); }\n",
    "libitg/log/log.c": '#include "engine/eng_internal.h"\n'
                        "#ifdef _WIN32\n#endif\n"
                        "int itg__log(int x);\n"
                        "int itg__log(int x) { return x; }\n",
    "libitg/platform/platform.h": CLEAN["libitg/platform/platform.h"] +
                                  "int uv_mutex_lock(void *m);\n",
    # eng -> eng_b -> eng_c -> eng: a cycle of three files.
    "libitg/engine/eng_c.c": '#include "engine/eng_internal.h"\n'
                             "int itg__eng(void);\n"
                             "int itg__eng_c(void) { return itg__eng(); }\n",
})
EXPECT = [
    "layers: include  libitg/core/calc.c:2: core/ may not include "
    "libitg/engine/eng_internal.h",
    "layers: include  libitg/log/log.c:1: log/ may not include "
    "libitg/engine/eng_internal.h",
    "layers: include  libitg/programs/itg-x.c:2: programs/ may not include "
    "libitg/core/calc.h",
    "layers: call     libitg/core/calc.c: core/ owns no threads, locks or "
    "sockets, but calls uv_mutex_lock() (lines 6, 7)",
    "layers: os       libitg/log/log.c: only platform/ tests _WIN32 (line 2)",
    "layers: cycle    libitg/engine/: eng.c eng_b.c eng_c.c call one another "
    "round; e.g. eng.c -> eng_b.c -> eng_c.c -> eng.c",
]
# Inside one folder: another file's _internal.h.
INTERNAL = dict(CLEAN)
INTERNAL["libitg/engine/other.c"] = ('#include "engine/eng_internal.h"\n'
                                     "int itg__other(void);\n"
                                     "int itg__other(void) { return 0; }\n")
EXPECT_INTERNAL = ["layers: include  libitg/engine/other.c:1: "
                   "libitg/engine/eng_internal.h belongs to eng*.c of its "
                   "folder only"]


def build(top, files):
    """Writes the tree and compiles its sources into top/build/obj."""
    for path, text in files.items():
        full = os.path.join(top, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    for path in files:
        if path.endswith(".c"):
            obj = os.path.join(top, "build", "obj", path[:-2] + ".o")
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            subprocess.run(CC + ["-c", "-I", os.path.join(top, "include"),
                            "-I", os.path.join(top, "libitg"),
                            os.path.join(top, path), "-o", obj], check=True)


def layers(top):
    res = subprocess.run([sys.executable, os.path.join(HERE, "layers.py"),
                          "--root", top], capture_output=True, text=True)
    return res.returncode, res.stdout + res.stderr


failed = 0


def check(desc, ok, output=""):
    global failed
    print(("  ok: " if ok else "  FAILED: ") + desc)
    if not ok:
        failed += 1
        print(output)


def expect_exactly(name, files, expect):
    with tempfile.TemporaryDirectory(prefix="itg-layers-") as top:
        build(top, files)
        rc, out = layers(top)
    check(f"the {name} tree fails", rc == 1, out)
    found = [l for l in out.splitlines() if not l.startswith("layers: ") or
             l.split()[1] in ("include", "call", "os", "cycle")]
    for line in expect:
        check(f"reported: {line}", sum(l.startswith(line) for l in found) == 1,
              out)
    check(f"nothing else reported ({len(expect)} violations)",
          len(found) == len(expect) and
          f"layers: {len(expect)} violation" in out, out)


with tempfile.TemporaryDirectory(prefix="itg-layers-") as top:
    build(top, CLEAN)
    rc, out = layers(top)
    check("the clean tree passes", rc == 0 and out.strip() == "layers: ok", out)
expect_exactly("dirty", DIRTY, EXPECT)
expect_exactly("foreign internal header", INTERNAL, EXPECT_INTERNAL)
with tempfile.TemporaryDirectory(prefix="itg-layers-") as top:
    build(top, {k: v for k, v in CLEAN.items()})
    subprocess.run(["rm", "-rf", os.path.join(top, "build")], check=True)
    rc, out = layers(top)
    check("without objects it cannot check and says so (status 2)",
          rc == 2 and "build first" in out, out)

print(f"layers self-test: {'ok' if not failed else f'{failed} failed'}")
sys.exit(1 if failed else 0)
