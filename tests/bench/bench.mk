# make bench: libitg, D-ITG and a bare socket loop measured side by side on
# the wire (tests/bench/README.md). Included from the top-level Makefile;
# never part of `make test`. Needs root (wiretap opens a packet socket).
#
#   make bench                 the full run (about 26 minutes)
#   make bench BENCH_ARGS=--quick   a subset (about 5 minutes)
#
# Results go to $(BUILD)/bench/: results.md, *.csv, *.png.

BENCH_ARGS ?=
BENCH_BIN := $(BUILD)/bench/bin
BENCH_TOOLS := $(BENCH_BIN)/bare_loop $(BENCH_BIN)/wiretap $(BENCH_BIN)/blaster \
               $(BENCH_BIN)/timer_noise
BENCH_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes

.PHONY: bench bench-quick bench-tools bench-deps

$(BENCH_BIN)/bare_loop: tests/bench/bare_loop.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

$(BENCH_BIN)/timer_noise: tests/accept/timer_noise.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

# The measuring instruments, tests/tools (wirestats.py runs from there).
$(BENCH_BIN)/wiretap: tests/tools/wiretap.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

$(BENCH_BIN)/blaster: tests/tools/blaster.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

bench-tools: $(BENCH_TOOLS)

# matplotlib draws the plots; numpy and scipy come with the set-up.
bench-deps:
	$(Q)python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install --quiet matplotlib

# Where Open MPI is installed, the mpi section's programs: itg-mpi and
# tests/mpi/log_gather (empty otherwise: the section says it is left out).
BENCH_MPI := $(MPI_PROG) $(filter %/log_gather,$(MPI_TESTS))

bench: all bench-tools bench-deps $(BENCH_MPI)
	$(Q)python3 tests/bench/run.py --build $(BUILD) $(BENCH_ARGS)

bench-quick: all bench-tools bench-deps $(BENCH_MPI)
	$(Q)python3 tests/bench/run.py --build $(BUILD) --quick $(BENCH_ARGS)
