# The armhf build (ARMv7 hard-float, the small-device target), read by
# ports/targets.mk: Debian's cross gcc and the armhf packages that
# ports/armhf/deps.sh installs.
armhf_VARS := $(call multiarch_vars,arm-linux-gnueabihf)
