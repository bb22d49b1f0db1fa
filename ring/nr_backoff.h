/*
 * nr_backoff.h - what a worker does after a failed attempt, and how it waits
 * for another thread to finish a step it has already started.
 *
 * Internal to libnumaring. Two different things live here:
 *
 *   nr_backoff_fail()  the configured ablation (none / pause / exp / yield),
 *                      run after an attempt that lost a race (a failed CAS,
 *                      a position taken by someone else). It also counts the
 *                      failure for the worker's statistics.
 *   nr_wait_poll()     one poll of a wait for a step another thread has
 *                      already claimed (publishing a slot, releasing a gate).
 *                      It spins with PAUSE and, every NR_WAIT_YIELD_POLLS
 *                      polls, yields the CPU: the thread we wait for may be
 *                      preempted (more threads than CPUs), and spinning on
 *                      its CPU would only delay it.
 */
#ifndef NR_BACKOFF_H
#define NR_BACKOFF_H

#include <sched.h>
#include <stdint.h>

#include "numaring.h"

#define NR_WAIT_YIELD_POLLS 1024u

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

struct nr_backoff {
	uint32_t mode;     /* enum numaring_backoff */
	uint32_t spin;     /* EXP: current spin length */
	uint64_t failures; /* failed attempts, reported as stats.failed_attempts */
};

static inline void nr_backoff_init(struct nr_backoff *bo, enum numaring_backoff mode)
{
	bo->mode = (uint32_t)mode;
	bo->spin = 1;
	bo->failures = 0;
}

/* After a successful attempt: EXP starts again from one PAUSE. */
static inline void nr_backoff_reset(struct nr_backoff *bo)
{
	bo->spin = 1;
}

static inline void nr_spin(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		nr_cpu_relax();
}

/* Back off as configured, without counting a failure (gate waits). */
static inline void nr_backoff_pause(struct nr_backoff *bo)
{
	switch (bo->mode) {
	case NUMARING_BACKOFF_NONE:
		break;
	case NUMARING_BACKOFF_PAUSE:
		nr_spin(NUMARING_PAUSE_SPIN);
		break;
	case NUMARING_BACKOFF_EXP:
		nr_spin(bo->spin);
		if (bo->spin < NUMARING_EXP_MAX_SPIN)
			bo->spin <<= 1;
		break;
	case NUMARING_BACKOFF_YIELD:
		sched_yield();
		break;
	}
}

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

/* One poll of a wait for a step another thread has claimed; see above. */
static inline void nr_wait_poll(uint32_t *polls)
{
	if (++*polls % NR_WAIT_YIELD_POLLS == 0)
		sched_yield();
	else
		nr_cpu_relax();
}

/* After a failed attempt: count it, then back off as configured. */
static inline void nr_backoff_fail(struct nr_backoff *bo)
{
	bo->failures++;
	nr_backoff_pause(bo);
}

#endif /* NR_BACKOFF_H */
