/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * relax.h - the harness's spin-wait: what a thread does for one turn of a
 * loop that waits for another thread (room in the queue, an item, the
 * start signal, the other side of a probe's measurement). The one
 * definition for every harness file: numaring-bench, its probe, its tests
 * and the bare loop of bench-fidelity (harness/fidelity/bare_loop.c), which
 * must wait as numaring-bench does to be its reference.
 *
 * Not a backoff: the queues' own backoffs (--backoff) are the library's
 * (ring/src/nr_backoff.h, which the harness does not include: it uses the
 * ring's public headers only). The hint is the same instruction, so the
 * probe's pause_ns row times the unit of those backoffs.
 */
#ifndef HB_RELAX_H
#define HB_RELAX_H

#include <sched.h>
#include <stdint.h>

/* Polls between two sched_yield() calls in hb_idle_poll. */
#define HB_WAIT_YIELD_POLLS 1024u

/*
 * hb_cpu_relax - one spin-wait hint: PAUSE on x86 (it also tells the core
 * that the loop is a spin, so that leaving it does not flush the pipeline),
 * YIELD on Arm, a compiler barrier elsewhere (the loop still re-reads what
 * it waits for). Any thread, any time.
 */
static inline void hb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * hb_idle_poll - one turn of a polite wait for room, an item or a free
 * message: the hint, and every HB_WAIT_YIELD_POLLS-th turn the CPU for
 * whoever we wait for (a run may have more threads than CPUs). *polls is
 * the caller's own count of turns (start it at 0).
 */
static inline void hb_idle_poll(uint32_t *polls)
{
	if (++*polls % HB_WAIT_YIELD_POLLS == 0)
		sched_yield();
	else
		hb_cpu_relax();
}

#endif /* HB_RELAX_H */
