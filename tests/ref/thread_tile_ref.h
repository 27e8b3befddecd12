/*
 * Host reference for samplekit's thread-tile sampler (include/samplekit/thread_tile_sample.h), in plain
 * C, written from the group's documentation rather than from the header: the tile's tree by recursion
 * on halves, the search by recursion down the halves, the exponential by nearbyintf and ldexpf, the
 * reservoir by its formulas. Every float operation is rounded once, in the documented order (this file
 * is compiled as ISO C99, so the compiler fuses nothing), so the results can be compared bit for bit.
 */
#ifndef SAMPLEKIT_TESTS_THREAD_TILE_REF_H
#define SAMPLEKIT_TESTS_THREAD_TILE_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* Planted bugs for the tests' control: each changes one documented rule, so that a test whose cases
   exercise that rule must see a mismatch. */
enum sk_ref_tile_bug {
  SK_REF_TILE_NO_BUG = 0,
  SK_REF_TILE_BUG_SEQUENTIAL_SUM = 1, /* tile sums left to right instead of along the tree */
  SK_REF_TILE_BUG_TIE_LEFT = 2,       /* the search goes right only when u > edge (u on an edge goes left) */
  SK_REF_TILE_BUG_RESERVOIR_TIE = 3,  /* the reservoir takes a tile when u_b S <= W (a tie replaces) */
  SK_REF_TILE_BUG_EXP_TRUNCATE = 4,   /* the exponential splits y at trunc(y) instead of round(y) */
  SK_REF_TILE_BUGS = 5
};

/* Sets the planted bug for the calls that follow (SK_REF_TILE_NO_BUG: the documented rules). */
void sk_ref_tile_plant_bug(int bug);

/* The tree sum and minimum of v[0 .. width) (width a power of two, 1 to 32). */
float sk_ref_tile_sum_f32(const float *v, int width);
float sk_ref_tile_min_f32(const float *v, int width);

/* The search for u down the tree of v[0 .. width), from base +0: the position 0 .. width - 1. */
int sk_ref_tile_search_f32(const float *v, int width, float u);

/* The edges the search compares u with on its way to position `pos` (one per level, root first), and
   their count log2(width): for placing u exactly on a boundary. */
int sk_ref_tile_edges_f32(const float *v, int width, int pos, float *edges);

/* 2^y for y <= 0 as the header defines it; +0 below -125 and for NaN. */
float sk_ref_tile_exp2_neg_f32(float y);

/* The reservoir's state and one tile's step (b = 0 starts a draw); returns 1 when tile b is taken. */
typedef struct sk_ref_tile_reservoir {
  float h, s, t_sel;
  int sel;
} sk_ref_tile_reservoir;
int sk_ref_tile_reservoir_step_f32(sk_ref_tile_reservoir *r, int b, float h_b, float t_b, float u_b);

/* A whole draw from K weights in tiles of `width`: u[0] for the final search, u[b] for tile b's step
   (ceil(K / width) uniforms). Log2 form (linear = 0): q[k] is minus the log2-weight of entry k (+inf: no
   weight), each tile shifted by its smallest q. Linear form (linear = 1): q[k] is the weight itself and
   every shift is 0. Absent entries past K count as +inf (log2 form) or 0 (linear form). Returns the
   index; *t_sel (when not NULL) receives the taken tile's sum. */
int sk_ref_tile_draw_f32(const float *q, int k, int width, int linear, const float *u, float *t_sel);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_THREAD_TILE_REF_H */
