/*
 * The inner loop of the CPU z-step (zstep_cpu.c), compiled in two translation units: zstep_cpu_plain.c
 * for any CPU, and zstep_cpu_fma.c with -mfma on x86-64, where fmaf is one instruction instead of a
 * library call. Both round every fused multiply-add once, so they draw the same components; flags are
 * per file so that every inline helper in the FMA file (sk_mix_draw_point() and what it calls, inlined
 * or not) is compiled for FMA, which a target attribute on one function does not achieve.
 */
#ifndef SK_MIX_ZSTEP_CPU_CHUNK_H
#define SK_MIX_ZSTEP_CPU_CHUNK_H

#include <stdint.h>

/* One call's arguments: points [lo, hi) of x (global index first + i), the table in [k][j] layout. */
typedef struct sk_mix_detail_chunk {
  const float *x, *c, *s_kj, *ms_kj;
  int64_t first;
  int32_t d, k;
  uint64_t seed, sweep;
  int32_t *z;
} sk_mix_detail_chunk;

/* z[i] = sk_mix_draw_point() of point i, for i in [lo, hi). */
void sk_mix_detail_draw_chunk(const sk_mix_detail_chunk *a, int64_t lo, int64_t hi);
/* The same, compiled with -mfma (only where SK_MIX_HAVE_FMA_VARIANT is defined; call only when the
   CPU has FMA). */
void sk_mix_detail_draw_chunk_fma(const sk_mix_detail_chunk *a, int64_t lo, int64_t hi);

#endif /* SK_MIX_ZSTEP_CPU_CHUNK_H */
