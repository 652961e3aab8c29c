# Cross-build targets, included by the top-level Makefile:
#
#   make windows | armhf | aarch64    library, programs and test programs
#                                     for that target, in build/<target>/
#   make test-windows | test-armhf | test-aarch64
#                                     the target's unit tests under wine64
#                                     or qemu-user, then a loopback flow,
#                                     then its itg-agent driven by the
#                                     native itg-ctl (ports/cross-agent.sh),
#                                     then its footprint (ports/footprint.sh)
#
# make test runs all three after the native tests (each goes on when
# another fails; make test fails if any does).
#
# A cross build is the ordinary build with other variables: each target's
# ports/<target>/deps.sh installs its toolchain and makes its dependencies
# (once), and ports/<target>/toolchain.mk sets <target>_VARS for the
# recursive make.

CROSS_TARGETS := windows armhf aarch64

# The variables of a Debian multiarch target, given its GNU triplet: its
# gcc finds the target's libuv and cmocka by itself; GSL is linked by path,
# since only its runtime packages are multi-arch (the native headers
# serve).
multiarch_vars = CC=$(1)-gcc AR=$(1)-ar PLATFORM=posix DEPS_CFLAGS= \
	DEPS_LIBS='-luv /usr/lib/$(1)/libgsl.so.27 /usr/lib/$(1)/libgslcblas.so.0 -lpthread -lm'

include $(CROSS_TARGETS:%=ports/%/toolchain.mk)

.PHONY: $(CROSS_TARGETS) $(CROSS_TARGETS:%=test-%)

$(CROSS_TARGETS):
	$(Q)sh ports/$@/deps.sh
	$(Q)$(MAKE) --no-print-directory BUILD=build/$@ SAN= MPICC= $($@_VARS) all tests

$(CROSS_TARGETS:%=test-%): test-%: %
	$(Q)sh ports/$*/run-tests.sh build/$*

# Windows has DLLs, not .so files: the library, with its import library
# beside it for programs that link against the DLL.
$(BUILD)/lib/libitg.dll: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ \
	  -Wl,--out-implib,$(BUILD)/lib/libitg.dll.a $(DEPS_LIBS)
