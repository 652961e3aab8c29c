/* The logger's own entry beyond itg/log.h: a logger on a sink chosen by
 * the caller rather than by the configuration. */
#ifndef ITG_LOG_LOGGER_H
#define ITG_LOG_LOGGER_H

#include "log/sink.h"

/* As itg_logger_new, with the records going to sink, opened with cfg and
 * sink_arg (what that sink needs beyond cfg, or NULL). */
int itg__logger_new_sink(const itg_logger_cfg *cfg,
                         const itg__log_sink_ops *sink, void *sink_arg,
                         itg_logger **out);

#endif
