/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clock.c - choose and calibrate the harness clock (see clock.h).
 */
#define _GNU_SOURCE
#include "clock.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

struct hc_info hc = {0, 1.0, 0.0, "clock_gettime"};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int tsc_invariant(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1; /* CPUID.80000007H:EDX[8] invariant TSC */
#else
	return 0;
#endif
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int hc_init(void)
{
	const char *force = getenv("NUMARING_CLOCK");
	int want_tsc = 1;
	if (force && *force) {
		if (strcmp(force, "gettime") == 0)
			want_tsc = 0;
		else if (strcmp(force, "tsc") != 0)
			return -1;
	}
	hc.tsc = 0;
	hc.ticks_per_ns = 1.0;
	hc.source = "clock_gettime";
	if (want_tsc && tsc_invariant()) {
		/* three 15 ms windows; keep the median rate */
		double rate[3];
		hc.tsc = 1;
		for (int i = 0; i < 3; i++) {
			uint64_t n0 = mono_ns(), t0 = hc_now(), n1;
			do
				n1 = mono_ns();
			while (n1 - n0 < 15000000ull);
			uint64_t t1 = hc_now();
			rate[i] = (double)(t1 - t0) / (double)(n1 - n0);
		}
		double lo = rate[0] < rate[1] ? rate[0] : rate[1];
		double hi = rate[0] < rate[1] ? rate[1] : rate[0];
		hc.ticks_per_ns = rate[2] < lo ? lo : rate[2] > hi ? hi : rate[2];
		hc.source = "tsc";
	}
	/* overhead: median of 101 batches of 100 back-to-back reads */
	uint64_t per[101];
	for (int i = 0; i < 101; i++) {
		uint64_t t0 = hc_now(), t = t0;
		for (int k = 0; k < 100; k++)
			t = hc_now();
		per[i] = t - t0;
	}
	qsort(per, 101, sizeof per[0], cmp_u64);
	hc.overhead_ns = hc_to_ns(per[50]) / 100.0;
	return 0;
}
