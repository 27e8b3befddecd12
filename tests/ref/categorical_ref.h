/* Host reference for SK_CATEGORICAL_GROUP_ROW (sample_categorical.h): replays its order bit for bit. */
#ifndef SAMPLEKIT_TESTS_CATEGORICAL_REF_H
#define SAMPLEKIT_TESTS_CATEGORICAL_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* One row of K weights, G lanes (4..32) of V = 4 or 1 entries each; returns the index or -1, *total the
   row total. */
int sk_ref_categorical_group_row_f32(const float *w, int K, int G, int V, float uniform, float *total);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLEKIT_TESTS_CATEGORICAL_REF_H */
