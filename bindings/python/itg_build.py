"""Builds the cffi extension itg._itg (out-of-line API mode).

The declarations given to cffi are derived from the public headers rather
than copied into this file: the C preprocessor expands include/itg.h with
empty stand-ins for <stddef.h> and <stdint.h> (cffi knows size_t and the
fixed-width types itself), which also expands the error table's X-macro
into the enum; the integer and floating-point #define constants come from
the preprocessor's macro dump. cffi then compiles a C file that includes
itg.h, so every declaration is checked by the compiler against the real
header.

Where the library comes from:
  an sdist         libitg's C sources and headers beside this file (the
                   sdist command of setup.py puts them there): they are
                   compiled into the extension, with the system's libuv and
                   GSL (development packages) found through pkg-config.
  default          this source tree: include/ and BUILD/lib/libitg.a, with
                   BUILD = $ITG_BUILD_DIR (default <tree>/build; run `make`
                   first). The static library is linked into the extension,
                   so the installed package does not depend on the build
                   tree staying where it is (no rpath into build/, no
                   LD_LIBRARY_PATH); libuv and GSL, which libitg uses, are
                   linked as the system's shared libraries through
                   pkg-config.
  ITG_USE_SYSTEM=1 an installed libitg found with pkg-config (its shared
  or ITG_PREFIX    library, with an rpath to its libdir); ITG_PREFIX=/opt/x
                   looks in /opt/x/lib/pkgconfig first.
Other variables: ITG_SOURCE_DIR (the tree, default two directories up),
ITG_SANITIZE (e.g. "address,undefined": link the sanitizer runtimes, for a
library built with SAN=1), CC (the compiler used to preprocess).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

from cffi import FFI

HERE = Path(__file__).resolve().parent

# Helpers compiled into the extension. itgpy_read_records keeps the loop
# over a log file's records in C, so reading a large log into an array does
# not cross into Python once per record.
HELPERS_C = r"""
static int itgpy_read_records(itg_logreader *r, itg_logrec *out, size_t max,
                              size_t *got)
{
  size_t i = 0;
  int rc = 1;
  while (i < max) {
    rc = itg_logreader_next(r, &out[i]);
    if (rc != 1)
      break;
    i++;
  }
  *got = i;
  return rc;
}

/* itg_remote_status and itg_remote_rx_flow, macros named as their struct
 * types are: cffi cannot declare functions of those names, C expands the
 * macros here. */
static int itgpy_remote_status(itg_remote *r, itg_remote_status *st)
{
  return itg_remote_status(r, st);
}

static int itgpy_remote_rx_flow(const itg_remote *r, size_t i,
                                itg_remote_rx_flow *out)
{
  return itg_remote_rx_flow(r, i, out);
}
"""

# The public API's growable structs are filled and read through macros
# that pass sizeof at the caller's compile time to an itg_*_size function
# (include/itg/common.h). The preprocessed headers hold only the _size
# functions; these declare the macros as functions, which cffi's API mode
# compiles as calls in C, so the sizes are the ones of the headers the
# extension is built with.
SIZED_CDEF = """
int itg_flow_cfg_init(itg_flow_cfg *cfg);
int itg_sender_cfg_init(itg_sender_cfg *cfg);
int itg_receiver_cfg_init(itg_receiver_cfg *cfg);
int itg_logger_cfg_init(itg_logger_cfg *cfg);
int itg_logserver_cfg_init(itg_logserver_cfg *cfg);
int itg_sender_flow_result(const itg_sender *s, size_t i, itg_flow_result *out);
int itg_sender_log_stats(const itg_sender *s, itg_logger_stats *out,
                         char *spill, size_t len);
int itg_receiver_get_stats(itg_receiver *r, itg_receiver_stats *out);
int itg_logger_get_stats(itg_logger *l, itg_logger_stats *out);
int itg_logger_close_stats(itg_logger *l, itg_logger_stats *final);
int itg_logserver_get_stats(itg_logserver *s, itg_logserver_stats *out);
int itg_pacer_get_stats(const itg_pacer *p, itg_pacer_stats *out);
int itg_stats_flow(const itg_stats *s, size_t i, itg_flow_stats *out);
int itg_stats_total(const itg_stats *s, itg_stats_meter meter,
                    itg_flow_stats *out);
int itg_series_get(const itg_series *s, size_t flow, size_t interval,
                   itg_series_point *out);
int itg_decode_files(const char *const *paths, size_t n, itg_stats *stats,
                     itg_series *series, itg_decode_status *st);
int itg_experiment_flow_cfg(const itg_experiment *e, size_t i, itg_flow_cfg *out);
int itg_experiment_flow_at(const itg_experiment *e, size_t i,
                           itg_experiment_flow *out);
int itg_experiment_job_init(itg_experiment_job *job);
int itg_remote_results(itg_remote *r, int64_t wait_ns, itg_remote_status *st);
int itg_remote_flow_result(const itg_remote *r, size_t i, itg_flow_result *out);
int itg_agent_cfg_init(itg_agent_cfg *cfg);
"""

HELPERS_CDEF = """
int itgpy_read_records(itg_logreader *r, itg_logrec *out, size_t max,
                       size_t *got);
int itgpy_remote_status(itg_remote *r, itg_remote_status *st);
int itgpy_remote_rx_flow(const itg_remote *r, size_t i, itg_remote_rx_flow *out);
extern "Python" void itgpy_on_records(const itg_logrec *recs, size_t n,
                                      void *user);
extern "Python" void itgpy_on_flow(const itg_flow_event *ev, void *user);
extern "Python" int itgpy_on_log_data(const void *data, size_t len, void *user);
"""


class BuildError(RuntimeError):
    pass


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "no", "false")


def _run(cmd: List[str], env: Dict[str, str] | None = None) -> str:
    try:
        res = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    except FileNotFoundError as exc:
        raise BuildError(f"cannot run {cmd[0]!r}: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        raise BuildError(f"{' '.join(cmd)} failed:\n{exc.stderr}") from exc
    return res.stdout


def _compiler() -> List[str]:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(cc)


def _preprocess(include_dir: Path, dump_macros: bool) -> str:
    """Runs the preprocessor over itg.h with empty system headers."""
    with tempfile.TemporaryDirectory() as fake:
        for name in ("stddef.h", "stdint.h"):
            Path(fake, name).write_text("")
        cmd = _compiler() + ["-E", "-nostdinc", "-I", fake, "-I", str(include_dir)]
        cmd += ["-dM"] if dump_macros else ["-P", "-D__attribute__(x)="]
        cmd.append(str(include_dir / "itg.h"))
        return _run(cmd)


_INT_RE = re.compile(r"^\(?\s*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*(\s*<<\s*\d+)?\s*\)?$")
_FLOAT_RE = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")


def _constants(include_dir: Path) -> str:
    """cdef lines for the public object-like macros with a numeric value."""
    lines = []
    for line in _preprocess(include_dir, dump_macros=True).splitlines():
        m = re.match(r"#define (ITG_[A-Z0-9_]+)(\s+(.*))?$", line)
        if not m or m.group(1).startswith("ITG__"):
            continue
        name, value = m.group(1), (m.group(3) or "").strip()
        if _INT_RE.match(value) or value == "((size_t)-1)":
            lines.append(f"#define {name} ...")
        elif _FLOAT_RE.match(value) and any(c in value for c in ".eE"):
            lines.append(f"static const double {name};")
    return "\n".join(sorted(lines))


def _declarations(include_dir: Path) -> str:
    return _preprocess(include_dir, dump_macros=False)


def _pkg_config(args: List[str], env: Dict[str, str] | None = None) -> List[str]:
    pc = os.environ.get("PKG_CONFIG", "pkg-config")
    return shlex.split(_run([pc] + args, env=env))


def _split_flags(flags: List[str]) -> Tuple[List[str], List[str], List[str], List[str]]:
    """Splits compiler/linker flags into include dirs, lib dirs, libs, rest."""
    incs, libdirs, libs, rest = [], [], [], []
    for f in flags:
        if f.startswith("-I"):
            incs.append(f[2:])
        elif f.startswith("-L"):
            libdirs.append(f[2:])
        elif f.startswith("-l"):
            libs.append(f[2:])
        else:
            rest.append(f)
    return incs, libdirs, libs, rest


def _tree_root() -> Path:
    return Path(os.environ.get("ITG_SOURCE_DIR") or HERE.parent.parent).resolve()


def source_root() -> Path:
    """Where libitg's sources are: beside this file in an sdist, else the tree."""
    return HERE if bundled() else _tree_root()


def _tree_config() -> Dict[str, object]:
    root = _tree_root()
    include_dir = root / "include"
    if not (include_dir / "itg.h").is_file():
        raise BuildError(
            f"{include_dir}/itg.h not found: set ITG_SOURCE_DIR to the libitg "
            "tree, or ITG_USE_SYSTEM=1 to use an installed libitg")
    build = Path(os.environ.get("ITG_BUILD_DIR") or "build")
    if not build.is_absolute():
        build = root / build
    static = build / "lib" / "libitg.a"
    if not static.is_file():
        raise BuildError(f"{static} not found: run `make` in {root} first")
    try:
        deps = _pkg_config(["--libs", "libuv", "gsl"])
    except BuildError:
        deps = ["-luv", "-lgsl", "-lgslcblas"]
    _, libdirs, libs, rest = _split_flags(deps + ["-lpthread", "-lm"])
    # depends: a rebuilt libitg.a relinks the extension.
    return dict(include_dir=include_dir, build_dir=build, include_dirs=[str(include_dir)],
                library_dirs=libdirs, libraries=libs, extra_link_args=rest,
                extra_objects=[str(static)], depends=[str(static)],
                runtime_library_dirs=[])


# The library's sources as the Makefile builds them on POSIX (LIB_SRC),
# relative to the top of the tree or of the sdist.
LIBRARY_DIRS = ("libitg/core", "libitg/log", "libitg/engine", "libitg/platform",
                "libitg/platform/posix")


def copy_library(root: Path, dest: Path) -> None:
    """Copies libitg's C sources, headers and LICENSE from the tree (or
    sdist) at root into dest, the tree of an sdist being made."""
    for d in LIBRARY_DIRS:
        (dest / d).mkdir(parents=True, exist_ok=True)
        for f in sorted((root / d).iterdir()):
            if f.suffix in (".c", ".h"):
                shutil.copy2(f, dest / d / f.name)
    shutil.copytree(root / "include", dest / "include", dirs_exist_ok=True)
    # LICENSE is a link into the tree beside this file: the sdist holds the text.
    target = dest / "LICENSE"
    if target.is_symlink():
        target.unlink()
    shutil.copy2(root / "LICENSE", target)


def _bundled_config() -> Dict[str, object]:
    sources = [str(Path(d) / f.name) for d in LIBRARY_DIRS
               for f in sorted((HERE / d).glob("*.c"))]
    try:
        cflags = _pkg_config(["--cflags", "libuv", "gsl"])
        deps = _pkg_config(["--libs", "libuv", "gsl"])
    except BuildError as exc:
        raise BuildError(f"libuv and GSL with their headers are needed to build libitg "
                         f"(Debian: apt install libuv1-dev libgsl-dev pkg-config): {exc}") from exc
    incs, _, _, cflags_rest = _split_flags(cflags)
    _, libdirs, libs, rest = _split_flags(deps + ["-lpthread", "-lm"])
    # The Makefile's flags that change the code: libuv's headers need gnu11,
    # and only the public API is exported.
    return dict(include_dir=HERE / "include", build_dir=None,
                include_dirs=["include", "libitg"] + incs, sources=sources,
                extra_compile_args=["-std=gnu11", "-fvisibility=hidden"] + cflags_rest,
                library_dirs=libdirs, libraries=libs, extra_link_args=rest,
                extra_objects=[], runtime_library_dirs=[])


def _system_config() -> Dict[str, object]:
    env = dict(os.environ)
    prefix = os.environ.get("ITG_PREFIX")
    if prefix:
        extra = [str(Path(prefix) / d / "pkgconfig") for d in ("lib", "lib64")]
        env["PKG_CONFIG_PATH"] = os.pathsep.join(
            extra + [p for p in [env.get("PKG_CONFIG_PATH")] if p])
    cflags = _pkg_config(["--cflags", "libitg"], env)
    libs = _pkg_config(["--libs", "libitg"], env)
    includedir = Path(_pkg_config(["--variable=includedir", "libitg"], env)[0])
    libdir = _pkg_config(["--variable=libdir", "libitg"], env)[0]
    incs, _, _, cflags_rest = _split_flags(cflags)
    _, libdirs, libnames, rest = _split_flags(libs)
    return dict(include_dir=includedir, build_dir=None, include_dirs=incs or [str(includedir)],
                library_dirs=libdirs, libraries=libnames, extra_link_args=rest,
                extra_compile_args=cflags_rest, extra_objects=[],
                runtime_library_dirs=[libdir])


def bundled() -> bool:
    """Whether libitg's sources are beside this file (an sdist)."""
    return (HERE / "include" / "itg.h").is_file()


def library_config() -> Dict[str, object]:
    """Where the headers and the library are, as set_source arguments plus
    include_dir (the directory holding itg.h) and build_dir (the tree's
    build directory, None for an installed libitg)."""
    use_system = _truthy("ITG_USE_SYSTEM") or bool(os.environ.get("ITG_PREFIX"))
    if use_system:
        cfg = _system_config()
    elif bundled():
        cfg = _bundled_config()
    else:
        cfg = _tree_config()
    sanitize = os.environ.get("ITG_SANITIZE", "").strip()
    if sanitize:
        flag = f"-fsanitize={sanitize}"
        cfg["extra_link_args"] = list(cfg["extra_link_args"]) + [flag]  # type: ignore[call-overload]
        cfg["extra_compile_args"] = list(cfg.get("extra_compile_args", [])) + [flag]  # type: ignore[call-overload]
    return cfg


def library_version(include_dir: Path) -> str:
    """MAJOR.MINOR.PATCH of the library, read from its version.h."""
    text = (include_dir / "itg" / "version.h").read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"#define ITG_VERSION_{part} (\d+)", text)
        if not m:
            raise BuildError(f"ITG_VERSION_{part} not found in {include_dir}/itg/version.h")
        parts.append(m.group(1))
    return ".".join(parts)


def make_ffi(cfg: Dict[str, object]) -> FFI:
    cfg = dict(cfg)
    cfg.pop("build_dir")
    include_dir = cfg.pop("include_dir")
    assert isinstance(include_dir, Path)
    ffi = FFI()
    ffi.cdef(_declarations(include_dir))
    ffi.cdef(_constants(include_dir))
    ffi.cdef(SIZED_CDEF)
    ffi.cdef(HELPERS_CDEF)
    ffi.set_source("itg._itg", '#include "itg.h"\n' + HELPERS_C, **cfg)  # type: ignore[arg-type]
    return ffi


CONFIG = library_config()
ffibuilder = make_ffi(CONFIG)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
