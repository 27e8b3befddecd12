/**
 * \file samplekit.h
 * \brief Umbrella header of the C API: include this from C or C++ host code and link samplekit::kernels.
 *
 * Compiles as C99 (`gcc -std=c99 -pedantic -Wall -Werror`) and needs no CUDA header.
 */
#ifndef SAMPLEKIT_SAMPLEKIT_H
#define SAMPLEKIT_SAMPLEKIT_H

#include "sk_config.h"
#include "sk_status.h"
#include "sk_version.h"
#include "sk_device.h"
#include "rng.h"
#include "rng_gamma.h"
#include "thread_tile_sample.h"
#include "wary_tree.h"
#include "sample_categorical.h"
#include "csr_chunker.h"
#include "csr_pipeline.h"
#include "segmented_count.h"
#include "block_count_sort.h"
#include "sparse_counts.h"

#endif /* SAMPLEKIT_SAMPLEKIT_H */
