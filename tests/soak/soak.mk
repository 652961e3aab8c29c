# The hostile soak (tests/soak/soak.py). Included from the top-level
# Makefile.
#
#   make soak [SOAK_SECONDS=N]   quiet run, then N seconds of the hostile
#                                mix against itg-recv and itg-log (600)
#   make test-soak-short         the same in SOAK_SHORT_SECONDS (25)

SOAK_SECONDS ?= 600
SOAK_SHORT_SECONDS ?= 25

.PHONY: soak test-soak-short

soak: programs
	$(Q)python3 tests/soak/soak.py $(BUILD)/bin $(SOAK_SECONDS)

test-soak-short: programs
	$(Q)python3 tests/soak/soak.py $(BUILD)/bin $(SOAK_SHORT_SECONDS)
