/* The CPU z-step's inner loop for any CPU (zstep_cpu_chunk.h). */
#include "zstep.h"
#include "zstep_cpu_chunk.h"

void sk_mix_detail_draw_chunk(const sk_mix_detail_chunk *a, int64_t lo, int64_t hi) {
  int64_t i;
  for (i = lo; i < hi; ++i)
    a->z[i] = sk_mix_draw_point(a->x + (size_t)i * (size_t)a->d, a->d, a->k, a->c, a->s_kj, a->ms_kj, 1, a->d, a->seed,
                                a->sweep, a->first + i);
}
