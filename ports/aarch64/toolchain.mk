# The aarch64 build (arm64), read by ports/targets.mk: Debian's cross gcc
# and the arm64 packages that ports/aarch64/deps.sh installs.
aarch64_VARS := $(call multiarch_vars,aarch64-linux-gnu)
