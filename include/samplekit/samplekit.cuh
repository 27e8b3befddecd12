/**
 * \file samplekit.cuh
 * \brief Umbrella header for device code: every device primitive and the C API (needs nvcc).
 */
#ifndef SAMPLEKIT_SAMPLEKIT_CUH
#define SAMPLEKIT_SAMPLEKIT_CUH

#include "samplekit.h"
#include "warp_lane.cuh"
#include "warp_scan.cuh"
#include "warp_vote.cuh"
#include "warp_sample_prefix.cuh"
#include "block_sum.cuh"
#include "warp_blocked_sample.cuh"
#include "warp_strided_sample.cuh"
#include "butterfly.cuh"
#include "thread_tile_sample.h"
#include "rng.cuh"
#include "wary_tree.cuh"
#include "segmented_count.cuh"
#include "block_count_sort.cuh"
#include "warp_sorted_set.cuh"

#endif /* SAMPLEKIT_SAMPLEKIT_CUH */
