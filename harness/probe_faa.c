/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_faa.c - the probe's atomic fetch-and-add on one line: one thread
 * alone (faa_uncontended_ns), two on the pair with the lowest round trip
 * (faa_contended_ns) and on the lowest across nodes
 * (faa_contended_other_node_ns). See probe.h.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errors.h"
#include "probe_rows.h"

#define FAA_BATCHES_FULL  31u
#define FAA_BATCHES_QUICK 11u
#define FAA_PER_FULL	  100000u
#define FAA_PER_QUICK	  20000u

struct faa_shared {
	_Alignas(HP_LINE) _Atomic uint64_t ctr;
	char pad0[HP_LINE - sizeof(uint64_t)];
	struct hp_barrier bar; /* between batches, on a line of its own */
};

struct faa_arg {
	struct faa_shared *s;
	unsigned n, nb, per;
	uint64_t *ticks; /* [n][nb] */
	uint64_t sink[2];
};

static void faa_body(void *arg, unsigned idx)
{
	struct faa_arg *a = arg;
	uint64_t sum = 0;
	for (unsigned b = 0; b <= a->nb; b++) { /* batch 0: warm-up */
		hp_barrier_wait(&a->s->bar, a->n);
		uint64_t t0 = hc_now();
		for (unsigned i = 0; i < a->per; i++)
			sum += atomic_fetch_add(&a->s->ctr, 1);
		uint64_t t1 = hc_now();
		if (b)
			a->ticks[(size_t)idx * a->nb + b - 1] = t1 - t0;
	}
	a->sink[idx] = sum;
}

static int faa_measure(struct hp_probe *p, const int *cpus, unsigned n, struct hp_stats *out)
{
	struct faa_arg a;
	memset(&a, 0, sizeof a);
	a.n = n;
	a.nb = p->quick ? FAA_BATCHES_QUICK : FAA_BATCHES_FULL;
	a.per = p->quick ? FAA_PER_QUICK : FAA_PER_FULL;
	a.s = aligned_alloc(HP_LINE, sizeof *a.s);
	a.ticks = calloc((size_t)n * a.nb, sizeof *a.ticks);
	double *ns = calloc((size_t)n * a.nb, sizeof *ns);
	int rc = 0;
	if (!a.s || !a.ticks || !ns) {
		hb_err(p->err, p->errlen, "probe: out of memory for the fetch-and-add measurement");
		rc = -ENOMEM;
		goto out;
	}
	atomic_init(&a.s->ctr, 0);
	atomic_init(&a.s->bar.count, 0);
	atomic_init(&a.s->bar.gen, 0);
	rc = hp_gang_run(p, cpus, n, faa_body, &a, "fetch-and-add");
	if (rc)
		goto out;
	for (size_t i = 0; i < (size_t)n * a.nb; i++)
		ns[i] = hc_to_ns(a.ticks[i]) / a.per;
	*out = hp_summarise(ns, (size_t)n * a.nb);
out:
	free(ns);
	free(a.ticks);
	free(a.s);
	return rc;
}

static int faa_row(struct hp_probe *p, const char *kind, const int cpus[2],
		   const struct hp_stats *s)
{
	struct hp_row *r;
	HP_ADD_ROW(r, p, kind, "ns", "faa-2threads-median");
	r->cpu_a = cpus[0];
	r->cpu_b = cpus[1];
	r->node_a = p->node_of[cpus[0]];
	r->node_b = p->node_of[cpus[1]];
	r->value = s->med;
	r->spread = s->p90 - s->p10;
	hp_progress(p, "%s (cpus %d, %d): %.2f ns per operation each", kind, cpus[0], cpus[1],
		    s->med);
	return 0;
}

/* faa_uncontended_ns on the first CPU; faa_contended_ns on the pair with
 * the lowest round trip; faa_contended_other_node_ns on the pair across
 * nodes with the lowest round trip (where there is one): a line fought over
 * from two nodes, as a shared gate is. */
int hp_probe_faa(struct hp_probe *p, const struct hp_c2c_result *res, size_t nres)
{
	struct hp_stats s;
	struct hp_row *r;
	int rc = faa_measure(p, &p->cpu[0], 1, &s);
	if (rc)
		return rc;
	HP_ADD_ROW(r, p, HP_KIND(faa_uncontended_ns), "ns", "faa-1thread-median");
	r->cpu_a = p->cpu[0];
	r->node_a = p->cpu_node[0];
	r->value = s.med;
	r->spread = s.p90 - s.p10;
	hp_progress(p, "faa uncontended (cpu %d): %.2f ns", p->cpu[0], s.med);
	if (!nres)
		return 0;
	size_t best = 0, other = nres;
	for (size_t i = 0; i < nres; i++) {
		if (res[i].med < res[best].med)
			best = i;
		if (p->node_of[res[i].a] != p->node_of[res[i].b] &&
		    (other == nres || res[i].med < res[other].med))
			other = i;
	}
	int cpus[2] = {res[best].a, res[best].b};
	rc = faa_measure(p, cpus, 2, &s);
	if (!rc)
		rc = faa_row(p, HP_KIND(faa_contended_ns), cpus, &s);
	if (rc || other == nres)
		return rc;
	int xcpus[2] = {res[other].a, res[other].b};
	rc = faa_measure(p, xcpus, 2, &s);
	if (!rc)
		rc = faa_row(p, HP_KIND(faa_contended_other_node_ns), xcpus, &s);
	return rc;
}
