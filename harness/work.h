/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * work.h - a worker thread's random numbers and the local work it does
 * between operations (--seed, --work, --producer-work, --consumer-work).
 *
 * Random numbers: each thread has a generator of its own, 64 bits of state
 * in a register of its loop (Wang Yi's wyrand step: an add and one
 * 64 x 64 -> 128-bit multiplication per draw, no shared line). Its state is
 * made from the run's seed and the thread's stream number by splitmix64, so
 * that thread i draws the same numbers in every run with the same seed.
 * Streams: a symmetric workload's thread i and prodcons' producer i are
 * stream i, prodcons' consumer i is stream HB_STREAM_CONSUMERS + i.
 *
 * Work: a counted loop whose counter passes through an empty asm statement
 * each iteration, so that the compiler can neither remove the loop nor
 * merge its iterations: one add, one compare and a branch per iteration,
 * touching no memory (the work is local: it shares no line). Its speed in
 * iterations per ns is measured once per run (hb_work_calibrate, in
 * workload.c) and recorded in meta.json, and a bound in ns becomes a bound
 * in iterations with it; each operation then does a length drawn uniformly
 * from 0..bound (from a floor up, with --work MIN-MAX).
 */
#ifndef HB_WORK_H
#define HB_WORK_H

#include <stdint.h>

#define HB_STREAM_CONSUMERS (UINT64_C(1) << 32)

static inline uint64_t hb_splitmix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The generator state of stream `stream` of the run seeded with `seed`. */
static inline uint64_t hb_rng_seed(uint64_t seed, uint64_t stream)
{
	return hb_splitmix64(hb_splitmix64(seed) ^ stream);
}

/* The next 64 random bits of generator *s. */
static inline uint64_t hb_rng_next(uint64_t *s)
{
	*s += UINT64_C(0xa0761d6478bd642f);
	unsigned __int128 t = (unsigned __int128)*s * (*s ^ UINT64_C(0xe7037ed1a0b428db));
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* A number in 0..n-1, uniform up to a bias below n / 2^64 (n >= 1). */
static inline uint64_t hb_rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)hb_rng_next(s) * n) >> 64);
}

/* n iterations of the work loop. */
static inline void hb_work_spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ __volatile__("" : "+r"(i));
}

/* One operation's work: a length drawn from min_loops..max_loops iterations
 * (min_loops <= max_loops). */
static inline void hb_work(uint64_t *rng, uint64_t min_loops, uint64_t max_loops)
{
	hb_work_spin(min_loops + hb_rng_below(rng, max_loops - min_loops + 1));
}

/* The work loop's speed on this host, as measured at the start of a run. */
struct hb_work_calibration {
	int done;            /* 0: not measured (the run has no work) */
	double loops_per_ns; /* iterations per ns: the fastest round's */
	uint64_t loops;      /* iterations per round */
	unsigned rounds;
	double fastest_ns, slowest_ns; /* of the rounds */
};

/*
 * hb_work_calibrate - measure the work loop's iterations per ns on the
 * calling thread: several rounds of a fixed count timed with the harness's
 * clock (hc_init first), the fastest taken (a round that was preempted or
 * ran while the core's clock was still rising is slower, never faster).
 * About 10 ms.
 */
void hb_work_calibrate(struct hb_work_calibration *c);

/* A bound of ns nanoseconds in iterations of the loop (0 for 0). */
static inline uint64_t hb_work_loops(const struct hb_work_calibration *c, uint64_t ns)
{
	return ns && c->done ? (uint64_t)((double)ns * c->loops_per_ns + 0.5) : 0;
}

#endif /* HB_WORK_H */
