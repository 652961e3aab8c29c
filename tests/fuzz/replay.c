/* Runs a harness over files and directories of inputs, for builds
 * without libFuzzer: the corpora are replayed by every `make test`. A
 * finding aborts, naming the input on stderr first. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  long len;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    if (f != NULL)
      fclose(f);
    return 1;
  }
  buf = malloc(len > 0 ? (size_t)len : 1);
  if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    fclose(f);
    return 1;
  }
  fclose(f);
  fprintf(stderr, "replay: %s\n", path);
  LLVMFuzzerTestOneInput(buf, (size_t)len);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int bad = 0, n = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    DIR *d;
    struct dirent *e;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no %s\n", argv[i]);
      bad = 1;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad |= replay_file(argv[i]);
      n++;
      continue;
    }
    d = opendir(argv[i]);
    if (d == NULL) {
      fprintf(stderr, "replay: cannot list %s\n", argv[i]);
      bad = 1;
      continue;
    }
    while ((e = readdir(d)) != NULL) {
      char path[4096];
      if (e->d_name[0] == '.')
        continue;
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      bad |= replay_file(path);
      n++;
    }
    closedir(d);
  }
  printf("replay: %d inputs, %s\n", n, bad ? "some unreadable" : "no finding");
  return bad;
}
