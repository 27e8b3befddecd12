// The z-step kernel table (mix_gpu.h describes it): the rows, what each needs, and the lookup that picks
// one for D, K and the device before anything is allocated. Host code only: no kernel is defined here
// (zstep_gpu.cu turns a choice into a kernel and launches it).
#include <stdio.h>
#include <string.h>

#include "sk_ex_cuda_check.cuh"
#include "gpu/mix_gpu.h"
#include "gpu/zstep_gpu.cuh"
#include "zstep.h"

#define SK_EX_CUDA_SCOPE "GPU"

namespace sk_mix_gpu_detail {
namespace {

struct zstep_row_text {
  const char *name;   // what the kernel does, in a word or three
  const char *what;   // one line
  const char *needs;  // one line
};

// In the order of zstep_row (zstep_gpu.cuh).
const zstep_row_text kRows[kZstepRows] = {
    {"thread-reference", "a thread per point running sk_mix_draw_point(), the CPU's code",
     "any D and K; never chosen (the reference on the device, for tests)"},
    {"butterfly-warp", "a warp per 32 points, the tiles reduced by samplekit's butterfly (shuffles)",
     "a warp's 32 points (D rounded up to 8) within 48 KiB of shared memory a block; never chosen"},
    {"one-point-regs", "a point a thread, its values in registers, the table in shared memory",
     "D <= 16, the packed table within 80 KiB"},
    {"two-point-regs", "two points a thread, their values in registers, the table in shared memory",
     "D <= 16, the packed table within 80 KiB"},
    {"two-point-dims-outside", "two points a thread, their values in shared memory, the dimensions outside",
     "D <= 16, the packed table within 80 KiB"},
    {"transposed-two-tiles", "a warp per 32 points, the table in registers, chains through shared memory, sparse tiles",
     "D <= 16, exactly two tiles (K = 33 to 64), 16 warps' buffers beside the table"},
    {"transposed-passes", "the transposed kernel in passes of two tiles, padded rows of chains",
     "D <= 16, three tiles or more (K > 64), the packed table within 80 KiB and a warp's buffers beside it"},
    {"transposed-passes-permuted", "the transposed kernel in passes of two tiles, unpadded permuted rows of chains",
     "D <= 16, three tiles or more (K > 64), the packed table within 80 KiB and a warp's buffers beside it"},
    {"dim-chunks-shared", "a point a thread, its values in chunks of 16 dimensions, the table in shared memory",
     "the packed table within 80 KiB (any D)"},
    {"dim-chunks-global", "a point a thread, its values in chunks of 16 dimensions, the table through L1",
     "nothing (any D and K)"},
};

int d4_of(int32_t d) { return (int)((d + 3) / 4 * 4); }

size_t table_bytes(int32_t d, int32_t k) { return sizeof(float) * zstep_packed_floats(d, (k + 31) / 32 * 32); }

bool regs_row(int row) {
  return row == kRowOnePointRegs || row == kRowTwoPointRegs || row == kRowTwoPointDimsOutside;
}

bool passes_row(int row) { return row == kRowTransposedPasses || row == kRowTransposedPassesPermuted; }

// Warps of the kernel in passes that fit beside the table in a block's opt-in shared memory, at most 16.
int passes_warps(int32_t d, int32_t k, bool permuted, const sk_mix_gpu_caps &caps) {
  const size_t table = table_bytes(d, k);
  const size_t room = caps.shared_per_block > table ? caps.shared_per_block - table : 0u;
  const size_t w = room / ps_shared_per_warp(d4_of(d), permuted);
  return (int)(w < (size_t)kZstepTransposedWarps ? w : kZstepTransposedWarps);
}

// Warps per block of a row: the transposed kernels' own, else the caller's (0: 8; the butterfly kernel:
// as many as 48 KiB hold, at most 8).
int row_warps(int row, int32_t d, int32_t k, int warps, const sk_mix_gpu_caps &caps) {
  if (row == kRowTransposedTwoTiles) return kZstepTransposedWarps;
  if (passes_row(row)) return passes_warps(d, k, row == kRowTransposedPassesPermuted, caps);
  if (warps > 0) return warps;
  if (row == kRowButterflyWarp) {
    const int w = (int)((48u * 1024u) / zstep_shared_per_warp(d));
    return w < kZstepMaxWarps ? w : kZstepMaxWarps;
  }
  return kZstepMaxWarps;
}

int row_points(int row) { return row == kRowTwoPointRegs || row == kRowTwoPointDimsOutside ? 2 : 1; }

// Dynamic shared bytes a block of the row takes.
size_t row_shared(int row, int32_t d, int32_t k, int warps) {
  const size_t table = table_bytes(d, k);
  switch (row) {
    case kRowThreadReference: return 0u;
    case kRowButterflyWarp: return (size_t)warps * zstep_shared_per_warp(d);
    case kRowTransposedTwoTiles: return table + (size_t)warps * tr_shared_per_warp(d4_of(d));
    case kRowTransposedPasses: return table + (size_t)warps * ps_shared_per_warp(d4_of(d), false);
    case kRowTransposedPassesPermuted: return table + (size_t)warps * ps_shared_per_warp(d4_of(d), true);
    case kRowDimChunksShared: return table;
    case kRowDimChunksGlobal: return 0u;
    default:
      return table + zstep_regs_shared_per_thread(row == kRowTwoPointDimsOutside, row_points(row), d) * 32u *
                         (size_t)warps;
  }
}

int fits(int row, int32_t d, int32_t k, int warps, const sk_mix_gpu_caps &caps, char *why, size_t cap) {
  const int tiles = sk_mix_num_tiles(k);
  const size_t table = table_bytes(d, k);
  const bool small_table = table <= kZstepBroadcastMaxShared;
  const char *no = NULL;
  if (row == kRowButterflyWarp && warps > 0 && (size_t)warps * zstep_shared_per_warp(d) > 48u * 1024u)
    no = "the warps' staged points exceed the 48 KiB a block gets";
  else if ((regs_row(row) || row == kRowTransposedTwoTiles || passes_row(row)) && d > 16)
    no = "D > 16";
  else if (row != kRowThreadReference && row != kRowButterflyWarp && row != kRowDimChunksGlobal && !small_table)
    no = "the packed table is larger than 80 KiB";
  else if (row == kRowTransposedTwoTiles && tiles != 2)
    no = "not exactly two tiles (K = 33 to 64)";
  else if (passes_row(row) && tiles < 3)
    no = "fewer than three tiles (K <= 64)";
  else if (passes_row(row) && row_warps(row, d, k, warps, caps) < 1)
    no = "no warp's buffers fit beside the table";
  else if (row_shared(row, d, k, row_warps(row, d, k, warps, caps)) > caps.shared_per_block)
    no = "a block's shared memory exceeds what the device allows";
  if (no != NULL && why != NULL) snprintf(why, cap, "%s", no);
  return no == NULL;
}

// The table's rule for D, K: the row, and why, into `why`. Only rows that fit are returned (the rule
// falls back as it says where one does not).
int rule(int32_t d, int32_t k, int warps, const sk_mix_gpu_caps &caps, char *why, size_t cap) {
  const int tiles = sk_mix_num_tiles(k);
  const size_t table = table_bytes(d, k);
  if (table > kZstepBroadcastMaxShared) {
    snprintf(why, cap, "the packed table (%zu bytes) is larger than the 80 KiB a block copies into shared memory",
             table);
    return kRowDimChunksGlobal;
  }
  if (d > 16) {
    snprintf(why, cap, "D = %d > 16: the point is read in chunks of 16 dimensions", (int)d);
    return kRowDimChunksShared;
  }
  if (tiles == 1) {
    if ((k == 32 && d > 8) || (k > 8 && k <= 16 && d == 16)) {
      snprintf(why, cap, "one tile with K = 32 and D > 8, or K = 9 to 16 at D = 16: two points a thread with "
                         "the dimensions outside were faster there than one point a thread");
      return kRowTwoPointDimsOutside;
    }
    snprintf(why, cap, "one tile (K <= 32): little work a point, whose loads want the occupancy of one point a "
                       "thread");
    return kRowOnePointRegs;
  }
  if (tiles == 2 && fits(kRowTransposedTwoTiles, d, k, warps, caps, NULL, 0)) {
    snprintf(why, cap, "exactly two tiles (K = 33 to 64) with D <= 16: the table in registers, the chains "
                       "through shared memory");
    return kRowTransposedTwoTiles;
  }
  const bool passes = tiles > 3 || (tiles == 3 && (d <= 8 || (d <= 12 && k % 32 != 0)));
  if (passes) {
    const int padded = passes_warps(d, k, false, caps), permuted = passes_warps(d, k, true, caps);
    if (permuted > padded) {
      snprintf(why, cap, "three tiles or more: the transposed kernel in passes, with unpadded permuted rows, "
                         "which fit %d warps beside the table against %d padded", permuted, padded);
      return kRowTransposedPassesPermuted;
    }
    if (padded >= 1) {
      snprintf(why, cap, "three tiles or more: the transposed kernel in passes (%d warps beside the table)",
               padded);
      return kRowTransposedPasses;
    }
    snprintf(why, cap, "three tiles or more, but no warp of the kernel in passes fits beside the table: two points "
                       "a thread");
    return kRowTwoPointRegs;
  }
  const bool dims_outside = d <= 8 || (tiles <= 4 && k % 32 == 0);
  if (dims_outside) {
    // Built for two blocks an SM: where shared memory holds only one, two points with their values in
    // registers are faster.
    const size_t block =
        row_shared(kRowTwoPointDimsOutside, d, k, row_warps(kRowTwoPointDimsOutside, d, k, warps, caps));
    if (2u * (block + 1024u) <= caps.shared_per_sm) {
      snprintf(why, cap, "%s: two points a thread with the dimensions outside, two blocks an SM",
               tiles == 2 ? "two tiles where the transposed kernel does not fit"
               : d <= 8   ? "three tiles at D <= 8"
                          : "K = 96 at D = 9 to 16");
      return kRowTwoPointDimsOutside;
    }
    snprintf(why, cap, "two blocks of two-point-dims-outside do not fit an SM's shared memory: two points a thread, "
                       "their values in registers");
    return kRowTwoPointRegs;
  }
  snprintf(why, cap, "%s: two points a thread, their values in registers",
           tiles == 2 ? "two tiles where the transposed kernel does not fit" : "three tiles at D = 13 to 16");
  return kRowTwoPointRegs;
}

}  // namespace
}  // namespace sk_mix_gpu_detail

using namespace sk_mix_gpu_detail;

int sk_mix_zstep_kernel_count(void) { return kZstepRows; }

const char *sk_mix_zstep_kernel_name(int row) { return row >= 0 && row < kZstepRows ? kRows[row].name : NULL; }

const char *sk_mix_zstep_kernel_text(int row, int needs) {
  return row >= 0 && row < kZstepRows ? (needs ? kRows[row].needs : kRows[row].what) : NULL;
}

int sk_mix_zstep_kernel_fits(int row, int32_t d, int32_t k, int warps, const sk_mix_gpu_caps *caps, char *why_not,
                             size_t cap) {
  if (row < 0 || row >= kZstepRows) {
    if (why_not != NULL) snprintf(why_not, cap, "no row %d", row);
    return 0;
  }
  return fits(row, d, k, warps, *caps, why_not, cap);
}

int sk_mix_zstep_lookup(int32_t d, int32_t k, int warps, const sk_mix_gpu_caps *caps, const char *name,
                        sk_mix_zstep_choice *out, sk_ex_error *err) {
  memset(out, 0, sizeof *out);
  if (d < 1 || d > SK_MIX_MAX_D || k < 1 || k > SK_MIX_MAX_K || warps < 0 || warps > kZstepMaxWarps)
    return sk_ex_fail(err, "z-step kernel table: D = %d, K = %d, %d warps a block out of range", (int)d, (int)k,
                       warps);
  int row = -1;
  if (name != NULL && name[0] != '\0') {
    char names[512] = "";
    for (int r = 0; r < kZstepRows && row < 0; ++r)
      if (strcmp(name, kRows[r].name) == 0) row = r;
    if (row < 0) {
      for (int r = 0; r < kZstepRows; ++r)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", r ? ", " : "", kRows[r].name);
      return sk_ex_fail(err, "z-step kernel '%.100s': not a row of the table (%s)", name, names);
    }
    char no[160];
    if (!fits(row, d, k, warps, *caps, no, sizeof no))
      return sk_ex_fail(err, "z-step kernel %s does not fit D = %d, K = %d: %s", kRows[row].name, (int)d, (int)k, no);
    out->forced = 1;
    snprintf(out->why, sizeof out->why, "named by the caller (sk_mix_gpu_options::zstep_kernel)");
  } else {
    row = rule(d, k, warps, *caps, out->why, sizeof out->why);
    char no[160];
    if (!fits(row, d, k, warps, *caps, no, sizeof no)) {  // a device with little shared memory
      const size_t used = strlen(out->why);
      const int next =
          fits(kRowDimChunksShared, d, k, warps, *caps, NULL, 0) ? kRowDimChunksShared : kRowDimChunksGlobal;
      snprintf(out->why + used, sizeof out->why - used, "; but %s does not fit (%s): %s", kRows[row].name, no,
               kRows[next].name);
      row = next;
    }
  }
  const int tiles = sk_mix_num_tiles(k);
  out->row = row;
  out->warps = row_warps(row, d, k, warps, *caps);
  out->points = row_points(row);
  out->points_per_block = row == kRowThreadReference ? kZstepThreadBlock : 32 * out->warps * out->points;
  out->shared = row_shared(row, d, k, out->warps);
  out->dims = row == kRowThreadReference  ? 0
              : row == kRowButterflyWarp  ? zstep_chunk(d)
              : row == kRowDimChunksShared || row == kRowDimChunksGlobal ? d4_of(d) - (d4_of(d) - 1) / 16 * 16
                                                                        : d4_of(d);
  out->width = row == kRowThreadReference ? 0 : regs_row(row) && tiles == 1 && k <= 8 ? 8
                                            : regs_row(row) && tiles == 1 && k <= 16 ? 16
                                                                                     : 32;
  return 0;
}

int sk_mix_gpu_caps_query(int device, sk_mix_gpu_caps *caps, sk_ex_error *err) {
  int per_sm = 0, per_block = 0;
  SK_EX_CUDA_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
                  "querying the shared memory per SM");
  SK_EX_CUDA_TRY(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                  "querying the shared memory per block");
  caps->shared_per_sm = (size_t)per_sm;
  caps->shared_per_block = (size_t)per_block;
  return 0;
}
