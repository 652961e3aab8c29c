/* libitg's public API as SWIG sees it, for any target language.
 *
 * A language's interface file sets %module, defines the typemaps named
 * below (ITG_*) for its own types, and then %includes this file, which
 * applies them to the parameters of the public headers. Everything here is
 * about the C side: which parameters are out-parameters, which pairs are a
 * buffer and its length, who owns what.
 *
 * Conventions of the C API (include/itg/common.h) that the typemaps carry:
 *   status      functions return 0, a count, or a negative ITG_E* code;
 *               the binding turns negative codes into its own errors (the
 *               raw wrappers return the int unchanged);
 *   handles     itg_x_new(..., itg_x **out) hands the caller a handle it
 *               owns and must release with itg_x_free (or _close); a
 *               handle is never freed by the library behind the caller's
 *               back, and the free functions accept NULL;
 *   structs     configuration and result structs live in the caller's
 *               memory: the binding allocates them, the library fills or
 *               reads them during the call and keeps no pointer to them.
 *
 * Typemaps a language must define before including this file:
 *   SWIGTYPE **ITG_NEW_HANDLE                 out-parameter of a
 *                                             constructor (the new handle)
 *   (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN)   bytes read by the call
 *                                             (also text given with its
 *                                             length, an experiment's)
 *   (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN)        bytes written by it
 *   (char *ITG_TEXT_OUT, size_t ITG_LEN)      a NUL-terminated text the
 *                                             call writes (messages, JSON)
 *   const uint8_t *ITG_FIXED_IN, uint8_t *ITG_FIXED_OUT
 *                                             a buffer of exactly
 *                                             ITG_FIXED_LEN(function) bytes
 *                                             (a log record or file header)
 *   (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) numbers read by the
 *                                             call (law parameters, traces)
 *   (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) log records read
 *                                             by the call
 *   size_t *ITG_SIZE_OUT                      a size returned on the side
 *   (int ITG_ARGC, const char *const *ITG_ARGV)      a list of words
 *   (const char *const *ITG_PATHS, size_t ITG_COUNT) a list of paths
 *   (int *ITG_INTS_OUT, size_t ITG_COUNT)     ints written by the call
 *                                             (an experiment's ranks)
 * Left to each language, because they need its runtime: the receiver's
 * callbacks (itg_receiver_cfg.on_records, .on_flow, .user), the log
 * server's (itg_logserver_cfg.on_session, .user) and
 * itg_dist_read_file, which returns memory to free with itg_free.
 */

%{
#include <stdio.h>
#include <string.h>

#include "itg.h"

/* Bytes a fixed-size buffer parameter of function f holds; a typemap
 * checks the caller's buffer against ITG_FIXED_LEN($symname). */
#define ITG_FIXED_LEN(f) ITG_FIXED_LEN_##f
#define ITG_FIXED_LEN_itg_logrec_encode ITG_LOG_RECORD_LEN
#define ITG_FIXED_LEN_itg_logrec_decode ITG_LOG_RECORD_LEN
#define ITG_FIXED_LEN_itg_log_hdr_encode ITG_LOG_HEADER_LEN
%}

%include <stdint.i>
%include <carrays.i>

/* Opaque handles: created and destroyed only through their functions. */
%nodefaultctor itg_dist;
%nodefaultdtor itg_dist;
%nodefaultctor itg_logwriter;
%nodefaultdtor itg_logwriter;
%nodefaultctor itg_logreader;
%nodefaultdtor itg_logreader;
%nodefaultctor itg_logger;
%nodefaultdtor itg_logger;
%nodefaultctor itg_stats;
%nodefaultdtor itg_stats;
%nodefaultctor itg_series;
%nodefaultdtor itg_series;
%nodefaultctor itg_sender;
%nodefaultdtor itg_sender;
%nodefaultctor itg_receiver;
%nodefaultdtor itg_receiver;
%nodefaultctor itg_experiment;
%nodefaultdtor itg_experiment;
%nodefaultctor itg_logserver;
%nodefaultdtor itg_logserver;
%nodefaultctor itg_remote;
%nodefaultdtor itg_remote;
%nodefaultctor itg_agent;
%nodefaultdtor itg_agent;

%apply SWIGTYPE **ITG_NEW_HANDLE {
  itg_dist **out, itg_logwriter **out, itg_logreader **out,
  itg_logger **out, itg_stats **out, itg_series **out, itg_sender **out,
  itg_receiver **out, itg_experiment **out, itg_logserver **out,
  itg_remote **out, itg_agent **out
};

%apply (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) {
  (const uint8_t *buf, size_t len), (const char *text, size_t len),
  (const void *token, size_t token_len), (const uint8_t *token, size_t len)
};
%apply (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN) { (uint8_t *buf, size_t len) };
%apply (char *ITG_TEXT_OUT, size_t ITG_LEN) {
  (char *buf, size_t len), (char *err, size_t errlen), (char *bad, size_t badlen)
};
/* Without a length: itg_logrec_encode/decode and itg_log_hdr_encode. */
%apply const uint8_t *ITG_FIXED_IN { const uint8_t *buf };
%apply uint8_t *ITG_FIXED_OUT { uint8_t *buf };
%apply (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) {
  (const double *params, size_t nparams), (const double *values, size_t n)
};
%apply (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) {
  (const itg_logrec *recs, size_t n)
};
%apply size_t *ITG_SIZE_OUT { size_t *needed };
%apply (int ITG_ARGC, const char *const *ITG_ARGV) {
  (int argc, const char *const *argv), (int nhosts, const char *const *hosts)
};
%apply (const char *const *ITG_PATHS, size_t ITG_COUNT) {
  (const char *const *paths, size_t n), (const char *const *lines, size_t n)
};
%apply (int *ITG_INTS_OUT, size_t ITG_COUNT) {
  (int *senders, size_t nsenders), (int *receivers, size_t nreceivers)
};

/* itg_decode_files fills one status per path: an array of n elements. */
%array_class(itg_decode_status, itg_decode_status_array);

/* Growable structs (itg/common.h): the headers hide from SWIG the macros
 * that pass sizeof to the itg_*_size functions, and the wrappers call the
 * macros, declared below as functions, so that the sizes are taken where
 * the wrappers are compiled, against the headers they include. */
%ignore itg_flow_cfg_init_size;
%ignore itg_sender_cfg_init_size;
%ignore itg_receiver_cfg_init_size;
%ignore itg_logger_cfg_init_size;
%ignore itg_sender_flow_result_size;
%ignore itg_sender_log_stats_size;
%ignore itg_receiver_get_stats_size;
%ignore itg_receiver_flows_live_size;
%ignore itg_logger_get_stats_size;
%ignore itg_logger_close_stats_size;
%ignore itg_pacer_get_stats_size;
%ignore itg_stats_flow_size;
%ignore itg_stats_total_size;
%ignore itg_series_get_size;
%ignore itg_decode_files_size;
%ignore itg_experiment_flow_cfg_size;
%ignore itg_experiment_flow_at_size;
%ignore itg_logserver_cfg_init_size;
%ignore itg_logserver_get_stats_size;
%ignore itg_remote_status_size;
%ignore itg_remote_results_size;
%ignore itg_remote_flow_result_size;
%ignore itg_remote_rx_flow_size;
%ignore itg_agent_cfg_init_size;
/* Remote control: the offset and round trip of itg_remote_clock come back
 * in an itgswig_clock, a log goes into a file (itgswig_remote_fetch_log),
 * and an agent's token and networks are set by the helpers below. */
%ignore itg_remote_clock;
%ignore itg_remote_fetch_log;
%ignore itg_remote_sink;
%ignore itg_agent_cfg::token;
%ignore itg_agent_cfg::token_len;
%ignore itg_agent_cfg::allow;
%ignore itg_agent_cfg::allow_count;
/* A job borrows its host names for the call: itgswig_experiment_place
 * below takes them as a list instead. */
%ignore itg_experiment_job;
%ignore itg_experiment_job_init_size;
%ignore itg_experiment_place;

%include "itg/version.h"
%include "itg/common.h"
%include "itg/dist.h"
%include "itg/pacer.h"
%include "itg/wire.h"
%include "itg/log.h"
%include "itg/stats.h"
%include "itg/flow.h"
%include "itg/sender.h"
%include "itg/receiver.h"
%include "itg/logserver.h"
%include "itg/experiment.h"
%include "itg/remote.h"

int itg_flow_cfg_init(itg_flow_cfg *cfg);
int itg_sender_cfg_init(itg_sender_cfg *cfg);
int itg_receiver_cfg_init(itg_receiver_cfg *cfg);
int itg_logger_cfg_init(itg_logger_cfg *cfg);
int itg_sender_flow_result(const itg_sender *s, size_t i, itg_flow_result *out);
int itg_sender_log_stats(const itg_sender *s, itg_logger_stats *out,
                         char *spill, size_t len);
int itg_receiver_get_stats(itg_receiver *r, itg_receiver_stats *out);
int itg_logger_get_stats(itg_logger *l, itg_logger_stats *out);
int itg_logger_close_stats(itg_logger *l, itg_logger_stats *final);
int itg_pacer_get_stats(const itg_pacer *p, itg_pacer_stats *out);
int itg_stats_flow(const itg_stats *s, size_t i, itg_flow_stats *out);
int itg_stats_total(const itg_stats *s, itg_stats_meter meter,
                    itg_flow_stats *out);
int itg_series_get(const itg_series *s, size_t flow, size_t interval,
                   itg_series_point *out);
int itg_decode_files(const char *const *paths, size_t n, itg_stats *stats,
                     itg_series *series, itg_decode_status *st);
int itg_experiment_flow_cfg(const itg_experiment *e, size_t i,
                            itg_flow_cfg *out);
int itg_experiment_flow_at(const itg_experiment *e, size_t i,
                           itg_experiment_flow *out);
int itg_logserver_cfg_init(itg_logserver_cfg *cfg);
int itg_logserver_get_stats(itg_logserver *s, itg_logserver_stats *out);
int itg_remote_results(itg_remote *r, int64_t wait_ns, itg_remote_status *st);
int itg_remote_flow_result(const itg_remote *r, size_t i, itg_flow_result *out);
int itg_agent_cfg_init(itg_agent_cfg *cfg);

%inline %{
/* itg_experiment_place on a job of nranks ranks, named by
 * hosts[0..nhosts) (nhosts 0: the ranks have no names), writing the ranks
 * of each flow into senders[0..nsenders) and receivers[0..nreceivers),
 * both as long as the experiment has flows. A list of names that does not
 * give every rank one, or arrays of different lengths, is refused
 * (ITG_EINVAL, with a message in err) before the library reads them. */
int itgswig_experiment_place(const itg_experiment *e, int nranks, int nhosts,
                             const char *const *hosts, int *senders,
                             size_t nsenders, int *receivers,
                             size_t nreceivers, char *err, size_t errlen)
{
  itg_experiment_job job;
  if (nhosts != 0 && nhosts != nranks) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%d host names for %d ranks", nhosts, nranks);
    return ITG_EINVAL;
  }
  if (nsenders != nreceivers) {
    if (err && errlen > 0)
      snprintf(err, errlen, "%zu senders for %zu receivers", nsenders,
               nreceivers);
    return ITG_EINVAL;
  }
  itg_experiment_job_init(&job);
  job.nranks = nranks;
  job.hosts = nhosts > 0 ? hosts : NULL;
  return itg_experiment_place(e, &job, senders, receivers, nsenders, err,
                              errlen);
}
%}

%inline %{
/* itg_remote_status and itg_remote_rx_flow, whose macros are named as
 * their struct types are (a wrapper cannot be declared by that name). */
int itgswig_remote_status(itg_remote *r, itg_remote_status *st)
{
  return itg_remote_status(r, st);
}

int itgswig_remote_rx_flow(const itg_remote *r, size_t i,
                           itg_remote_rx_flow *out)
{
  return itg_remote_rx_flow(r, i, out);
}

/* What itg_remote_clock measures. */
typedef struct itgswig_clock {
  int64_t offset_ns;
  int64_t rtt_ns;
} itgswig_clock;

int itgswig_remote_clock(itg_remote *r, int rounds, itgswig_clock *out)
{
  if (!out)
    return ITG_EINVAL;
  return itg_remote_clock(r, rounds, &out->offset_ns, &out->rtt_ns);
}

static int itgswig_to_file(const void *data, size_t len, void *user)
{
  return fwrite(data, 1, len, (FILE *)user) == len ? 0 : ITG_EIO;
}

/* itg_remote_fetch_log into the file at path (made or emptied). Returns
 * what itg_remote_fetch_log returns, or ITG_EIO (path cannot be
 * written). */
int itgswig_remote_fetch_log(itg_remote *r, const char *name,
                             const char *path)
{
  FILE *f = path ? fopen(path, "wb") : NULL;
  int rc;
  if (!f)
    return ITG_EIO;
  rc = itg_remote_fetch_log(r, name, itgswig_to_file, f);
  if (fclose(f) != 0 && rc == 0)
    rc = ITG_EIO;
  return rc;
}

/* Sets an agent's token, token[0..len). Returns 0 or ITG_EINVAL (1 to
 * ITG_REMOTE_TOKEN_MAX bytes). */
int itgswig_agent_cfg_token(itg_agent_cfg *cfg, const uint8_t *token,
                            size_t len)
{
  if (!cfg || !token || len == 0 || len > sizeof cfg->token)
    return ITG_EINVAL;
  memcpy(cfg->token, token, len);
  cfg->token_len = len;
  return 0;
}

/* Sets the networks an agent takes clients from, a comma-separated list
 * (itg_logserver_net_list_parse; the entry refused goes to err). */
int itgswig_agent_cfg_allow(itg_agent_cfg *cfg, const char *list, char *err,
                            size_t errlen)
{
  if (!cfg)
    return ITG_EINVAL;
  return itg_logserver_net_list_parse(list, cfg->allow, ITG_AGENT_MAX_NETS,
                                      &cfg->allow_count, err, errlen);
}
%}
