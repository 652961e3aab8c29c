/* The JSON report of an itg_stats (shape in itg/stats.h), built from the
 * public queries only. */
#include "itg/stats.h"

#include "core/text.h"

static void key_u64(itg__text *t, const char *key, uint64_t v) {
  itg__text_str(t, key);
  itg__text_u64(t, v);
}

/* A key and a time in ns written as seconds. */
static void key_secs(itg__text *t, const char *key, double ns) {
  itg__text_str(t, key);
  itg__text_fixed(t, ns / 1e9, 9);
}

static void key_real(itg__text *t, const char *key, double v) {
  itg__text_str(t, key);
  itg__text_fixed(t, v, 6);
}

static void put_object(itg__text *t, const itg_flow_stats *f) {
  key_u64(t, "{\"flow\":", f->flow_id);
  key_u64(t, ",\"packets\":", f->packets);
  key_u64(t, ",\"lost\":", f->lost);
  key_u64(t, ",\"bytes\":", f->bytes);
  key_secs(t, ",\"delay_avg_s\":", f->delay_avg_ns);
  key_secs(t, ",\"delay_min_s\":", (double)f->delay_min_ns);
  key_secs(t, ",\"delay_max_s\":", (double)f->delay_max_ns);
  key_secs(t, ",\"delay_std_s\":", f->delay_std_ns);
  key_secs(t, ",\"jitter_avg_s\":", f->jitter_avg_ns);
  key_real(t, ",\"bitrate_kbps\":", f->bitrate_kbps);
  key_real(t, ",\"rate_pps\":", f->rate_pps);
  itg__text_str(t, ",\"meter\":\"");
  itg__text_str(t, itg_stats_meter_name((itg_stats_meter)f->meter));
  key_secs(t, "\",\"duration_s\":", (double)f->duration_ns);
  key_secs(t, ",\"delay_p50_s\":", (double)f->delay_p50_ns);
  key_secs(t, ",\"delay_p99_s\":", (double)f->delay_p99_ns);
  key_secs(t, ",\"jitter_rfc3550_s\":", f->jitter_rfc3550_ns);
  key_u64(t, ",\"expected\":", f->expected);
  key_real(t, ",\"loss_pct\":", f->loss_pct);
  key_u64(t, ",\"loss_bursts\":", f->loss_bursts);
  key_real(t, ",\"loss_burst_avg\":", f->loss_burst_avg);
  key_u64(t, ",\"duplicates\":", f->duplicates);
  key_u64(t, ",\"reordered\":", f->reordered);
  key_u64(t, ",\"log_gaps\":", f->log_gaps);
  itg__text_str(t, "}");
}

int itg_stats_json(const itg_stats *s, char *buf, size_t len, size_t *needed) {
  itg_stats_meter m;
  itg__text t;
  itg_flow_stats f;
  const char *sep = "";
  size_t n;
  int rc;
  if (s == NULL || (buf == NULL && len > 0))
    return ITG_EINVAL;
  itg__text_init(&t, buf, len);
  itg__text_str(&t, "{\"flows\":[");
  n = itg_stats_flow_count(s);
  for (size_t i = 0; i < n; i++) {
    itg_stats_flow(s, i, &f);
    itg__text_str(&t, i > 0 ? "," : "");
    put_object(&t, &f);
  }
  itg__text_str(&t, "],\"total\":");
  rc = itg_stats_total(s, ITG_STATS_MAIN, &f);
  if (rc != 0)
    goto out_discard_text;
  put_object(&t, &f);
  itg__text_str(&t, ",\"totals\":[");
  for (size_t i = 0; (m = itg_stats_meter_at(i)) != ITG_STATS_MAIN; i++) {
    rc = itg_stats_total(s, m, &f);
    if (rc != 0)
      goto out_discard_text;
    if (f.flows == 0)
      continue;
    itg__text_str(&t, sep);
    put_object(&t, &f);
    sep = ",";
  }
  itg__text_str(&t, "]}");
  return itg__text_finish(&t, needed);

out_discard_text:
  if (len > 0)
    buf[0] = '\0';
  return rc;
}
