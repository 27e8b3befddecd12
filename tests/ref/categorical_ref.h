/* Host reference for SK_CATEGORICAL_WARP_ROW (sample_categorical.h): replays its order bit for bit. */
#ifndef SAMPLEKIT_TESTS_CATEGORICAL_REF_H
#define SAMPLEKIT_TESTS_CATEGORICAL_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* One row of K weights, V = 4 or 1 entries per lane; returns the index or -1, *total the row total. */
int sk_ref_categorical_warp_row_f32(const float *w, int K, int V, float uniform, float *total);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_CATEGORICAL_REF_H */
