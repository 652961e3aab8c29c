# The Windows build (x86_64-w64-mingw32), read by ports/targets.mk: the
# static libuv, GSL and cmocka that ports/windows/deps.sh makes, linked
# statically (the C runtime's helpers too), so the .exe files run under
# wine or on Windows without DLLs beside them. mingw's own C99 printf,
# not msvcrt's, which lacks %zu and friends.
windows_DEPS := $(CURDIR)/build/windows/deps
windows_CFLAGS := -I$(windows_DEPS)/include -D__USE_MINGW_ANSI_STDIO=1
# libuv's own system libraries follow it.
windows_LIBS := -L$(windows_DEPS)/lib -luv_a -lgsl -lgslcblas \
	-lws2_32 -liphlpapi -luserenv -lpsapi -luser32 -ladvapi32 -lbcrypt -lm
# test_pacer.c checks the once-per-process calibration in fresh child
# processes made with fork(), which Windows does not have. (The platform
# contract's test, test_platform.c, runs here as on POSIX.)
windows_SKIP := tests/test_pacer.c
windows_VARS := CC=x86_64-w64-mingw32-gcc AR=x86_64-w64-mingw32-ar \
	PLATFORM=win EXE=.exe LDFLAGS=-static \
	DEPS_CFLAGS='$(windows_CFLAGS)' DEPS_LIBS='$(windows_LIBS)' \
	SHARED_FILES=build/windows/lib/libitg.dll TESTS_SKIP='$(windows_SKIP)'
