# Type stub for the compiled cffi module (built by itg_build.py).
from typing import Any

ffi: Any
lib: Any
