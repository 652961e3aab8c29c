"""Builds the itg package and its cffi extension. itg_build.py says where
the library comes from: its sources beside it in an sdist, this source tree
by default (run `make` first), an installed libitg with ITG_USE_SYSTEM=1 or
ITG_PREFIX."""
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.sdist import sdist

sys.path.insert(0, str(Path(__file__).resolve().parent))
import itg_build  # noqa: E402

CONFIG = itg_build.CONFIG


class SdistWithLibrary(sdist):
    """An sdist that builds on its own: libitg's C sources and headers go
    in beside itg_build.py, which then compiles them into the extension."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        itg_build.copy_library(itg_build.source_root(), Path(base_dir))


# Against the tree, the intermediate files go under the tree's build
# directory (BUILD/python-build): one per build, so that the objects made
# for one library (say the sanitizer build) are never reused for another.
# The extension uses the stable ABI (cffi builds it with Py_LIMITED_API):
# the wheel says so, for every CPython from requires-python's on.
options = {"bdist_wheel": {"py_limited_api": "cp39"}}
if CONFIG["build_dir"] is not None:
    options["build"] = {"build_base": str(Path(CONFIG["build_dir"]) / "python-build")}

setup(version=itg_build.library_version(CONFIG["include_dir"]),
      packages=["itg"],
      package_data={"itg": ["py.typed", "*.pyi"]},
      cffi_modules=["itg_build.py:ffibuilder"],
      cmdclass={"sdist": SdistWithLibrary},
      options=options)
