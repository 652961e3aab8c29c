/* The meters, in report order, with their names: one table for the JSON
 * report, itg-dec's headings and the bindings (see itg/stats.h and
 * itg/flow.h). */
#include "itg/flow.h"
#include "itg/stats.h"

static const struct meter_names {
  itg_stats_meter meter;
  const char *name;  /* the JSON report's word */
  const char *title; /* a report's heading */
} meters[] = {
    {ITG_STATS_OWD, "owd", "one-way delay"},
    {ITG_STATS_RTT, "rtt", "round-trip time"},
    {ITG_STATS_SENT, "sent", "sent packets"},
};

static const struct meter_names *find(itg_stats_meter meter) {
  for (size_t i = 0; i < sizeof meters / sizeof meters[0]; i++)
    if (meters[i].meter == meter)
      return &meters[i];
  return NULL;
}

itg_stats_meter itg_stats_meter_at(size_t i) {
  return i < sizeof meters / sizeof meters[0] ? meters[i].meter
                                              : ITG_STATS_MAIN;
}

const char *itg_stats_meter_name(itg_stats_meter meter) {
  const struct meter_names *m = find(meter);
  return m != NULL ? m->name : "unknown";
}

const char *itg_stats_meter_title(itg_stats_meter meter) {
  const struct meter_names *m = find(meter);
  return m != NULL ? m->title : "unknown meter";
}

/* A flow's meter gives the records its delays are reported under. */
const char *itg_meter_name(itg_meter meter) {
  switch (meter) {
  case ITG_METER_OWD:
    return itg_stats_meter_name(ITG_STATS_OWD);
  case ITG_METER_RTT:
    return itg_stats_meter_name(ITG_STATS_RTT);
  }
  return itg_stats_meter_name(ITG_STATS_MAIN);
}
