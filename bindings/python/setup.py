"""Builds the itg package and its cffi extension. itg_build.py says where
the library comes from: this source tree by default (run `make` first), an
installed libitg with ITG_USE_SYSTEM=1 or ITG_PREFIX."""
import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
import itg_build  # noqa: E402

CONFIG = itg_build.CONFIG
# Against the tree, the intermediate files go under the tree's build
# directory (BUILD/python-build): one per build, so that the objects made
# for one library (say the sanitizer build) are never reused for another.
options = {}
if CONFIG["build_dir"] is not None:
    options["build"] = {"build_base": str(Path(CONFIG["build_dir"]) / "python-build")}

setup(version=itg_build.library_version(CONFIG["include_dir"]),
      packages=["itg"],
      package_data={"itg": ["py.typed", "*.pyi"]},
      cffi_modules=["itg_build.py:ffibuilder"],
      options=options)
