"""The growable structs (include/itg/common.h) cross into the library with
the size of the headers the extension was built with: itg_build.py declares
the macros that pass it as functions, so cffi compiles them as calls in C."""
from __future__ import annotations

import itg
from itg._itg import ffi, lib
from itg.errors import code_of


def test_a_config_carries_its_size() -> None:
    assert itg.FlowConfig()._c.struct_size == ffi.sizeof("itg_flow_cfg")


def test_a_result_is_filled_to_its_size() -> None:
    p = ffi.new("itg_pacer **")
    assert lib.itg_pacer_new(lib.ITG_WAIT_SPIN, 0, p) == 0
    try:
        st = ffi.new("itg_pacer_stats *")
        assert lib.itg_pacer_get_stats(p[0], st) == 0
        assert st.struct_size == ffi.sizeof("itg_pacer_stats")
        too_big = ffi.sizeof("itg_pacer_stats") + 1
        assert lib.itg_pacer_get_stats_size(p[0], st, too_big) == code_of("EINVAL")
    finally:
        lib.itg_pacer_free(p[0])
