/**
 * \file rng.cuh
 * \brief Device entry point for the counter-based RNG (see rng.h, which holds the functions so that
 * host code compiled without nvcc can draw the very same numbers).
 */
#ifndef SAMPLEKIT_RNG_CUH
#define SAMPLEKIT_RNG_CUH

#include "rng.h"

#endif /* SAMPLEKIT_RNG_CUH */
