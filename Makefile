# libitg: top-level GNU Makefile.
#
#   make            library (static + shared) and programs, in build/
#   make check      the developer's loop, about a minute, as any user:
#                   builds, runs the unit tests, the layering check
#                   (tests/check, libitg/LAYERS.md) and the integration
#                   tests that need neither root nor installs (a script's
#                   "# needs:" line says which do); installs nothing, and
#                   stops at once, naming make setup, when a dependency is
#                   missing
#   make check T=test_wire   one unit test program (tests/test_wire.c):
#                   a name beginning with test_
#   make check T=dec         one integration script (tests/integration/
#                   dec.sh; T=dec.sh too), whatever it needs
#   make setup      installs what building and testing need (Debian; root)
#   make test       set-up, build, unit + integration + MPI tests and the
#                   short hostile soak (tests/soak), then the unit,
#                   integration and MPI tests again under AddressSanitizer
#                   and UBSan with the
#                   fuzz corpora replayed (and each harness fuzzed briefly
#                   when clang is there), then the cross builds' tests
#                   (Windows under wine64, armhf and aarch64 under
#                   qemu-user: see ports/targets.mk)
#   make fuzz       each fuzz harness for FUZZ_SECONDS (tests/fuzz/fuzz.mk)
#   make soak       the hostile soak for SOAK_SECONDS (tests/soak/soak.mk)
#   make demo       receiver and sender on loopback, then the QoS report
#   make man        the manual pages, from each program's --help
#                   (libitg/programs/man), in $(BUILD)/man
#   make wheel      the Python packages, in $(BUILD)/python-dist: an sdist
#                   that builds on its own (libitg's sources inside) and,
#                   made from it, a manylinux wheel carrying libuv and GSL
#   make install    PREFIX=/usr/local DESTDIR= (and BINDIR, LIBDIR,
#                   INCLUDEDIR, PKGCONFIGDIR, CMAKEDIR, MANDIR: see below)
#   V=1             show the commands
#
# The build directory is $(BUILD); the sanitizer pass reuses these rules
# with BUILD=build/asan SAN=1.

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/libitg
MANDIR       ?= $(PREFIX)/share/man
CC      ?= cc
AR      ?= ar
PKG_CONFIG ?= pkg-config

ifeq ($(V),1)
Q :=
else
Q := @
endif

VERSION_H := include/itg/version.h
VMAJOR := $(shell sed -n 's/^\#define ITG_VERSION_MAJOR \([0-9]*\)/\1/p' $(VERSION_H))
VMINOR := $(shell sed -n 's/^\#define ITG_VERSION_MINOR \([0-9]*\)/\1/p' $(VERSION_H))
VPATCH := $(shell sed -n 's/^\#define ITG_VERSION_PATCH \([0-9]*\)/\1/p' $(VERSION_H))
VERSION := $(VMAJOR).$(VMINOR).$(VPATCH)

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libuv gsl 2>/dev/null)
DEPS_LIBS   := $(shell $(PKG_CONFIG) --libs libuv gsl 2>/dev/null || echo -luv -lgsl -lgslcblas) -lpthread -lm

OPT ?= -O2
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
# The libFuzzer build (tests/fuzz/fuzz.mk): coverage for the fuzzer too.
ifneq ($(FUZZ),)
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
# libuv's headers need gnu11: plain c11 hides pthread_rwlock_t.
BASE_CFLAGS := -std=gnu11 $(OPT) -g $(WARN) -fPIC -fvisibility=hidden \
	-Iinclude -Ilibitg $(DEPS_CFLAGS) $(SAN_FLAGS) -DITG_BUILDING_DLL
ALL_CFLAGS := $(BASE_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)

PLATFORM := posix
# Cross builds (ports/targets.mk) set these: the executable suffix, where
# the shared library goes, and tests the target cannot build.
EXE :=
SHARED_FILES = $(SHARED) $(BUILD)/lib/libitg.so $(BUILD)/lib/$(SONAME)
TESTS_SKIP :=
LIB_SRC := $(wildcard libitg/core/*.c libitg/log/*.c libitg/engine/*.c libitg/platform/*.c libitg/platform/$(PLATFORM)/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
PROG_SRC := $(wildcard libitg/programs/itg-*.c)
PROG_COMMON := $(filter-out libitg/programs/itg-%,$(wildcard libitg/programs/*.c))
PROG_COMMON_OBJ := $(PROG_COMMON:%.c=$(BUILD)/obj/%.o)
PROGS := $(PROG_SRC:libitg/programs/%.c=$(BUILD)/bin/%$(EXE))
# A test for one platform only is named test_*_posix.c or test_*_win.c.
TEST_OTHER := $(foreach p,$(filter-out $(PLATFORM),posix win),tests/test_%_$(p).c)
TEST_SRC := $(filter-out $(TEST_OTHER) $(TESTS_SKIP),$(wildcard tests/test_*.c))
TESTS := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%$(EXE))
EXAMPLES := $(patsubst examples/c/%.c,$(BUILD)/examples/%$(EXE),$(wildcard examples/c/*.c))
# The programs once more, built as a user's program is (the public headers,
# ITG_DLL) and linked against the shared library, where only the public
# API is visible: the link fails if a program reaches past it.
SHARED_PROGS := $(PROG_SRC:libitg/programs/%.c=$(BUILD)/shared-bin/%$(EXE))
SHARED_PROG_COMMON_OBJ := $(PROG_COMMON:%.c=$(BUILD)/obj-shared/%.o)
SHARED_LINK = $(if $(filter %.dll,$(SHARED_FILES)),$(BUILD)/lib/libitg.dll.a,$(BUILD)/lib/libitg.so)
TEST_HELPERS := $(wildcard tests/helpers/*.c)
TEST_HELPER_OBJ := $(TEST_HELPERS:%.c=$(BUILD)/obj/%.o)

STATIC := $(BUILD)/lib/libitg.a
# libitg-mpi.a (libitg/mpi, include/itg/mpi.h), built with Open MPI's
# compiler wrapper where it is found, and its tests (tests/mpi): the core
# library never depends on MPI. Cross builds clear MPICC (ports/targets.mk).
MPICC ?= mpicc
HAVE_MPI := $(if $(MPICC),$(shell command -v $(MPICC) >/dev/null 2>&1 && echo yes))
MPI_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard libitg/mpi/*.c))
MPI_STATIC := $(if $(HAVE_MPI),$(BUILD)/lib/libitg-mpi.a)
MPI_TESTS := $(if $(HAVE_MPI),$(patsubst tests/mpi/%.c,$(BUILD)/tests/mpi/%,$(wildcard tests/mpi/*.c)))
# itg-mpi (libitg/programs/mpi), the experiment runner over an MPI job.
MPI_PROG := $(if $(HAVE_MPI),$(BUILD)/bin/itg-mpi)
SONAME := libitg.so.$(VMAJOR)
SHARED := $(BUILD)/lib/libitg.so.$(VERSION)

.PHONY: all lib programs tests test test-unit test-integration test-mpi \
	check check-deps demo setup man install uninstall clean accept wheel
.DEFAULT_GOAL := all
# Objects of programs, tests and examples are built through pattern rules;
# keep them, so a second make rebuilds nothing.
.SECONDARY:

all: lib programs

lib: $(STATIC) $(SHARED_FILES) $(MPI_STATIC)

programs: $(PROGS) $(MPI_PROG)

tests: $(TESTS) $(PROGS) $(SHARED_PROGS) $(EXAMPLES) $(MPI_TESTS) $(MPI_PROG)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHARED): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) $(ALL_LDFLAGS) -o $@ $^ $(DEPS_LIBS)

$(BUILD)/lib/$(SONAME) $(BUILD)/lib/libitg.so: $(SHARED)
	$(Q)ln -sf $(notdir $(SHARED)) $@

$(BUILD)/bin/%$(EXE): $(BUILD)/obj/libitg/programs/%.o $(PROG_COMMON_OBJ) $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(PROG_COMMON_OBJ) $(STATIC) $(DEPS_LIBS)

$(BUILD)/obj-shared/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 $(OPT) -g $(WARN) -Iinclude -Ilibitg $(DEPS_CFLAGS) \
	  $(SAN_FLAGS) -DITG_DLL $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/shared-bin/%$(EXE): $(BUILD)/obj-shared/libitg/programs/%.o \
		$(SHARED_PROG_COMMON_OBJ) $(SHARED_FILES)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(SHARED_PROG_COMMON_OBJ) $(SHARED_LINK) \
	  $(DEPS_LIBS)

$(BUILD)/tests/%$(EXE): $(BUILD)/obj/tests/%.o $(TEST_HELPER_OBJ) $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $< $(TEST_HELPER_OBJ) $(STATIC) $(DEPS_LIBS) -lcmocka

$(BUILD)/obj/libitg/mpi/%.o: libitg/mpi/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/lib/libitg-mpi.a: $(MPI_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tests/mpi/%: tests/mpi/%.c $(wildcard tests/mpi/*.h) $(MPI_STATIC) $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) -std=gnu11 $(OPT) -g $(WARN) -Iinclude $(DEPS_CFLAGS) $(SAN_FLAGS) \
	  $(CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(MPI_STATIC) $(STATIC) $(DEPS_LIBS)

$(BUILD)/bin/itg-mpi: libitg/programs/mpi/itg-mpi.c $(PROG_COMMON_OBJ) \
		$(MPI_STATIC) $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) -std=gnu11 $(OPT) -g $(WARN) -Iinclude -Ilibitg $(DEPS_CFLAGS) \
	  $(SAN_FLAGS) $(CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(PROG_COMMON_OBJ) \
	  $(MPI_STATIC) $(STATIC) $(DEPS_LIBS)

# Examples build as a user's program would: the public header only.
$(BUILD)/examples/%$(EXE): examples/c/%.c $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 $(OPT) -g $(WARN) -Iinclude $(SAN_FLAGS) $(CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(STATIC) $(DEPS_LIBS)

# ---- set-up, tests, demo ---------------------------------------------------

setup:
	$(Q)sh ports/debian/setup.sh

test: setup
	$(Q)$(MAKE) --no-print-directory test-unit test-integration test-mpi test-soak-short
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan SAN=1 OPT=-O1 test-unit test-integration test-mpi test-fuzz
	$(Q)$(MAKE) --no-print-directory -k $(CROSS_TARGETS:%=test-%)

test-unit: tests
	$(Q)sh tests/run-unit.sh $(BUILD)

test-integration: tests
	$(Q)ITG_SAN=$(SAN) sh tests/integration/run.sh $(BUILD)

ifneq ($(HAVE_MPI),)
test-mpi: $(MPI_TESTS) $(MPI_PROG)
	$(Q)ITG_SAN=$(SAN) sh tests/mpi/run.sh $(BUILD)
else
test-mpi:
	@echo "test-mpi: skipped: no $(if $(MPICC),$(MPICC),MPI compiler) (make setup installs Open MPI)"
endif

# The loop builds with every CPU unless make was given -j itself.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS))

check-deps:
	$(Q)sh tests/check/deps.sh "$(CC)"

ifeq ($(T),)
check: check-deps
	$(Q)$(MAKE) --no-print-directory $(CHECK_J) tests
	$(Q)rc=0; sh tests/run-unit.sh $(BUILD) || rc=1; \
	python3 tests/check/layers_test.py "$(CC)" >$(BUILD)/layers-test.log 2>&1 && \
	  echo "layers self-test: ok" || { cat $(BUILD)/layers-test.log; rc=1; }; \
	python3 tests/check/layers.py --build $(BUILD) || rc=1; \
	sh tests/integration/run.sh -s root,install $(BUILD) || rc=1; \
	exit $$rc
else ifeq ($(filter test_%,$(T)),$(T))
$(if $(wildcard tests/$(T).c),,$(error make check: no unit test $(T) (tests/$(T).c)))
check: check-deps
	$(Q)$(MAKE) --no-print-directory $(CHECK_J) $(BUILD)/tests/$(T)$(EXE)
	$(Q)$(BUILD)/tests/$(T)$(EXE)
else
check: check-deps
	$(Q)$(MAKE) --no-print-directory $(CHECK_J) tests
	$(Q)sh tests/integration/run.sh $(BUILD) $(T)
endif

demo: setup
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh examples/demo/run.sh $(BUILD)

include ports/targets.mk
include tests/bench/bench.mk
include tests/fuzz/fuzz.mk
include tests/soak/soak.mk

# ---- Python packages -------------------------------------------------------

# python -m build makes the sdist (setup.py's sdist puts libitg's sources
# in it), then the wheel from that sdist, so a wheel made here proves the
# sdist builds; auditwheel then copies libuv and GSL into the wheel and
# tags it manylinux. Without build isolation: what setup installed is used,
# nothing is downloaded (-I: a build/ directory there is not the module). The static library is only read for the version
# and the headers (bindings/python/itg_build.py), not linked.
PYTHON ?= python3
PY_DIST := $(BUILD)/python-dist
wheel: $(STATIC)
	$(Q)rm -rf $(PY_DIST) && mkdir -p $(PY_DIST)/raw
	$(Q)cd bindings/python && ITG_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -I -m build \
	  --no-isolation --outdir $(abspath $(PY_DIST))/raw . >$(abspath $(PY_DIST))/build.log 2>&1 \
	  || { tail -n 30 $(abspath $(PY_DIST))/build.log; exit 1; }
	$(Q)auditwheel repair -w $(PY_DIST) $(PY_DIST)/raw/*.whl >>$(PY_DIST)/build.log 2>&1 \
	  || { tail -n 30 $(PY_DIST)/build.log; exit 1; }
	$(Q)mv $(PY_DIST)/raw/*.tar.gz $(PY_DIST)/ && rm -rf $(PY_DIST)/raw
	$(Q)ls $(PY_DIST)/*.tar.gz $(PY_DIST)/*.whl

# ---- install ---------------------------------------------------------------

# The pkg-config and CMake files are written on every install: they hold
# the install's directories, which may differ each time. libitg.pc links
# the shared library; libitg-static.pc names the archive itself (a -litg
# would find the shared library beside it) with libuv's static archive
# where the system has one (libuv-static.pc: Debian's libuv_a.a).
UV_STATIC_PC = $(shell $(PKG_CONFIG) --exists libuv-static 2>/dev/null && echo libuv-static || echo libuv)
INSTALL_SUBST = sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g' -e 's|@VMAJOR@|$(VMAJOR)|g'
INSTALL_META := $(BUILD)/libitg.pc $(BUILD)/libitg-static.pc \
	$(BUILD)/libitg-config.cmake $(BUILD)/libitg-config-version.cmake
.PHONY: $(INSTALL_META)
$(BUILD)/libitg.pc:
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: libitg' 'Description: embeddable network traffic generator' \
	  'Version: $(VERSION)' 'Requires.private: $(UV_STATIC_PC) gsl' \
	  'Libs: -L$${libdir} -litg' 'Libs.private: -lpthread -lm' \
	  'Cflags: -I$${includedir}' > $@
$(BUILD)/libitg-static.pc:
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: libitg-static' \
	  'Description: embeddable network traffic generator, static archive' \
	  'Version: $(VERSION)' 'Requires: $(UV_STATIC_PC) gsl' \
	  'Libs: $${libdir}/libitg.a -lpthread -lm' \
	  'Cflags: -I$${includedir}' > $@
$(BUILD)/libitg-config.cmake $(BUILD)/libitg-config-version.cmake: \
  $(BUILD)/%: ports/install/%.in
	@mkdir -p $(dir $@)
	$(Q)$(INSTALL_SUBST) $< > $@

# The manual pages, made from each program's --help and its page's
# template by libitg/programs/man/mkman.py: the help is the one text of
# the options. The date is the version header's, so a page is the same
# from build to build.
MAN_PROGS := $(notdir $(PROGS:%$(EXE)=%)) $(if $(MPI_PROG),itg-mpi)
MANS := $(MAN_PROGS:%=$(BUILD)/man/%.1)
MAN_DATE := $(shell date -u -r $(VERSION_H) +%Y-%m-%d 2>/dev/null)
man: $(MANS)
# Under the sanitizers, Open MPI's own allocations at MPI_Init (before
# itg-mpi reads its options) would read as leaks and fail the page.
MAN_ENV := $(if $(SAN),ASAN_OPTIONS=detect_leaks=0)
$(BUILD)/man/%.1: libitg/programs/man/%.in libitg/programs/man/mkman.py $(BUILD)/bin/%$(EXE)
	@mkdir -p $(dir $@)
	$(Q)$(MAN_ENV) python3 libitg/programs/man/mkman.py $< $(BUILD)/bin/$*$(EXE) \
	  $(VERSION) $(MAN_DATE) > $@.tmp && mv $@.tmp $@

install: all man $(INSTALL_META)
	install -d $(DESTDIR)$(INCLUDEDIR)/itg $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) \
	  $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 644 include/itg.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 include/itg/*.h $(DESTDIR)$(INCLUDEDIR)/itg/
	install -m 644 $(STATIC) $(MPI_STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHARED)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(notdir $(SHARED)) $(DESTDIR)$(LIBDIR)/libitg.so
	install -m 644 $(BUILD)/libitg.pc $(BUILD)/libitg-static.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 $(BUILD)/libitg-config.cmake \
	  $(BUILD)/libitg-config-version.cmake $(DESTDIR)$(CMAKEDIR)/
	install -m 644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	install -m 755 $(PROGS) $(MPI_PROG) $(DESTDIR)$(BINDIR)/
	$(if $(DESTDIR),,-ldconfig 2>/dev/null)

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/itg $(DESTDIR)$(INCLUDEDIR)/itg.h $(DESTDIR)$(CMAKEDIR)
	rm -f $(DESTDIR)$(LIBDIR)/libitg.* $(DESTDIR)$(LIBDIR)/libitg-mpi.a
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/libitg.pc $(DESTDIR)$(PKGCONFIGDIR)/libitg-static.pc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(MAN_PROGS:%=%.1))
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(PROGS) $(MPI_PROG)))

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(PROG_COMMON_OBJ:.o=.d) $(TEST_HELPER_OBJ:.o=.d) \
	$(if $(HAVE_MPI),$(MPI_OBJ:.o=.d)) \
	$(wildcard $(BUILD)/obj/tests/*.d $(BUILD)/obj/libitg/programs/*.d \
	  $(BUILD)/obj-shared/libitg/programs/*.d)

# The acceptance figures measured on the wire (root: wiretap needs a packet
# socket). A measurement, not a test: see tests/accept/wire.sh.
accept: setup all $(BUILD)/accept/timer_noise
	$(Q)sh tests/accept/wire.sh $(BUILD)

$(BUILD)/accept/timer_noise: tests/accept/timer_noise.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 $(WARN) -o $@ $<
