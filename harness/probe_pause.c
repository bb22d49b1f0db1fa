/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_pause.c - the probe's cost of one spin-wait hint (pause_ns): a
 * loop of hints less the same loop empty, per hint, on the first CPU. The
 * hint is hb_cpu_relax (relax.h), the instruction of the ring's PAUSE and
 * EXP backoffs. See probe.h.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "errors.h"
#include "probe_rows.h"

#define PAUSE_BATCHES_FULL  31u
#define PAUSE_BATCHES_QUICK 11u
#define PAUSE_PER_FULL	    20000u
#define PAUSE_PER_QUICK	    5000u

/* The spin-wait hint the ring's backoff spins (ring/src/nr_backoff.h,
 * nr_cpu_relax), which is the harness's hb_cpu_relax (relax.h): PAUSE on
 * x86, YIELD on arm64; elsewhere none. */
#if defined(__x86_64__) || defined(__i386__)
#define PAUSE_METHOD "pause-loop-less-empty-loop"
#elif defined(__aarch64__)
#define PAUSE_METHOD "yield-loop-less-empty-loop"
#else
#define PAUSE_METHOD NULL
#endif

/* n hints in a counted loop, as the backoff's spin runs them. noinline: the
 * same code in every batch, and the same as the empty loop's but for the
 * hint. */
static __attribute__((noinline)) void pause_loop(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		hb_cpu_relax();
}

/* The loop alone: an empty asm keeps each iteration (it may not be
 * removed or merged), and costs nothing itself. */
static __attribute__((noinline)) void empty_loop(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

struct pause_arg {
	unsigned nb, per;
	double *ns; /* [nb]: ns per hint, loop overhead subtracted */
};

static void pause_body(void *arg, unsigned idx)
{
	struct pause_arg *a = arg;
	(void)idx;
	empty_loop(a->per); /* warm-up */
	pause_loop(a->per);
	for (unsigned b = 0; b < a->nb; b++) {
		/* the two loops back to back, in alternating order, so that a
		 * drift of the clock rate between them falls on both alike */
		uint64_t t0 = hc_now(), t1, t2;
		if (b & 1) {
			pause_loop(a->per);
			t1 = hc_now();
			empty_loop(a->per);
			t2 = hc_now();
			a->ns[b] = (hc_to_ns(t1 - t0) - hc_to_ns(t2 - t1)) / a->per;
		} else {
			empty_loop(a->per);
			t1 = hc_now();
			pause_loop(a->per);
			t2 = hc_now();
			a->ns[b] = (hc_to_ns(t2 - t1) - hc_to_ns(t1 - t0)) / a->per;
		}
	}
}

/* pause_ns: ns per spin-wait hint on the first CPU, the median over the
 * batches of (a loop of `per` hints - the same loop empty) / per. */
int hp_probe_pause(struct hp_probe *p)
{
	struct hp_row *r;
	if (!PAUSE_METHOD) {
		HP_ADD_ROW(r, p, HP_KIND(pause_ns), "ns", "pause-unsupported");
		hp_progress(p, "pause: no spin-wait hint on this architecture");
		return 0;
	}
	struct pause_arg a;
	a.nb = p->quick ? PAUSE_BATCHES_QUICK : PAUSE_BATCHES_FULL;
	a.per = p->quick ? PAUSE_PER_QUICK : PAUSE_PER_FULL;
	a.ns = calloc(a.nb, sizeof *a.ns);
	if (!a.ns) {
		hb_err(p->err, p->errlen, "probe: out of memory for the pause measurement");
		return -ENOMEM;
	}
	int rc = hp_gang_run(p, &p->cpu[0], 1, pause_body, &a, "pause");
	if (!rc) {
		struct hp_stats s = hp_summarise(a.ns, a.nb);
		r = hp_add_row(p, HP_KIND(pause_ns), "ns", PAUSE_METHOD);
		if (!r) {
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			rc = -ENOMEM;
		} else {
			r->cpu_a = p->cpu[0];
			r->node_a = p->cpu_node[0];
			r->value = s.med;
			r->spread = s.p90 - s.p10;
			if (hc.tsc)
				hp_progress(p,
					    "pause (cpu %d): %.2f ns per PAUSE (%.0f TSC ticks), "
					    "%u batches of %u",
					    p->cpu[0], s.med, s.med * hc.ticks_per_ns, a.nb, a.per);
			else
				hp_progress(p,
					    "pause (cpu %d): %.2f ns per PAUSE, %u batches of %u",
					    p->cpu[0], s.med, a.nb, a.per);
		}
	}
	free(a.ns);
	return rc;
}
