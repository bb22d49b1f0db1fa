/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clock.h - timestamps for the harness: the invariant TSC calibrated against
 * CLOCK_MONOTONIC where the CPU has one, clock_gettime otherwise.
 *
 * hc_init() once, on the main thread, before any worker starts; then
 * hc_now() anywhere. Ticks convert to nanoseconds with hc_to_ns().
 */
#ifndef HC_CLOCK_H
#define HC_CLOCK_H

#include <stdint.h>
#include <time.h>

struct hc_info {
	int tsc;              /* 1: invariant TSC in use; 0: clock_gettime(CLOCK_MONOTONIC) */
	double ticks_per_ns;  /* 1.0 for clock_gettime */
	double overhead_ns;   /* median cost of one hc_now() */
	const char *source;   /* "tsc" or "clock_gettime" */
};

extern struct hc_info hc;

/* Detect and calibrate (about 50 ms). NUMARING_CLOCK=gettime forces
 * clock_gettime. Returns 0, or -1 if the variable holds another value. */
int hc_init(void);

static inline uint64_t hc_now(void)
{
#if defined(__x86_64__)
	if (hc.tsc) {
		uint32_t lo, hi;
		/* lfence before rdtsc: the read is not moved before earlier loads
		 * (the dequeue that delivered the item being timed). */
		__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
		return ((uint64_t)hi << 32) | lo;
	}
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double hc_to_ns(uint64_t ticks)
{
	return (double)ticks / hc.ticks_per_ns;
}

static inline uint64_t hc_from_ns(double ns)
{
	return (uint64_t)(ns * hc.ticks_per_ns);
}

#endif /* HC_CLOCK_H */
