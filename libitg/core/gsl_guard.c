/* One-time installation of a non-aborting GSL error handler (gsl_guard.h). */
#include "core/gsl_guard.h"

#include <gsl/gsl_errno.h>
#include <uv.h>

static uv_once_t itg__gsl_once = UV_ONCE_INIT;

/* GSL can only be asked for its current handler by replacing it, so the
 * previous one is put back when it was the application's own (non-NULL). */
static void itg__gsl_install(void) {
  gsl_error_handler_t *previous = gsl_set_error_handler_off();
  if (previous != NULL)
    gsl_set_error_handler(previous);
}

void itg__gsl_init(void) { uv_once(&itg__gsl_once, itg__gsl_install); }
