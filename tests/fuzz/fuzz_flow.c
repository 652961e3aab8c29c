/* Flow scripts as itg-send reads them (-F): the input's lines, each
 * parsed as a flow line, checked and described as the sender does. A
 * line naming a trace file is checked without reading it: a fuzzer must
 * not read whatever file a line names (a terminal would block it). */
#include <string.h>

#include "fuzz.h"
#include "itg/flow.h"

static int names_a_file(const itg_flow_cfg *c) {
  return c->idt.file[0] != '\0' || c->size.file[0] != '\0';
}

static void one_line(const char *line) {
  static itg_flow_cfg c;
  char err[256], desc[512];
  int rc;
  itg_flow_cfg_init(&c);
  err[0] = '\0';
  rc = itg_flow_parse_line(&c, line, err, sizeof err);
  FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
  if (rc <= 0)
    return;
  if (!names_a_file(&c)) {
    rc = itg_flow_validate(&c, err, sizeof err);
    FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
  }
  itg_flow_describe(&c, desc, sizeof desc);
  FUZZ_CHECK(memchr(desc, '\0', sizeof desc) != NULL);
  (void)rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  char *line, *next;
  FUZZ_CHECK(text != NULL);
  memcpy(text, data, size);
  text[size] = '\0';
  for (line = text; line != NULL; line = next) {
    next = strchr(line, '\n');
    if (next != NULL)
      *next++ = '\0';
    one_line(line);
  }
  free(text);
  return 0;
}
