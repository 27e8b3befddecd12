/*
 * Host reference for sk_warp_butterfly_sample_{rows,product}_f32 (include/samplekit/butterfly.cuh), in
 * plain C: one row at a time, in the documented order of additions, so that indices and totals can be
 * compared with the device bit for bit. The device's passes (the slots of running totals, the walk of
 * a slot's blocks, the table spread over 32 lanes) are ways of computing these same numbers; none of
 * them appears here.
 */
#ifndef SAMPLEKIT_TESTS_BUTTERFLY_REF_H
#define SAMPLEKIT_TESTS_BUTTERFLY_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of 32 positions: NB = ceil(K / 32) (0 for K <= 0); block b, position t is column 32 b - P + t
   with P = 32 NB - K (the K mod 32 remnant is block 0; its positions below P are empty: +0.0f). */
int sk_ref_butterfly_num_blocks(int K);
int sk_ref_butterfly_pad(int K);

/* The tree of block b: node[m][n] = S_m(n) for m = 0..5 (node[0] = the 32 positions' weights). */
void sk_ref_butterfly_tree_f32(const float *w, int K, int b, float node[6][32]);

/* Running totals C_0 .. C_(NB-1) after each block (C_b = C_(b-1) + B_b from +0.0f); returns NB. */
int sk_ref_butterfly_running_totals_f32(const float *w, int K, float *running);

/* The row total T = C_(NB-1) (+0.0f when K <= 0). */
float sk_ref_butterfly_total_f32(const float *w, int K);

/* The draw: an index in [0, K) of positive weight, or -1 when T is not > 0 or not finite. *total (when
   not NULL) receives T. */
int sk_ref_butterfly_sample_f32(const float *w, int K, float uniform, float *total);

/* The edges a search that ends at position `pos` of block `b` compares u with: edges[0] = C_(b-1) (the
   block's start), edges[1..5] = base + L at levels 5, 4, 3, 2, 1 on the way to pos (whatever u is, the
   edge of a level depends only on the path above it). For constructing u exactly on a boundary. */
void sk_ref_butterfly_edges_f32(const float *w, int K, int b, int pos, float edges[6]);

/* The product form's weights: w[k] = theta[k] * phi[k], each rounded once to float. */
void sk_ref_butterfly_product_f32(const float *theta, const float *phi, int K, float *w);

/* The plain sequential rule, as an independent check where every sum is exact (integer weights with a
   small total): the first i with w_i > 0 and w_0 + ... + w_i > u, else the last positive, else -1. */
int sk_ref_sequential_sample_f32(const float *w, int K, float u);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_BUTTERFLY_REF_H */
