/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bounds.h - the bounds numaring-bench checks its options' values against,
 * one table: options.c parses through it (HB_LIM, HB_RLIM below) and
 * `numaring-bench --manifest` prints it for the scripts (scripts/manifest.json,
 * which scripts/expfile.py checks the experiment files' values with). A bound
 * changed here changes both.
 *
 * X(id, option, whole, min, max, min_in, max_in, pow2): the option's name
 * without "--"; whole: 1 a whole number, 0 a real one; min_in, max_in: 1 when
 * the bound itself is allowed; pow2: 1 when the value must be a power of two
 * (options.c checks that after the bounds, with its own message).
 * The bounds are doubles: every whole one here is exact in a double.
 */
#ifndef HB_BOUNDS_H
#define HB_BOUNDS_H

#include <stdint.h>

#include "numaring_lab.h"

#define HB_THREADS_MAX	 1024.0
#define HB_WORK_NS_MAX	 10000000.0 /* 10 ms */
#define HB_SEED_MAX	 9007199254740992.0 /* 2^53: exact in a double, as the scripts read it back */
#define HB_SPAN_S_MAX	 86400.0 /* --duration, --drain-timeout: a day */
#define HB_SIZE_MAX	 1073741824.0 /* 2^30: --capacity, --batch */
#define HB_RATE_MAX	 1e12 /* items per second: --rate, --capacity-ops */

#define HB_LIMITS(X)                                                                      \
	X(threads, "threads", 1, 1, HB_THREADS_MAX, 1, 1, 0)                              \
	X(producers, "producers", 1, 1, HB_THREADS_MAX, 1, 1, 0)                          \
	X(consumers, "consumers", 1, 1, HB_THREADS_MAX, 1, 1, 0)                          \
	X(enqueue_share, "enqueue-share", 0, 0, 1, 0, 0, 0)                               \
	X(work, "work", 1, 0, HB_WORK_NS_MAX, 1, 1, 0)                                    \
	X(producer_work, "producer-work", 1, 0, HB_WORK_NS_MAX, 1, 1, 0)                  \
	X(consumer_work, "consumer-work", 1, 0, HB_WORK_NS_MAX, 1, 1, 0)                  \
	X(seed, "seed", 1, 0, HB_SEED_MAX, 1, 1, 0)                                       \
	X(duration, "duration", 0, 0, HB_SPAN_S_MAX, 0, 1, 0)                             \
	X(ops, "ops", 1, 1, 281474976710656.0 /* 2^48 */, 1, 1, 0)                        \
	X(warmup, "warmup", 0, 0, 3600, 1, 1, 0)                                          \
	X(capacity, "capacity", 1, 2, HB_SIZE_MAX, 1, 1, 1)                               \
	X(batch, "batch", 1, 1, HB_SIZE_MAX, 1, 1, 0)                                     \
	X(sample, "sample", 1, 1, 1048576.0 /* 2^20 */, 1, 1, 1)                          \
	X(calibrate, "calibrate", 0, 0, 60, 1, 1, 0)                                      \
	X(load, "load", 0, 0, 1, 0, 1, 0)                                                 \
	X(load_probe, "load-probe", 0, 0, 60, 0, 1, 0)                                    \
	X(capacity_ops, "capacity-ops", 0, 0, HB_RATE_MAX, 0, 1, 0)                       \
	X(linger, "linger", 1, 0, 1000000, 1, 1, 0)                                       \
	X(pause_spin, "pause-spin", 1, 1, NUMARING_LAB_SPIN_MAX, 1, 1, 0)                 \
	X(exp_cap, "exp-cap", 1, 1, NUMARING_LAB_SPIN_MAX, 1, 1, 1)                       \
	X(recheck, "recheck", 1, 1, UINT32_MAX, 1, 1, 0)                                  \
	X(rate, "rate", 0, 0, HB_RATE_MAX, 0, 1, 0)                                       \
	X(drain_timeout, "drain-timeout", 0, 0, HB_SPAN_S_MAX, 0, 1, 0)

enum hb_limit_id {
#define HB_LIMIT_ENUM(id, opt, whole, min, max, min_in, max_in, pow2) HB_LIM_##id,
	HB_LIMITS(HB_LIMIT_ENUM)
#undef HB_LIMIT_ENUM
	HB_LIM_COUNT_
};

struct hb_limit {
	const char *option;
	int whole;
	double min, max;
	int min_in, max_in, pow2;
};

static const struct hb_limit hb_limits[HB_LIM_COUNT_] __attribute__((unused)) = {
#define HB_LIMIT_INFO(id, opt, whole, min, max, min_in, max_in, pow2)                  \
	[HB_LIM_##id] = {opt, whole, (double)(min), (double)(max), min_in, max_in, pow2},
	HB_LIMITS(HB_LIMIT_INFO)
#undef HB_LIMIT_INFO
};

/* parse_count takes its bounds inclusive: a whole option's must be. */
#define HB_LIMIT_WHOLE_IN(id, opt, whole, min, max, min_in, max_in, pow2)               \
	_Static_assert(!(whole) || ((min_in) && (max_in)),                               \
		       "--" opt ": a whole number's bounds are inclusive (parse_count)");
HB_LIMITS(HB_LIMIT_WHOLE_IN)
#undef HB_LIMIT_WHOLE_IN

/* A whole option's bounds as parse_count's (min, max) arguments, and a real
 * one's as parse_real's (min, max, min_in, max_in): options.c's calls. */
#define HB_LIM(id) (uint64_t)hb_limits[HB_LIM_##id].min, (uint64_t)hb_limits[HB_LIM_##id].max
#define HB_RLIM(id)                                                                     \
	hb_limits[HB_LIM_##id].min, hb_limits[HB_LIM_##id].max,                          \
	    hb_limits[HB_LIM_##id].min_in, hb_limits[HB_LIM_##id].max_in

#endif /* HB_BOUNDS_H */
