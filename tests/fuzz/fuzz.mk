# Fuzzing (tests/fuzz/README.md). Included from the top-level Makefile.
#
#   make fuzz [FUZZ_SECONDS=N]   each libFuzzer harness for N seconds (300)
#                                with clang, starting from its corpus
#   make test-fuzz               every corpus replayed through the harnesses
#                                (built with $(CC), in $(BUILD)); then, when
#                                clang with libFuzzer is there, each harness
#                                fuzzed for FUZZ_TEST_SECONDS (10)
#
# The libFuzzer build is the ordinary build in build/fuzz with CC=clang and
# FUZZ=1 (coverage, ASan and UBSan on the library too). New inputs go to
# build/fuzz/fuzz/new/<harness>/, findings to build/fuzz/fuzz/findings/.

FUZZ_SECONDS ?= 300
FUZZ_TEST_SECONDS ?= 10
FUZZ_CC ?= clang
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_COMMON := tests/fuzz/memfile.c

.PHONY: fuzz test-fuzz fuzz-replay fuzz-harnesses

# Corpus replay: a harness with a plain main (tests/fuzz/replay.c).
$(BUILD)/fuzz/replay_%$(EXE): tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_COMMON) tests/fuzz/fuzz.h $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c,$^) $(STATIC) $(DEPS_LIBS)

# libFuzzer harnesses (FUZZ=1 builds only: the library is instrumented).
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) tests/fuzz/fuzz.h $(STATIC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(ALL_LDFLAGS) -o $@ $(filter %.c,$^) $(STATIC) $(DEPS_LIBS)

fuzz-replay: $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%$(EXE))
	$(Q)sh tests/fuzz/run.sh replay $(BUILD) $(FUZZ_NAMES)

fuzz-harnesses: $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

# The libFuzzer build, or a message when clang cannot link a fuzzer.
fuzz:
	$(Q)if sh tests/fuzz/run.sh have-libfuzzer $(FUZZ_CC); then \
	  $(MAKE) --no-print-directory BUILD=build/fuzz CC=$(FUZZ_CC) FUZZ=1 OPT=-O1 fuzz-harnesses && \
	  sh tests/fuzz/run.sh fuzz build/fuzz $(FUZZ_SECONDS) $(FUZZ_NAMES); fi

test-fuzz: fuzz-replay
	$(Q)$(MAKE) --no-print-directory FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) fuzz
