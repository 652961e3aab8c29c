/* The account of a run over several places (see run_report.h). */
#include "programs/run_report.h"

#include <stdio.h>

#include "programs/cli.h"

static double us(int64_t ns) { return (double)ns / 1e3; }

static const char *place_state(const itg__cli_run_place *p) {
  if (p->silent)
    return "silent (given up)";
  if (!p->reported)
    return "no report";
  if (p->error[0] != '\0')
    return "failed";
  return "ok";
}

/* "WORD N (HOST)", or the address of a receiver outside the run. */
static void where(const itg__cli_run *run, int i, const char *addr, char *buf,
                  size_t len) {
  if (i < 0)
    snprintf(buf, len, "%s (outside the job)", addr);
  else
    snprintf(buf, len, "%s %d (%s)", run->word, i, run->place[i].host);
}

int itg__cli_run_failed_places(const itg__cli_run *run) {
  int n = 0;
  for (int i = 0; i < run->places; i++) {
    const itg__cli_run_place *p = &run->place[i];
    n += p->error[0] != '\0' || p->silent || !p->reported;
  }
  return n;
}

size_t itg__cli_run_failed_flows(const itg__cli_run *run) {
  size_t n = 0;
  for (size_t i = 0; i < run->flows; i++)
    n += !run->flow[i].reported || run->flow[i].status != 0;
  return n;
}

void itg__cli_run_tell_failures(const itg__cli_run *run) {
  char msg[2400], s[320], r[320];
  for (int i = 0; i < run->places; i++) {
    const itg__cli_run_place *p = &run->place[i];
    if (p->silent)
      snprintf(msg, sizeof msg,
               "%s %d (%s) went silent: given up, its flows not reported",
               run->word, i, p->host);
    else if (!p->reported)
      snprintf(msg, sizeof msg, "%s %d (%s) sent no report", run->word, i,
               p->host);
    else if (p->error[0] != '\0')
      snprintf(msg, sizeof msg, "%s %d (%s): %s", run->word, i, p->host,
               p->error);
    else if (p->spilled > 0)
      snprintf(msg, sizeof msg,
               "%s %d (%s) kept %llu records in its spill file %s (decode "
               "it with %s)",
               run->word, i, p->host, (unsigned long long)p->spilled,
               p->spill_path, p->log_path);
    else
      continue;
    itg__cli_error(run->prog, msg);
  }
  for (size_t i = 0; i < run->flows; i++) {
    const itg__cli_run_flow *f = &run->flow[i];
    if (f->reported && f->status == 0)
      continue;
    where(run, f->sender, "", s, sizeof s);
    where(run, f->receiver, f->receiver_addr, r, sizeof r);
    if (f->reported)
      snprintf(msg, sizeof msg, "flow %u (line %u, %s -> %s): %s",
               (unsigned)f->flow_id, f->line, s, r, f->error);
    else
      snprintf(msg, sizeof msg,
               "flow %u (line %u, %s -> %s): its sender %s did not report",
               (unsigned)f->flow_id, f->line, s, r, run->word);
    itg__cli_error(run->prog, msg);
  }
}

static void print_places(const itg__cli_run *run) {
  printf("%-5s %-16s %-16s %6s %5s %5s %12s %10s %10s %6s %8s  %s\n",
         run->word, "host", "address", "port", "sends", "recvs", "offset_us",
         "+-_us", "records", "gaps", "spilled", "state");
  for (int i = 0; i < run->places; i++) {
    const itg__cli_run_place *p = &run->place[i];
    printf("%-5d %-16.16s %-16.16s %6u %5u %5u %12.3f %10.3f %10llu %6llu "
           "%8llu  %s\n",
           i, p->host, p->addr[0] != '\0' ? p->addr : "-", p->port, p->sends,
           p->receives, us(p->offset_ns), us(p->uncertainty_ns),
           (unsigned long long)p->records, (unsigned long long)p->gaps,
           (unsigned long long)p->spilled, place_state(p));
  }
}

static void print_flows(const itg__cli_run *run) {
  printf("%-6s %-5s %-28s %-28s %10s %10s  %s\n", "flow", "line", "sender",
         "receiver", "sent", "received", "status");
  for (size_t i = 0; i < run->flows; i++) {
    const itg__cli_run_flow *f = &run->flow[i];
    char s[320], r[320];
    where(run, f->sender, "", s, sizeof s);
    where(run, f->receiver, f->receiver_addr, r, sizeof r);
    printf("%-6u %-5u %-28.28s %-28.28s %10llu %10llu  %s\n",
           (unsigned)f->flow_id, f->line, s, r,
           (unsigned long long)f->packets, (unsigned long long)f->received,
           !f->reported ? "not reported" : f->status != 0 ? "failed" : "ok");
  }
}

void itg__cli_run_print_text(const itg__cli_run *run) {
  printf("%d %ss, %zu flows; first departures within %.1f us of one "
         "another (clocks known to +-%.1f us)%s\n",
         run->places, run->word, run->flows, us(run->start_skew_ns),
         us(run->skew_uncertainty_ns),
         run->correct ? "" : "; delays not corrected for clock offsets");
  print_places(run);
  print_flows(run);
}

/* Writes s as a JSON string. */
static void json_str(const char *s) {
  putchar('"');
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

void itg__cli_run_print_json(const itg__cli_run *run, const char *stats_json) {
  printf("{\"%ss\":[", run->word);
  for (int i = 0; i < run->places; i++) {
    const itg__cli_run_place *p = &run->place[i];
    printf("%s{\"%s\":%d,\"host\":", i ? "," : "", run->word, i);
    json_str(p->host);
    printf(",\"address\":");
    json_str(p->addr);
    printf(",\"port\":%u,\"sends\":%u,\"receives\":%u,\"offset_s\":%.9f,"
           "\"uncertainty_s\":%.9f,\"records\":%llu,\"gaps\":%llu,"
           "\"spilled\":%llu,\"lost\":%llu,\"malformed\":%llu,"
           "\"reported\":%s,\"silent\":%s,\"error\":",
           p->port, p->sends, p->receives, p->offset_ns / 1e9,
           p->uncertainty_ns / 1e9, (unsigned long long)p->records,
           (unsigned long long)p->gaps, (unsigned long long)p->spilled,
           (unsigned long long)p->lost, (unsigned long long)p->malformed,
           p->reported ? "true" : "false", p->silent ? "true" : "false");
    json_str(p->error);
    printf(",\"log\":");
    json_str(p->log_path);
    printf(",\"spill\":");
    json_str(p->spill_path);
    putchar('}');
  }
  printf("],\"flows\":[");
  for (size_t i = 0; i < run->flows; i++) {
    const itg__cli_run_flow *f = &run->flow[i];
    printf("%s{\"flow\":%u,\"line\":%u,\"sender_%s\":%d,"
           "\"receiver_%s\":%d,\"receiver\":",
           i ? "," : "", (unsigned)f->flow_id, f->line, run->word, f->sender,
           run->word, f->receiver);
    json_str(f->receiver_addr);
    printf(",\"port\":%u,\"data_port\":%u,\"reported\":%s,\"status\":",
           f->port, f->data_port, f->reported ? "true" : "false");
    json_str(f->reported ? itg_err_name(f->status) : "");
    printf(",\"error\":");
    json_str(f->error);
    printf(",\"sent\":%llu,\"bytes\":%llu,\"received\":%llu,"
           "\"first_tx_s\":%.9f,\"last_tx_s\":%.9f}",
           (unsigned long long)f->packets, (unsigned long long)f->bytes,
           (unsigned long long)f->received, f->first_tx_ns / 1e9,
           f->last_tx_ns / 1e9);
  }
  printf("],\"start_s\":%.9f,\"start_skew_s\":%.9f,"
         "\"skew_uncertainty_s\":%.9f,\"clock_correction\":%s,\"report\":%s}\n",
         run->start_ns / 1e9, run->start_skew_ns / 1e9,
         run->skew_uncertainty_ns / 1e9, run->correct ? "true" : "false",
         stats_json);
}
