/**
 * \file sk_ex_clock.h
 * \brief The examples' one clock: monotonic seconds, for timing sweeps and phases.
 */
#ifndef SK_EX_CLOCK_H
#define SK_EX_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Seconds on the monotonic clock (CLOCK_MONOTONIC): only differences mean anything.
 * \return seconds since an arbitrary fixed point, with nanosecond resolution.
 */
double sk_ex_now(void);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_CLOCK_H */
