/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_handover.c - the probe's hand-over as the harness times an item
 * (handover_stamped_ns): the least a queue's item can show between the
 * harness's two stamps when nothing but one line travels. See probe.h.
 *
 * Why: the ceiling model's latency term counts one line transfer (t_c, half
 * a ping-pong) per item, but a run's latency is stamp to stamp: the
 * producer's clock read, the line's trip to a consumer that polls as the
 * harness's consumers poll an empty queue (hb_idle_poll: PAUSE between
 * polls), and the consumer's clock read. This row times exactly that chain,
 * so the results can say how much of an item's measured time is the
 * instrument's before any queue adds its own.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "errors.h"
#include "pingpong.h"
#include "probe_rows.h"
#include "relax.h"

#define HO_FULL	 100000u
#define HO_QUICK 20000u
#define HO_WARM	 1000u

struct ho_arg {
	struct hb_pp_line *data; /* the producer's stamp: what the consumer waits for */
	struct hb_pp_line *ack;	 /* the consumer's count of hand-overs seen */
	unsigned n;		 /* hand-overs after HO_WARM unmeasured ones */
	double *ns;		 /* [n]: consumer's clock - producer's stamp */
};

/* idx 0 produces: waits until the consumer has seen the last stamp (so that
 * each hand-over finds the consumer polling an empty line, as near empty),
 * reads the clock and publishes it. idx 1 consumes: polls the line with the
 * harness's wait, reads the clock once the stamp changes, acknowledges. */
static void ho_body(void *arg, unsigned idx)
{
	struct ho_arg *a = arg;
	unsigned total = HO_WARM + a->n;
	if (idx == 0) {
		for (unsigned i = 0; i < total; i++) {
			/* Acquire pairs with the consumer's release of its count:
			 * nothing is read after it but the line's ownership moves,
			 * the hand-over's shape in every queue here. */
			while (atomic_load_explicit(&a->ack->v, memory_order_acquire) != i)
				hb_cpu_relax();
			uint64_t t = hc_now();
			/* Release: the stamp is the item (nothing else travels). */
			atomic_store_explicit(&a->data->v, t | 1u, memory_order_release);
		}
	} else {
		uint64_t last = 0;
		for (unsigned i = 0; i < total; i++) {
			uint64_t v;
			uint32_t polls = 0;
			/* Acquire pairs with the producer's release of the stamp. */
			while ((v = atomic_load_explicit(&a->data->v, memory_order_acquire)) == last)
				hb_idle_poll(&polls);
			uint64_t now = hc_now();
			if (i >= HO_WARM)
				a->ns[i - HO_WARM] = hc_to_ns(now - (v & ~(uint64_t)1));
			last = v;
			/* Release: pairs with the producer's acquire of the count. */
			atomic_store_explicit(&a->ack->v, i + 1, memory_order_release);
		}
	}
}

/* handover_stamped_ns: on the first two CPUs of the first node that has two,
 * the median over the hand-overs of (consumer's clock - producer's stamp). */
int hp_probe_handover(struct hp_probe *p)
{
	int cpus[2] = {-1, -1};
	int *c = calloc(p->ncpus, sizeof *c);
	if (!c) {
		hb_err(p->err, p->errlen, "probe: out of memory for the hand-over measurement");
		return -ENOMEM;
	}
	for (unsigned k = 0; k < p->t->nnodes && cpus[0] < 0; k++)
		if (hp_cpus_of(p, (int)k, c) >= 2) {
			cpus[0] = c[0];
			cpus[1] = c[1];
		}
	free(c);
	if (cpus[0] < 0) {
		hp_progress(p, "hand-over: no node with two CPUs, not measured");
		return 0;
	}
	struct ho_arg a;
	a.n = p->quick ? HO_QUICK : HO_FULL;
	a.data = aligned_alloc(HB_PP_LINE, sizeof *a.data);
	a.ack = aligned_alloc(HB_PP_LINE, sizeof *a.ack);
	a.ns = calloc(a.n, sizeof *a.ns);
	int rc = 0;
	if (!a.data || !a.ack || !a.ns) {
		hb_err(p->err, p->errlen, "probe: out of memory for the hand-over measurement");
		rc = -ENOMEM;
		goto out;
	}
	atomic_init(&a.data->v, 0);
	atomic_init(&a.ack->v, 0);
	rc = hp_gang_run(p, cpus, 2, ho_body, &a, "hand-over");
	if (rc)
		goto out;
	struct hp_stats s = hp_summarise(a.ns, a.n);
	struct hp_row *r = hp_add_row(p, HP_KIND(handover_stamped_ns), "ns", "stamp-poll-stamp-median");
	if (!r) {
		hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
		rc = -ENOMEM;
		goto out;
	}
	r->cpu_a = cpus[0];
	r->cpu_b = cpus[1];
	r->node_a = p->node_of[cpus[0]];
	r->node_b = p->node_of[cpus[1]];
	r->value = s.med;
	r->spread = s.p90 - s.p10;
	hp_progress(p, "hand-over as the harness times it (cpu %d -> %d): %.1f ns median, "
		       "p10 %.1f, p90 %.1f, %u hand-overs", cpus[0], cpus[1], s.med, s.p10, s.p90, a.n);
out:
	free(a.data);
	free(a.ack);
	free(a.ns);
	return rc;
}
