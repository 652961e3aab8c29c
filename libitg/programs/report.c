/* The QoS report the programs print: ITGDec's text summary with libitg's
 * extra lines, and the JSON report. */
#include <stdio.h>
#include <stdlib.h>

#include "itg.h"
#include "programs/report.h"

static const char rule[] =
    "----------------------------------------------------------\n";

static void line_secs(const char *label, double ns) {
  printf("%-25s= %15.9f s\n", label, ns / 1e9);
}

static void line_count(const char *label, uint64_t v) {
  printf("%-25s= %15llu\n", label, (unsigned long long)v);
}

/* The ITGDec block of one entry or total, with libitg's extra lines. */
static void print_block(const itg_flow_stats *f) {
  int sent = f->meter == ITG_STATS_SENT;
  line_secs("Total time", (double)f->duration_ns);
  line_count(sent ? "Packets sent" : "Total packets", f->packets);
  if (!sent) {
    line_secs("Minimum delay", (double)f->delay_min_ns);
    line_secs("Maximum delay", (double)f->delay_max_ns);
    line_secs("Average delay", f->delay_avg_ns);
    line_secs("Median delay (p50)", (double)f->delay_p50_ns);
    line_secs("99th percentile delay", (double)f->delay_p99_ns);
    line_secs("Average jitter", f->jitter_avg_ns);
    line_secs("RFC 3550 jitter", f->jitter_rfc3550_ns);
    line_secs("Delay standard deviation", f->delay_std_ns);
  }
  line_count(sent ? "Bytes sent" : "Bytes received", f->bytes);
  printf("%-25s= %15.6f Kbit/s\n", "Average bitrate", f->bitrate_kbps);
  printf("%-25s= %15.6f pkt/s\n", "Average packet rate", f->rate_pps);
  if (!sent) {
    printf("%-25s= %15llu (%.2f %%)\n", "Packets dropped",
           (unsigned long long)f->lost, f->loss_pct);
    printf("%-25s= %15.6f pkt\n", "Average loss-burst size", f->loss_burst_avg);
    line_count("Duplicate packets", f->duplicates);
    line_count("Reordered packets", f->reordered);
  }
  if (f->log_gaps > 0)
    line_count("Log records lost", f->log_gaps);
}

int itg__cli_report_text(const itg_stats *s) {
  size_t n = itg_stats_flow_count(s);
  itg_stats_meter m;
  itg_flow_stats f;
  int shown = 0;
  for (size_t i = 0; i < n; i++) {
    itg_stats_flow(s, i, &f);
    printf("%sFlow number: %u (%s)\n%s", rule, (unsigned)f.flow_id,
           itg_stats_meter_title((itg_stats_meter)f.meter), rule);
    print_block(&f);
  }
  if (n > 0)
    fputs(rule, stdout);
  for (size_t i = 0; (m = itg_stats_meter_at(i)) != ITG_STATS_MAIN; i++) {
    int rc = itg_stats_total(s, m, &f);
    if (rc != 0)
      return rc;
    if (f.flows == 0 && (shown || m != itg_stats_main_meter(s)))
      continue;
    printf("\n__________________________________________________________\n"
           "****************  TOTAL RESULTS   ******************\n"
           "__________________________________________________________\n"
           "%-25s= %s\n",
           "Meter", itg_stats_meter_title((itg_stats_meter)f.meter));
    line_count("Number of flows", f.flows);
    print_block(&f);
    fputs(rule, stdout);
    shown = 1;
  }
  return 0;
}

char *itg__cli_stats_json(const itg_stats *s, int *rc) {
  size_t need = 0;
  char *buf;
  *rc = itg_stats_json(s, NULL, 0, &need);
  if (*rc != ITG_ERANGE)
    return NULL;
  buf = malloc(need);
  if (buf == NULL) {
    *rc = ITG_ENOMEM;
    return NULL;
  }
  *rc = itg_stats_json(s, buf, need, NULL);
  if (*rc == 0)
    return buf;
  free(buf);
  return NULL;
}

int itg__cli_report_json(const itg_stats *s) {
  int rc;
  char *buf = itg__cli_stats_json(s, &rc);
  if (buf != NULL)
    printf("%s\n", buf);
  free(buf);
  return rc;
}
