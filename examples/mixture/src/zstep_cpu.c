/* The CPU reference z-step (zstep_cpu.h). */
#include "zstep_cpu.h"

#include <stdlib.h>

#include "zstep_cpu_chunk.h"

/* Points per chunk handed to a thread. */
#define SK_MIX_CPU_CHUNK 256

int sk_mix_zstep_cpu(const float *x, int64_t first, int64_t count, const sk_mix_ztable *t, uint64_t seed,
                     uint64_t sweep, int threads, int32_t *z, sk_ex_error *err) {
  const int32_t k = t->k, d = t->d;
  const size_t kd = (size_t)k * (size_t)d;
  /* Component-major copies ([k][j]): the CPU walks one component's D values at a time. */
  float *s_kj = (float *)malloc(sizeof(float) * kd), *ms_kj = (float *)malloc(sizeof(float) * kd);
  int32_t a, j;
  if (s_kj == NULL || ms_kj == NULL) {
    free(s_kj);
    free(ms_kj);
    return sk_ex_fail(err, "z-step: out of memory for the table (%d x %d)", (int)k, (int)d);
  }
  for (a = 0; a < k; ++a)
    for (j = 0; j < d; ++j) {
      s_kj[(size_t)a * (size_t)d + (size_t)j] = t->s[(size_t)j * (size_t)t->k_pad + (size_t)a];
      ms_kj[(size_t)a * (size_t)d + (size_t)j] = t->ms[(size_t)j * (size_t)t->k_pad + (size_t)a];
    }
  const sk_mix_detail_chunk args = {x, t->c, s_kj, ms_kj, first, d, k, seed, sweep, z};
  const int64_t chunks = (count + SK_MIX_CPU_CHUNK - 1) / SK_MIX_CPU_CHUNK;
  int use_fma = 0;
  int64_t ch;
#ifdef SK_MIX_HAVE_FMA_VARIANT
  use_fma = __builtin_cpu_supports("fma");
#endif
  threads = sk_mix_threads(threads);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4)
  for (ch = 0; ch < chunks; ++ch) {
    const int64_t lo = ch * SK_MIX_CPU_CHUNK, hi = lo + SK_MIX_CPU_CHUNK < count ? lo + SK_MIX_CPU_CHUNK : count;
#ifdef SK_MIX_HAVE_FMA_VARIANT
    if (use_fma) {
      sk_mix_detail_draw_chunk_fma(&args, lo, hi);
      continue;
    }
#endif
    sk_mix_detail_draw_chunk(&args, lo, hi);
  }
  (void)use_fma;
  free(s_kj);
  free(ms_kj);
  return 0;
}
