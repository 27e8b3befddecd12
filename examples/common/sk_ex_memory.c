/* Host memory: what this process may take (sk_ex_memory.h). */
#include "sk_ex_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first unsigned number in file `path`, or 0 when it cannot be read ("max" reads as nothing). */
static int read_u64_file(const char *path, uint64_t *value) {
  FILE *f = fopen(path, "r");
  unsigned long long v = 0;
  int ok;
  if (f == NULL) return 1;
  ok = fscanf(f, "%llu", &v) == 1;
  fclose(f);
  if (!ok) return 1;
  *value = (uint64_t)v;
  return 0;
}

/* MemAvailable of /proc/meminfo in bytes. */
static int read_mem_available(uint64_t *bytes) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  int found = 0;
  if (f == NULL) return 1;
  while (!found && fgets(line, sizeof line, f) != NULL) {
    unsigned long long kb;
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
      *bytes = (uint64_t)kb * 1024u;
      found = 1;
    }
  }
  fclose(f);
  return found ? 0 : 1;
}

/* Room under the control group's limit: v2, then v1. */
static int read_cgroup_room(uint64_t *bytes) {
  uint64_t limit, used;
  if (read_u64_file("/sys/fs/cgroup/memory.max", &limit) == 0 &&
      read_u64_file("/sys/fs/cgroup/memory.current", &used) == 0) {
    *bytes = limit > used ? limit - used : 0;
    return 0;
  }
  if (read_u64_file("/sys/fs/cgroup/memory/memory.limit_in_bytes", &limit) == 0 &&
      read_u64_file("/sys/fs/cgroup/memory/memory.usage_in_bytes", &used) == 0 && limit < (UINT64_C(1) << 60)) {
    *bytes = limit > used ? limit - used : 0;
    return 0;
  }
  return 1;
}

int sk_ex_parse_bytes(const char *text, uint64_t *bytes) {
  uint64_t v = 0, scale = 1;
  const char *p = text;
  if (text == NULL || *p < '0' || *p > '9') return 1;
  for (; *p >= '0' && *p <= '9'; ++p) {
    const uint64_t d = (uint64_t)(*p - '0');
    if (v > (UINT64_MAX - d) / 10u) return 1;
    v = v * 10u + d;
  }
  if (*p != '\0') {
    const char *units = "KMGT";
    const char *u = strchr(units, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    if (u == NULL || p[1] != '\0') return 1;
    for (const char *q = units; q <= u; ++q) scale *= 1024u;
  }
  if (v > UINT64_MAX / scale) return 1;
  *bytes = v * scale;
  return 0;
}

uint64_t sk_ex_host_memory_available(int *from_env) {
  uint64_t best = UINT64_MAX, v;
  const char *env = getenv(SK_EX_HOST_MEMORY_ENV);
  int known = 0;
  if (from_env != NULL) *from_env = 0;
  if (read_mem_available(&v) == 0) {
    best = v;
    known = 1;
  }
  if (read_cgroup_room(&v) == 0 && v < best) best = v;
  if (!known) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (uint64_t)pages < best / (uint64_t)page) best = (uint64_t)pages * (uint64_t)page;
  }
  if (env != NULL && sk_ex_parse_bytes(env, &v) == 0 && v <= best) {
    best = v;
    if (from_env != NULL) *from_env = 1;
  }
  return best;
}

const char *sk_ex_format_bytes(char *buf, size_t cap, uint64_t bytes) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  int u = -1;
  if (bytes < 1024u) {
    snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
    return buf;
  }
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  snprintf(buf, cap, v < 10.0 ? "%.2f %s" : v < 100.0 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

const char *sk_ex_describe_available(char *buf, size_t cap, uint64_t available, int from_env) {
  char b[32];
  if (available == UINT64_MAX)
    snprintf(buf, cap, "this machine's free memory is unknown");
  else if (from_env)
    snprintf(buf, cap, "%s allows %s", SK_EX_HOST_MEMORY_ENV, sk_ex_format_bytes(b, sizeof b, available));
  else
    snprintf(buf, cap, "this machine has %s available", sk_ex_format_bytes(b, sizeof b, available));
  return buf;
}

int sk_ex_host_memory_refuses(uint64_t need, char *why, size_t cap) {
  int from_env = 0;
  const uint64_t available = sk_ex_host_memory_available(&from_env);
  char b[32], avail[96];
  if (need <= available) return 0;
  snprintf(why, cap, "%s of host memory; %s", sk_ex_format_bytes(b, sizeof b, need),
           sk_ex_describe_available(avail, sizeof avail, available, from_env));
  return 1;
}
