/**
 * \file demo.h
 * \brief `sk-mixture fit --demo`: planted data generated, fitted, and the fitted components printed
 * beside the planted ones with the adjusted Rand index.
 */
#ifndef SK_MIX_DEMO_H
#define SK_MIX_DEMO_H

#include "fit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The demo's points. */
#define SK_MIX_DEMO_N 20000
/** \brief The demo's dimensions. */
#define SK_MIX_DEMO_D 4
/** \brief The demo's planted (and fitted) components unless -k says otherwise. */
#define SK_MIX_DEMO_K 6

/**
 * \brief Runs the demo: well-separated planted data (SK_MIX_DEMO_N points, SK_MIX_DEMO_D dimensions,
 * o->k components, or SK_MIX_DEMO_K when o->k is 0; seed o->seed), fitted with `o`, then the report.
 * \param o the fit's options (k, sweeps, seed, device, threads, out, prior).
 * \return an exit status, as sk_mix_fit().
 */
int sk_mix_demo(const sk_mix_fit_options *o);

#ifdef __cplusplus
}
#endif

#endif /* SK_MIX_DEMO_H */
