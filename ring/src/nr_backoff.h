/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_backoff.h - what a worker does after a failed attempt, and how it waits
 * for another thread to finish a step it has already started.
 *
 * Internal to libnumaring. Two different things live here:
 *
 *   nr_backoff_fail()  the configured backoff (none / pause / exp / yield /
 *                      adaptive),
 *                      run after an attempt that lost a race (a failed CAS,
 *                      a position taken by someone else). It also counts the
 *                      failure for the worker's statistics, and times one
 *                      backoff in NR_BACKOFF_SAMPLE (numaring.h, struct
 *                      numaring_stats, says how and what the error is). Out
 *                      of line and cold: an operation that wins its race
 *                      runs no backoff code, reads no clock and stores
 *                      nothing for it (the exponential spin length comes
 *                      from the operation's own count of failures, a
 *                      register, not from state to reset).
 *   nr_backoff_gate()  the same backoff run between the polls of a gate
 *                      wait: counted and timed apart (stats.gate_backoffs,
 *                      backoff_ns_gate).
 *   nr_wait_poll()     one poll of a wait for a step another thread has
 *                      already claimed (publishing a slot, releasing a gate).
 *                      It spins with PAUSE for a time budget
 *                      (NR_WAIT_SPIN_NS of elapsed time, whatever each poll
 *                      cost), then yields the CPU at every poll: the thread
 *                      we wait for may be preempted (more threads than
 *                      CPUs), and spinning on its CPU would only delay it.
 *                      The budget is time, not a poll count, because a poll
 *                      can cost one PAUSE or a thousand (the gate's waits
 *                      run the configured backoff between polls).
 */
#ifndef NR_BACKOFF_H
#define NR_BACKOFF_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "numaring.h"

/* A wait spins this long (elapsed time) before it yields at every poll:
 * long enough for a running holder to finish a transfer, short against a
 * scheduler time slice, which is what a preempted holder costs. */
#define NR_WAIT_SPIN_NS 20000u
/* Then it yields at every poll for this long, then sleeps this long a poll. */
#define NR_WAIT_YIELD_NS 200000u
#define NR_WAIT_SLEEP_NS 10000u
/* The first polls of a wait read no clock: most waits end within them. */
#define NR_WAIT_FREE_POLLS 64u

static inline void nr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* One backoff in this many is timed (on average: see nr_backoff_run). */
#define NR_BACKOFF_SAMPLE 16u

/* Why a backoff runs: the index of its time in nr_backoff.ns[]. */
enum nr_backoff_why {
	NR_BACKOFF_RACE, /* after a lost race: stats.backoff_ns_race */
	NR_BACKOFF_GATE, /* between the polls of a gate wait: stats.backoff_ns_gate */
};

/*
 * A worker's (or a flat handle's) backoff: the configuration, read-only
 * after attach, beside the counters. Every field is plain, written by the
 * owning thread only and read by numaring_worker_stats under numaring.h's
 * rule (the owner, or another thread after synchronising with it, e.g.
 * pthread_join): no atomics, so no memory order to pair; an atomic would
 * only make the cold path slower.
 */
struct nr_backoff {
	uint32_t mode;       /* enum numaring_backoff */
	uint32_t pause_spin; /* PAUSE: PAUSEs per backoff (the lab's pause_spin, resolved) */
	uint32_t exp_cap;    /* EXP, ADAPTIVE: the most PAUSEs per backoff, a power of two */
	uint32_t level;      /* ADAPTIVE: PAUSEs of the last backoff (0: none yet) */
	uint64_t last_ns;    /* ADAPTIVE: when the last backoff ended (nr_now_ns) */
	uint32_t clock_ns;   /* cost of one clock read, taken off a timed backoff */
	uint32_t draw;       /* xorshift32 state of the sampling; never 0 */
	uint64_t failures;   /* failed attempts, reported as stats.failed_attempts */
	uint64_t gate_backoffs; /* stats.gate_backoffs */
	uint64_t ns[2];      /* sampled time in backoff, scaled: by enum nr_backoff_why */
};

/* seed: anything; the draw is made nonzero (xorshift's one fixed point). */
static inline void nr_backoff_init(struct nr_backoff *bo, enum numaring_backoff mode,
				   uint32_t pause_spin, uint32_t exp_cap, uint32_t clock_ns,
				   uint32_t seed)
{
	bo->mode = (uint32_t)mode;
	bo->pause_spin = pause_spin;
	bo->exp_cap = exp_cap;
	bo->level = 0;
	bo->last_ns = 0;
	bo->clock_ns = clock_ns;
	bo->draw = seed | 1u;
	bo->failures = 0;
	bo->gate_backoffs = 0;
	bo->ns[NR_BACKOFF_RACE] = 0;
	bo->ns[NR_BACKOFF_GATE] = 0;
}

static inline uint64_t nr_now_ns(void)
{
	struct timespec ts;
	/* vDSO on Linux: no system call where the clock source allows it */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void nr_spin(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		nr_cpu_relax();
}

/* ADAPTIVE: a lost race within this long of the end of the worker's last
 * backoff finds the contention still there (the length doubles); one later
 * finds it new (the length starts again at one PAUSE). Long against an
 * uncontended operation (tens of ns) and a short burst of local work, short
 * against the longest backoff (exp_cap PAUSEs: 20-140 us). */
#define NR_ADAPTIVE_CALM_NS 2000u

/* ADAPTIVE's backoff: EXP whose length is the worker's, not the
 * operation's. Races lost close together in time (NR_ADAPTIVE_CALM_NS
 * apart at most, counted from the end of the last backoff) double it up to
 * exp_cap, whichever operation lost them, so that workers that keep meeting
 * on one line spread out until one of them runs alone for a while; a race
 * lost after a calm spell starts again at one PAUSE, as EXP does. The two
 * clock reads are on the lost race's path only (an operation that wins its
 * race runs none of this). */
static inline void nr_backoff_adaptive(struct nr_backoff *bo)
{
	uint64_t now = nr_now_ns();
	/* signed: a last_ns ahead of now (a test's) is no calm spell */
	if (bo->level == 0 || (int64_t)(now - bo->last_ns) > (int64_t)NR_ADAPTIVE_CALM_NS)
		bo->level = 1;
	else if (bo->level < bo->exp_cap)
		bo->level <<= 1;
	nr_spin(bo->level);
	bo->last_ns = nr_now_ns();
}

/* Back off as configured after the attempt-th consecutive failure (0 the
 * first), without counting or timing it. PAUSE spins pause_spin PAUSEs; EXP
 * spins 2^attempt, at most exp_cap (a power of two, so the doubling meets
 * it exactly); ADAPTIVE as nr_backoff_adaptive says. */
static inline void nr_backoff_pause(struct nr_backoff *bo, unsigned attempt)
{
	switch (bo->mode) {
	case NUMARING_BACKOFF_NONE:
		break;
	case NUMARING_BACKOFF_PAUSE:
		nr_spin(bo->pause_spin);
		break;
	case NUMARING_BACKOFF_EXP:
		nr_spin(attempt < 31 && (1u << attempt) < bo->exp_cap ? 1u << attempt
								      : bo->exp_cap);
		break;
	case NUMARING_BACKOFF_YIELD:
		sched_yield();
		break;
	case NUMARING_BACKOFF_ADAPTIVE:
		nr_backoff_adaptive(bo);
		break;
	}
}
_Static_assert((NUMARING_EXP_MAX_SPIN & (NUMARING_EXP_MAX_SPIN - 1)) == 0,
	       "EXP's production cap is a power of two, as the lab's must be");

/*
 * Fault injection (a debug build with -DNR_FAULT_INJECT, make test-fault):
 * NR_FAULT_POINT() marks the places where a preempted thread hurts most
 * (between claiming a slot and publishing it, inside a transfer, holding a
 * gate); there the thread yields its CPU now and then, so the stress tests
 * run those windows wide open. In normal builds it is nothing.
 */
#ifdef NR_FAULT_INJECT
void nr_fault_point(void);
extern _Atomic unsigned long nr_fault_yields; /* preemptions injected so far */
#define NR_FAULT_POINT() nr_fault_point()
#else
#define NR_FAULT_POINT() ((void)0)
#endif

/* The state of one wait; NR_WAIT_INIT before its first poll. */
struct nr_wait {
	uint32_t polls;
	uint64_t until_ns; /* end of the spinning budget; 0: not read yet */
};
#define NR_WAIT_INIT {0, 0}

/* 1 once the wait has spent its spinning budget (then it should not spin
 * between polls either: see the gate's wait). */
static inline int nr_wait_spent(const struct nr_wait *wt)
{
	return wt->until_ns != 0 && nr_now_ns() >= wt->until_ns;
}

/* One poll of a wait for a step another thread has claimed; see above.
 * After the spinning budget: sched_yield(); after NR_WAIT_YIELD_NS more, a
 * short sleep, because under CFS a yield may hand the CPU straight back to
 * the yielder while the thread it waits for stays queued. */
static inline void nr_wait_poll(struct nr_wait *wt)
{
	if (wt->polls < NR_WAIT_FREE_POLLS) {
		wt->polls++;
		nr_cpu_relax();
		return;
	}
	uint64_t now = nr_now_ns();
	if (wt->until_ns == 0) {
		wt->until_ns = now + NR_WAIT_SPIN_NS;
	} else if (now >= wt->until_ns + NR_WAIT_YIELD_NS) {
		struct timespec nap = {0, NR_WAIT_SLEEP_NS};
		nanosleep(&nap, NULL);
		return;
	} else if (now >= wt->until_ns) {
		sched_yield();
		return;
	}
	nr_cpu_relax();
}

/*
 * Run the backoff, timing it if the draw says so: with probability
 * 1/NR_BACKOFF_SAMPLE (a xorshift32 step in the lowest 1/NR_BACKOFF_SAMPLE
 * of its range, whatever the attempt number, so that a pattern of backoffs
 * that repeats with the sampling's period is not seen through it), and
 * then its time counts NR_BACKOFF_SAMPLE times. NONE runs nothing and times
 * nothing.
 */
static inline void nr_backoff_run(struct nr_backoff *bo, unsigned attempt, enum nr_backoff_why why)
{
	uint32_t x;
	if (bo->mode == NUMARING_BACKOFF_NONE)
		return;
	x = bo->draw;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	bo->draw = x;
	if (x > UINT32_MAX / NR_BACKOFF_SAMPLE) { /* not this one */
		nr_backoff_pause(bo, attempt);
		return;
	}
	uint64_t t0 = nr_now_ns();
	nr_backoff_pause(bo, attempt);
	uint64_t dt = nr_now_ns() - t0;
	/* the two reads add about one read's cost to the interval */
	dt = dt > bo->clock_ns ? dt - bo->clock_ns : 0;
	bo->ns[why] += dt * NR_BACKOFF_SAMPLE;
}

/* The cost of one clock read, in ns: the fastest of 32 back-to-back pairs
 * (what bracketing an interval with two reads adds to it). At create. */
static inline uint32_t nr_clock_read_ns(void)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 32; i++) {
		uint64_t t0 = nr_now_ns(), t1 = nr_now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best > UINT32_MAX ? UINT32_MAX : (uint32_t)best;
}

/* After the attempt-th consecutive failed attempt of an operation (0 the
 * first): count it, then back off as configured. Never inlined: see above. */
static __attribute__((noinline, cold, unused)) void nr_backoff_fail(struct nr_backoff *bo,
								    unsigned attempt)
{
	bo->failures++;
	nr_backoff_run(bo, attempt, NR_BACKOFF_RACE);
}

/* The attempt-th backoff between the polls of one gate wait (0 the first):
 * counted where one runs (not with NONE), then run and sampled. */
static inline void nr_backoff_gate(struct nr_backoff *bo, unsigned attempt)
{
	if (bo->mode == NUMARING_BACKOFF_NONE)
		return;
	bo->gate_backoffs++;
	nr_backoff_run(bo, attempt, NR_BACKOFF_GATE);
}

#endif /* NR_BACKOFF_H */
