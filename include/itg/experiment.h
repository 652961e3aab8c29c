/* An experiment: the flows of a distributed run and where each runs.
 *
 * One text format serves every program that runs flows on several
 * machines (itg-mpi over an MPI job, a controller driving daemons). A job
 * is a set of ranks numbered 0..N-1, each running on a host; an
 * experiment file says which rank sends each flow and which receives it.
 *
 * The format: one flow a line, in itg-send's script syntax (the words of
 * itg_flow_parse_line, itg/flow.h: white space between words, '#' starts
 * a comment, double quotes group), with placements written as '@' words:
 *
 *   # sender   flow options (-a names the receiver)
 *   @1         -a @2   -T UDP -C 1000 -c 512 -t 5000
 *   @nodeB     -a @0   -T TCP -E 200 -e 1024 -t 5000
 *              -a @3   -T UDP -O 500 -c 64 -t 5000
 *              -a 10.0.0.9 -T UDP -C 100 -c 512 -t 5000
 *
 *   - The receiver, from -a (or --dst), which every line must give:
 *     `-a @N` is the receiver on rank N; `-a @NAME` the receiver on the
 *     first (lowest) rank whose host is NAME, compared byte for byte with
 *     the job's names (name another rank of that host by its number);
 *     any other value is an address outside the job (an itg-recv, or
 *     D-ITG's ITGRecv), kept as written. For a receiver
 *     inside the job the flow's dst_host keeps the '@' word: the program
 *     running the experiment puts that rank's address in its place.
 *   - The sender, from an optional first word `@N` or `@NAME` (the same
 *     meanings). A line without one is placed by itg_experiment_place.
 *   - A word of '@' and digits alone is a rank number; any other '@' word
 *     names a host (so a host named by digits alone must be written as a
 *     rank). A placement word holds no quotes and no white space.
 *   - Blank lines and comments are skipped; a line holding only a
 *     placement is an error.
 *
 * Sender ranks, and how lines without a sender are placed: every rank of
 * the job sends, except rank 0 when the job has more than one rank (rank 0
 * gathers the logs; a line may still place a sender on it with `@0`). Each
 * flow weighs its mean packet rate, 1 / (mean IDT) in pkt/s from its IDT
 * law (itg_dist_mean; a law without a mean, Cauchy or Pareto of shape
 * <= 1, weighs 1 / its median, Cauchy's taken on IDTs >= 0 as the sender
 * draws them; Student's is its location), times mean on / (mean on + mean
 * off) for an on/off flow whose period laws have means. Flows placed by their line load their ranks first; then the
 * other flows, heaviest first (equal weights in line order), each go to
 * the sender rank with the least load (equal loads: the lowest rank),
 * leaving out the flow's own receiver rank when another sender rank
 * exists. The placement depends only on the file and the job, so every
 * rank that computes it finds the same one.
 *
 * Limits, so that hostile input is refused in bounded time and memory:
 * ITG_EXPERIMENT_LINE_MAX bytes a line, ITG_EXPERIMENT_FLOWS_MAX flows,
 * ITG_EXPERIMENT_FILE_MAX bytes a file, ITG_EXPERIMENT_RANKS_MAX ranks;
 * a NUL byte in the text is an error. Error messages start with the line
 * they are about: "line 3: -C: 'abc' is not a number", "line 5: @7: no
 * such rank (the job has 4)".
 */
#ifndef ITG_EXPERIMENT_H
#define ITG_EXPERIMENT_H

#include "itg/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes a line may hold, its end of line left out. */
#define ITG_EXPERIMENT_LINE_MAX 8191
/* Flows an experiment may hold. */
#define ITG_EXPERIMENT_FLOWS_MAX 4096
/* Bytes an experiment file may hold (16 MiB). */
#define ITG_EXPERIMENT_FILE_MAX (1 << 24)
/* Ranks a job may have (and so the highest rank number a line may name,
 * less one). */
#define ITG_EXPERIMENT_RANKS_MAX 4096

typedef struct itg_experiment itg_experiment;

/* Where one end of a flow runs, as its line gives it. */
typedef enum itg_experiment_where {
  ITG_EXPERIMENT_ANY = 0,     /* sender only: placed by itg_experiment_place */
  ITG_EXPERIMENT_RANK = 1,    /* @N */
  ITG_EXPERIMENT_HOST = 2,    /* @NAME */
  ITG_EXPERIMENT_ADDRESS = 3  /* receiver only: an address outside the job */
} itg_experiment_where;

/* One flow's line and placements, as itg_experiment_flow_at gives them. */
typedef struct itg_experiment_flow {
  size_t struct_size; /* set by itg_experiment_flow_at */
  unsigned line;      /* the line it was written on, from 1 */
  itg_experiment_where sender;   /* ANY, RANK or HOST */
  int sender_rank;               /* RANK: the rank; else -1 */
  char sender_host[ITG_HOST_MAX]; /* HOST: the host name; else "" */
  itg_experiment_where receiver;   /* RANK, HOST or ADDRESS */
  int receiver_rank;               /* RANK: the rank; else -1 */
  char receiver_host[ITG_HOST_MAX]; /* HOST: the host name; ADDRESS: the
                                       address; else "" */
  double rate; /* the weight placement gives the flow, in pkt/s */
} itg_experiment_flow;

/* The job an experiment is placed on. */
typedef struct itg_experiment_job {
  size_t struct_size; /* set by itg_experiment_job_init */
  int nranks;         /* 1..ITG_EXPERIMENT_RANKS_MAX (default 0: unset) */
  const char *const *hosts; /* hosts[r]: the host name of rank r, for r in
                               0..nranks-1; NULL when ranks have no names
                               (then a line naming a host is refused) */
} itg_experiment_job;

/* Parses an experiment from text[0..len) (no terminator needed; one NUL
 * byte inside is an error). Every flow is checked by itg_flow_validate
 * (trace files are read where the text is parsed). On success *out holds
 * the experiment (free it with itg_experiment_free); on failure *out is
 * NULL and err (if not NULL; always terminated when errlen > 0) says which
 * line and what is wrong. Returns 0, ITG_EINVAL (a bad line, no flow at
 * all, a limit passed, NULL text with len > 0 or NULL out), ITG_ENOENT (a
 * trace file that does not exist), ITG_EIO or ITG_ENOMEM. */
ITG_API int itg_experiment_parse(const char *text, size_t len,
                                 itg_experiment **out, char *err,
                                 size_t errlen);

/* Reads the experiment file at path and parses it as itg_experiment_parse
 * does; a message about the file itself names it. Returns the codes of
 * itg_experiment_parse, with ITG_ENOENT for a file that does not exist,
 * ITG_EIO for one that cannot be read, ITG_EINVAL for one above
 * ITG_EXPERIMENT_FILE_MAX bytes. */
ITG_API int itg_experiment_read(const char *path, itg_experiment **out,
                                char *err, size_t errlen);

/* Frees an experiment (NULL is accepted). */
ITG_API void itg_experiment_free(itg_experiment *e);

/* Returns the number of flows (0 for NULL). */
ITG_API size_t itg_experiment_count(const itg_experiment *e);

/* Copies flow i's settings, as its line gave them, into *out (the first
 * `size` bytes of the library's itg_flow_cfg; itg_experiment_flow_cfg
 * passes sizeof *out). Returns 0, or ITG_EINVAL (NULL e or out, i out of
 * range, a size this library does not know), out untouched. */
ITG_API int itg_experiment_flow_cfg_size(const itg_experiment *e, size_t i,
                                         itg_flow_cfg *out, size_t size);
#ifndef SWIG
#define itg_experiment_flow_cfg(e, i, out)                                     \
  itg_experiment_flow_cfg_size((e), (i), (out), sizeof *(out))
#endif

/* Returns flow i's options as its line wrote them, its placement word,
 * its comment and the white space around them left out: "-a @2 -T UDP
 * -C 1000" for the line "@1  -a @2 -T UDP -C 1000  # voice". A program
 * that runs the flow elsewhere (itg-ctl) sends this text with words of
 * its own appended, which win over the line's (a later option overrides
 * an earlier one): "-a 10.0.0.2 -Sdp 40123" in place of "-a @2". Valid
 * until e is freed; NULL for a NULL e or i out of range. */
ITG_API const char *itg_experiment_flow_text(const itg_experiment *e,
                                             size_t i);

/* Copies flow i's line number, placements and weight into *out (the first
 * `size` bytes; itg_experiment_flow_at passes sizeof *out). Returns 0, or
 * ITG_EINVAL (NULL e or out, i out of range, a size this library does not
 * know), out untouched. */
ITG_API int itg_experiment_flow_at_size(const itg_experiment *e, size_t i,
                                        itg_experiment_flow *out, size_t size);
#ifndef SWIG
#define itg_experiment_flow_at(e, i, out)                                      \
  itg_experiment_flow_at_size((e), (i), (out), sizeof *(out))
#endif

/* Fills job with the defaults (no ranks, no host names) and
 * job->struct_size with `size`: itg_experiment_job_init(job) passes
 * sizeof *job. Returns 0, or ITG_EINVAL (NULL job, or a size this library
 * does not know), job untouched. */
ITG_API int itg_experiment_job_init_size(itg_experiment_job *job, size_t size);
#ifndef SWIG
#define itg_experiment_job_init(job)                                           \
  itg_experiment_job_init_size((job), sizeof *(job))
#endif

/* Places the experiment on a job (the rule is in this header's first
 * comment): host names become ranks, and each flow without a sender gets
 * one. senders[i] and receivers[i] receive flow i's sender rank and
 * receiver rank (-1 for an address outside the job), for i in 0..n-1, n
 * being itg_experiment_count(e). The experiment is not changed, so it may
 * be placed on several jobs. On failure the arrays are left untouched and
 * err (if not NULL; always terminated when errlen > 0) names the line:
 * a rank the job does not have, a host none of its ranks runs on. Returns
 * 0, ITG_EINVAL (those, a NULL argument, n not the flow count, nranks
 * outside 1..ITG_EXPERIMENT_RANKS_MAX, a NULL host name) or ITG_ENOMEM. */
ITG_API int itg_experiment_place(const itg_experiment *e,
                                 const itg_experiment_job *job, int *senders,
                                 int *receivers, size_t n, char *err,
                                 size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
