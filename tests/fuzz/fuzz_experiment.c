/* Experiment files (core/experiment.c): the input parsed as an
 * experiment, then placed on a job of four ranks on three hosts. An input
 * holding an 'F' is skipped: -Ft and -Fs read the file they name (quotes
 * can build those words, -"F"t), and a fuzzer must not read whatever file
 * it names. */
#include <string.h>

#include "fuzz.h"
#include "itg/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const hosts[4] = {"alpha", "beta", "beta", "gamma"};
  static int senders[ITG_EXPERIMENT_FLOWS_MAX];
  static int receivers[ITG_EXPERIMENT_FLOWS_MAX];
  itg_experiment *e = NULL;
  itg_experiment_job job;
  char err[256];
  size_t i, n;
  int rc;
  if (memchr(data, 'F', size) != NULL)
    return 0;
  memset(err, 'x', sizeof err);
  rc = itg_experiment_parse((const char *)data, size, &e, err, sizeof err);
  FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
  FUZZ_CHECK((rc == 0) == (e != NULL));
  FUZZ_CHECK(rc <= 0);
  if (rc != 0)
    return 0;
  n = itg_experiment_count(e);
  FUZZ_CHECK(n >= 1 && n <= ITG_EXPERIMENT_FLOWS_MAX);
  FUZZ_CHECK(itg_experiment_job_init(&job) == 0);
  job.nranks = 4;
  job.hosts = hosts;
  rc = itg_experiment_place(e, &job, senders, receivers, n, err, sizeof err);
  FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
  for (i = 0; rc == 0 && i < n; i++) {
    itg_experiment_flow f;
    FUZZ_CHECK(itg_experiment_flow_at(e, i, &f) == 0);
    FUZZ_CHECK(senders[i] >= 0 && senders[i] < 4);
    FUZZ_CHECK(receivers[i] >= -1 && receivers[i] < 4);
    FUZZ_CHECK((receivers[i] == -1) ==
               (f.receiver == ITG_EXPERIMENT_ADDRESS));
    FUZZ_CHECK(f.sender != ITG_EXPERIMENT_RANK || senders[i] == f.sender_rank);
    FUZZ_CHECK(f.sender != ITG_EXPERIMENT_ANY || senders[i] != 0);
  }
  itg_experiment_free(e);
  return 0;
}
