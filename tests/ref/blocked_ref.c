/* Host reference for the blocked warp draw; see blocked_ref.h. */
#include "blocked_ref.h"

#include <stddef.h>

#include "warp_ref.h"

/* Block b's sums: s[r] (member r's R entries in index order, entries past n read as 0) and S[r], the
   members' inclusive warp sum in Kogge-Stone order; both indexed by rank. */
static void block_sums(uint32_t mask, int R, const float *w, int n, int base, float s[32], float S[32]) {
  const int m = sk_ref_popc(mask);
  int r, i;
  for (r = 0; r < m; ++r) {
    float sum = 0.0f;
    for (i = 0; i < R; ++i) {
      const int k = base + r * R + i;
      sum += k < n ? w[k] : 0.0f;
    }
    s[r] = sum;
    S[r] = sum;
  }
  sk_ref_rank_inclusive_sum_f32(S, m);
}

/* The owner's walk over entries [k0, k0 + R) from `base`: the first positive entry whose running sum
   exceeds x (unless past), else its last positive entry. */
static int owner_walk(int R, const float *w, int n, int k0, float base, float x, int past, sk_ref_blocked_bug bug,
                      sk_ref_blocked_path *path) {
  float acc = base;
  int i, last = -1;
  for (i = 0; i < R; ++i) {
    const int k = k0 + i;
    const float wk = k < n ? w[k] : 0.0f;
    acc += wk;
    if (wk > 0.0f) {
      last = k;
      if (!past && (bug == SK_REF_BLOCKED_BUG_TIE_EARLIER ? acc >= x : acc > x)) {
        if (path) *path = SK_REF_BLOCKED_FOUND;
        return k;
      }
    }
  }
  if (path) *path = past ? SK_REF_BLOCKED_NO_OWNER : SK_REF_BLOCKED_OWNER_MISSED;
  return last;
}

static int exceeds(float q, float x, sk_ref_blocked_bug bug) {
  return bug == SK_REF_BLOCKED_BUG_TIE_EARLIER ? q >= x : q > x;
}

float sk_ref_warp_blocked_total_f32(uint32_t mask, int R, const float *w, int n) {
  const int m = sk_ref_popc(mask);
  float carry = 0.0f, s[32], S[32];
  int base;
  for (base = 0; base < n; base += m * R) {
    block_sums(mask, R, w, n, base, s, S);
    carry = carry + S[m - 1];
  }
  return carry;
}

void sk_ref_warp_blocked_running_sums_f32(uint32_t mask, int R, const float *w, int n, float *member_end,
                                          float *entry) {
  const int m = sk_ref_popc(mask);
  float carry = 0.0f, s[32], S[32];
  int base, b = 0, r, i;
  for (base = 0; base < n; base += m * R, ++b) {
    block_sums(mask, R, w, n, base, s, S);
    for (r = 0; r < m; ++r) {
      const float q = carry + S[r];
      float acc = q - s[r];
      if (member_end) member_end[b * m + r] = q;
      for (i = 0; i < R; ++i) {
        const int k = base + r * R + i;
        if (k >= n) break;
        acc += w[k];
        if (entry) entry[k] = acc;
      }
    }
    carry = carry + S[m - 1];
  }
}

int sk_ref_warp_blocked_walk_f32(uint32_t mask, int R, const float *w, int n, float x, sk_ref_blocked_bug bug,
                                 sk_ref_blocked_path *path) {
  const int m = sk_ref_popc(mask);
  float carry = 0.0f, s[32], S[32];
  int base, r, k, last = -1;
  for (base = 0; base < n; base += m * R) {
    block_sums(mask, R, w, n, base, s, S);
    for (r = 0; r < m; ++r) {
      const float q = carry + S[r];
      if (exceeds(q, x, bug) && s[r] > 0.0f) {
        const float from = bug == SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE ? (r > 0 ? carry + S[r - 1] : carry) : q - s[r];
        return owner_walk(R, w, n, base + r * R, from, x, 0, bug, path);
      }
    }
    for (k = base; k < base + m * R && k < n; ++k)
      if (w[k] > 0.0f) last = k;
    carry = carry + S[m - 1];
  }
  if (path) *path = last < 0 ? SK_REF_BLOCKED_EMPTY : SK_REF_BLOCKED_NO_OWNER;
  return last;
}

int sk_ref_warp_blocked_sample_f32(uint32_t mask, int R, const float *w, int n, float u, sk_ref_blocked_bug bug,
                                   sk_ref_blocked_path *path) {
  const int m = sk_ref_popc(mask);
  float s[32], S[32], x;
  int r, owner = -1, past;
  if (n > m * R) n = m * R;
  block_sums(mask, R, w, n, 0, s, S);
  x = u * S[m - 1];
  for (r = 0; r < m && owner < 0; ++r)
    if (exceeds(S[r], x, bug) && s[r] > 0.0f) owner = r;
  past = owner < 0;
  for (r = m - 1; r >= 0 && owner < 0; --r)
    if (s[r] > 0.0f) owner = r;
  if (owner < 0) {
    if (path) *path = SK_REF_BLOCKED_EMPTY;
    return -1;
  }
  return owner_walk(R, w, n, owner * R,
                    bug == SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE ? (owner > 0 ? S[owner - 1] : 0.0f) : S[owner] - s[owner],
                    x, past, bug, path);
}

double sk_ref_warp_blocked_hold_f64(uint32_t mask, int R, const double *w, int n, double sum[32], double running[32]) {
  int lane, rank = 0, i;
  for (lane = 0; lane < 32; ++lane) {
    sum[lane] = 0.0;
    if (!((mask >> lane) & 1u)) continue;
    for (i = 0; i < R; ++i) {
      const int k = rank * R + i;
      sum[lane] += k < n ? w[k] : 0.0;
    }
    ++rank;
  }
  sk_ref_warp_inclusive_sum_f64(mask, sum, running);
  return mask != 0u ? running[31 - __builtin_clz(mask)] : 0.0;
}

int sk_ref_warp_blocked_find_f64(uint32_t mask, int R, const double *w, int n, double x, double *total,
                                 sk_ref_blocked_bug bug, sk_ref_blocked_path *path) {
  double sum[32], running[32];
  int lane, i, owner = -1, last_positive_lane = -1;
  const double hold_total = sk_ref_warp_blocked_hold_f64(mask, R, w, n, sum, running);
  if (total != NULL) *total = hold_total;
  for (lane = 0; lane < 32; ++lane) {
    if (!((mask >> lane) & 1u)) continue;
    if (owner < 0 && sum[lane] > 0.0 && (bug == SK_REF_BLOCKED_BUG_TIE_EARLIER ? running[lane] >= x : running[lane] > x))
      owner = lane;
    if (sum[lane] > 0.0) last_positive_lane = lane;
  }
  {
    const int past = owner < 0;
    int k0, last = -1;
    double acc;
    if (past) owner = last_positive_lane;
    if (owner < 0) {
      if (path) *path = SK_REF_BLOCKED_EMPTY;
      return -1;
    }
    k0 = sk_ref_popc(mask & ((1u << owner) - 1u)) * R;
    acc = running[owner] - sum[owner];
    if (bug == SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE) {
      /* the exclusive warp sum of the member below, instead of Q_r - s_r */
      acc = 0.0;
      for (lane = 0; lane < owner; ++lane)
        if ((mask >> lane) & 1u) acc = running[lane];
    }
    for (i = 0; i < R; ++i) {
      const int k = k0 + i;
      const double wk = k < n ? w[k] : 0.0;
      acc += wk;
      if (wk > 0.0) {
        last = k;
        if (!past && (bug == SK_REF_BLOCKED_BUG_TIE_EARLIER ? acc >= x : acc > x)) {
          if (path) *path = SK_REF_BLOCKED_FOUND;
          return k;
        }
      }
    }
    if (path) *path = past ? SK_REF_BLOCKED_NO_OWNER : SK_REF_BLOCKED_OWNER_MISSED;
    return last;
  }
}

/* Strided layout: the member of rank r holds entries j m + r, j = 0 .. rounds - 1 (rounds = ceil(n / m)). */
float sk_ref_warp_strided_hold_f32(uint32_t mask, int R, const float *w, int n, float sum[32], float running[32],
                                   float *entry) {
  const int m = sk_ref_popc(mask);
  int lane, rank = 0, j;
  if (m == 0) return 0.0f;
  if (n > m * R) n = m * R;
  for (lane = 0; lane < 32; ++lane) {
    sum[lane] = 0.0f;
    if (!((mask >> lane) & 1u)) continue;
    for (j = 0; j * m + rank < n; ++j) sum[lane] += w[j * m + rank];
    ++rank;
  }
  sk_ref_warp_inclusive_sum_f32(mask, sum, running);
  if (entry != NULL) {
    for (lane = 0, rank = 0; lane < 32; ++lane) {
      float acc;
      if (!((mask >> lane) & 1u)) continue;
      acc = running[lane] - sum[lane];
      for (j = 0; j * m + rank < n; ++j) {
        acc += w[j * m + rank];
        entry[j * m + rank] = acc;
      }
      ++rank;
    }
  }
  return n > 0 ? running[31 - __builtin_clz(mask)] : 0.0f;
}

int sk_ref_warp_strided_find_f32(uint32_t mask, int R, const float *w, int n, float x, float *total,
                                 sk_ref_blocked_bug bug, sk_ref_blocked_path *path) {
  float sum[32], running[32];
  const int m = sk_ref_popc(mask);
  int lane, j, owner = -1, last_positive_lane = -1, past, rank, last = -1;
  float acc;
  const float hold_total = sk_ref_warp_strided_hold_f32(mask, R, w, n, sum, running, NULL);
  if (total != NULL) *total = hold_total;
  if (n > m * R) n = m * R;
  for (lane = 0; lane < 32; ++lane) {
    if (!((mask >> lane) & 1u)) continue;
    if (owner < 0 && sum[lane] > 0.0f && exceeds(running[lane], x, bug)) owner = lane;
    if (sum[lane] > 0.0f) last_positive_lane = lane;
  }
  past = owner < 0;
  if (past) owner = last_positive_lane;
  if (owner < 0) {
    if (path) *path = SK_REF_BLOCKED_EMPTY;
    return -1;
  }
  rank = sk_ref_popc(mask & ((1u << owner) - 1u));
  acc = running[owner] - sum[owner];
  if (bug == SK_REF_BLOCKED_BUG_EXCLUSIVE_BASE) {
    /* the running sum of the member below, instead of Q_r - s_r */
    acc = 0.0f;
    for (lane = 0; lane < owner; ++lane)
      if ((mask >> lane) & 1u) acc = running[lane];
  }
  for (j = 0; j * m + rank < n; ++j) {
    const float wk = w[j * m + rank];
    acc += wk;
    if (wk > 0.0f) {
      last = j * m + rank;
      if (!past && exceeds(acc, x, bug)) {
        if (path) *path = SK_REF_BLOCKED_FOUND;
        return last;
      }
    }
  }
  if (path) *path = past ? SK_REF_BLOCKED_NO_OWNER : SK_REF_BLOCKED_OWNER_MISSED;
  return last;
}
