/**
 * \file zstep_cpu.h
 * \brief The CPU reference z-step: sk_mix_draw_point() (zstep.h) for every point, over OpenMP threads.
 */
#ifndef SK_MIX_ZSTEP_CPU_H
#define SK_MIX_ZSTEP_CPU_H

#include <stdint.h>

#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Draws z for points [first, first + count) of `x` from the table: z[i] for point first + i.
 *
 * Each point's draw depends only on its values, the table, the seed, the sweep and its index, so the
 * result does not depend on `threads`. On x86-64 CPUs with FMA the fused multiply-adds are
 * instructions, elsewhere the C library's fmaf; both round once, so the bits are the same.
 * \param x the points, row-major with D = t->d values each (point i at x + i * D).
 * \param first the index of x's first point, for the uniforms.
 * \param count points to draw.
 * \param t the table (K = t->k).
 * \param seed the run's seed.
 * \param sweep the sweep.
 * \param threads OpenMP threads (<= 0: all).
 * \param z receives `count` components.
 * \param err out of memory.
 * \return 0 on success.
 */
int sk_mix_zstep_cpu(const float *x, int64_t first, int64_t count, const sk_mix_ztable *t, uint64_t seed,
                     uint64_t sweep, int threads, int32_t *z, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_ZSTEP_CPU_H */
