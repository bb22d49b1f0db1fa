/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pingpong.c - a cache line's trip between two CPUs (pingpong.h).
 */
#define _GNU_SOURCE
#include "pingpong.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "relax.h"

#define PP_WARM	   200u
#define PP_BATCHES 20u
#define PP_PER	   100u

/* Wait until the line holds want. Every 1024 turns: give up past the
 * deadline, or when the other side did. Returns 0, or -1 on giving up. The
 * check is off the timed path but for one turn in 1024 of a wait. */
static int wait_for(struct hb_pingpong *pp, _Atomic uint64_t *x, uint64_t want)
{
	unsigned spins = 0;
	/* Acquire pairs with the other side's release store of want: nothing in
	 * this loop needs it (the line carries no data), but the probe's
	 * exchange has always been a release/acquire hand-over, the queues'
	 * shape. */
	while (atomic_load_explicit(x, memory_order_acquire) != want) {
		if ((++spins & 1023u) == 0) {
			/* Relaxed: a flag between the two sides only, no data with it. */
			if (atomic_load_explicit(&pp->gave_up, memory_order_relaxed))
				return -1;
			if (pp->deadline && hc_now() > pp->deadline) {
				atomic_store_explicit(&pp->gave_up, 1, memory_order_relaxed);
				return -1;
			}
		}
	}
	return 0;
}

void hb_pingpong_body(struct hb_pingpong *pp, unsigned idx)
{
	_Atomic uint64_t *x = &pp->line->v;
	uint64_t v = 0;
	if (idx == 0) {
		for (unsigned i = 0; i < pp->warm; i++, v += 2) {
			atomic_store_explicit(x, v + 1, memory_order_release);
			if (wait_for(pp, x, v + 2))
				return;
		}
		for (unsigned b = 0; b < pp->nb; b++) {
			uint64_t t0 = hc_now();
			for (unsigned i = 0; i < pp->per; i++, v += 2) {
				atomic_store_explicit(x, v + 1, memory_order_release);
				if (wait_for(pp, x, v + 2))
					return;
			}
			pp->ticks[b] = hc_now() - t0;
		}
	} else {
		uint64_t total = (uint64_t)pp->warm + (uint64_t)pp->nb * pp->per;
		for (uint64_t i = 0; i < total; i++, v += 2) {
			if (wait_for(pp, x, v + 1))
				return;
			atomic_store_explicit(x, v + 2, memory_order_release);
		}
	}
}

struct side {
	struct hb_pingpong *pp;
	_Atomic unsigned *ready;
	int cpu;
	unsigned idx;
	int rc;
	pthread_t th;
};

static void *side_main(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	s->rc = -pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	if (!s->rc && sched_getcpu() != s->cpu)
		s->rc = -EIO;
	if (s->rc)
		atomic_store_explicit(&s->pp->gave_up, 1, memory_order_relaxed);
	/* both pinned (or one failed) before either starts: seq_cst, a two-way
	 * rendezvous on one counter; the loser of a failed pin sees gave_up */
	atomic_fetch_add(s->ready, 1);
	uint32_t polls = 0;
	while (atomic_load(s->ready) < 2)
		hb_idle_poll(&polls);
	if (!atomic_load_explicit(&s->pp->gave_up, memory_order_relaxed))
		hb_pingpong_body(s->pp, s->idx);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int hb_one_way_ns(int cpu_a, int cpu_b, double budget_ms, double *ns)
{
	if (cpu_a < 0 || cpu_b < 0 || cpu_a == cpu_b || cpu_a >= CPU_SETSIZE ||
	    cpu_b >= CPU_SETSIZE)
		return -EINVAL;
	struct hb_pp_line *line = aligned_alloc(HB_PP_LINE, sizeof *line);
	uint64_t ticks[PP_BATCHES];
	if (!line)
		return -ENOMEM;
	atomic_init(&line->v, 0);
	struct hb_pingpong pp = {line, PP_WARM, PP_BATCHES, PP_PER, ticks,
				 hc_now() + hc_from_ns(budget_ms * 1e6), 0};
	atomic_init(&pp.gave_up, 0);
	_Atomic unsigned ready;
	atomic_init(&ready, 0);
	struct side s[2] = {{&pp, &ready, cpu_a, 0, 0, 0}, {&pp, &ready, cpu_b, 1, 0, 0}};
	int rc = 0;
	unsigned started = 0;
	for (; started < 2; started++) {
		int e = pthread_create(&s[started].th, NULL, side_main, &s[started]);
		if (e) {
			rc = -e;
			atomic_store_explicit(&pp.gave_up, 1, memory_order_relaxed);
			atomic_fetch_add(&ready, 2); /* release a side already waiting */
			break;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(s[i].th, NULL);
	if (!rc)
		rc = s[0].rc ? s[0].rc : s[1].rc;
	if (!rc && atomic_load_explicit(&pp.gave_up, memory_order_relaxed))
		rc = -ETIMEDOUT;
	if (!rc) {
		qsort(ticks, PP_BATCHES, sizeof ticks[0], cmp_u64);
		*ns = hc_to_ns(ticks[PP_BATCHES / 2]) / PP_PER / 2;
	}
	free(line);
	return rc;
}
