/* Windows has no per-process limit on open sockets to raise or mind. */
#include "platform/win/win_impl.h"

uint64_t itg__fd_limit(void) { return 0; }

uint64_t itg_fd_limit_raise(void) { return 0; }
