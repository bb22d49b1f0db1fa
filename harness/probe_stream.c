/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_stream.c - the probe's cache-to-cache streaming: a reader pulling
 * the lines a writer on another core has just written, one pair and every
 * CPU of a node in pairs at once, within a node and across two
 * (c2c_bw_*). See probe.h.
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

#define CS_LINES	256u /* 16 KiB: stays in the writer's own caches */
#define CS_ROUNDS_FULL	20000u
#define CS_ROUNDS_QUICK 2000u
/* Quick mode splits one pair's rounds among the pairs of a multi-pair stream:
 * a round waits for its writer and reader to run at once, and 8 pairs of
 * 2000 rounds took minutes in a QEMU TCG guest of 16 CPUs on a busy host. */
#define CS_ROUNDS_QUICK_MIN 200u

struct cs_pair {
	_Alignas(HP_LINE) _Atomic uint64_t flag; /* the round the writer has published */
	char pad0[HP_LINE - sizeof(uint64_t)];
	_Alignas(HP_LINE) _Atomic uint64_t ack; /* the round the reader has read */
	char pad1[HP_LINE - sizeof(uint64_t)];
	_Alignas(HP_LINE) uint64_t line[CS_LINES][8]; /* 64-byte lines */
};

struct cs_arg {
	struct cs_pair *pair; /* npairs */
	unsigned npairs, warm, rounds;
	uint64_t *ticks;      /* [npairs][rounds]: the reader's time per round */
	_Atomic uint64_t bad; /* rounds whose sum was wrong (never, if ordered) */
};

/* Thread 2k writes pair k's lines (one store per line: the line is then
 * modified in its cache), publishes the round and waits for the reader;
 * thread 2k+1 waits for the round, then reads every line (independent
 * loads) and times that. */
static void cs_body(void *arg, unsigned idx)
{
	struct cs_arg *a = arg;
	struct cs_pair *pr = &a->pair[idx / 2];
	uint64_t total = (uint64_t)a->warm + a->rounds;
	if (idx % 2 == 0) {
		for (uint64_t r = 1; r <= total; r++) {
			for (unsigned i = 0; i < CS_LINES; i++)
				pr->line[i][0] = r;
			atomic_store_explicit(&pr->flag, r, memory_order_release);
			while (atomic_load_explicit(&pr->ack, memory_order_acquire) != r)
				hb_cpu_relax();
		}
		return;
	}
	uint64_t bad = 0;
	for (uint64_t r = 1; r <= total; r++) {
		while (atomic_load_explicit(&pr->flag, memory_order_acquire) != r)
			hb_cpu_relax();
		uint64_t t0 = hc_now(), s = 0;
		for (unsigned i = 0; i < CS_LINES; i++)
			s += pr->line[i][0];
		uint64_t t1 = hc_now();
		bad += s != r * CS_LINES;
		if (r > a->warm)
			a->ticks[(size_t)(idx / 2) * a->rounds + (r - a->warm - 1)] = t1 - t0;
		atomic_store_explicit(&pr->ack, r, memory_order_release);
	}
	if (bad)
		atomic_fetch_add(&a->bad, bad);
}

/* npairs pairs at once, pair k = writer w[k], reader rd[k]; out[k]: the
 * reader's GB/s over the rounds. */
static int cs_measure(struct hp_probe *p, const int *w, const int *rd, unsigned npairs,
		      struct hp_stats *out)
{
	struct cs_arg a;
	memset(&a, 0, sizeof a);
	atomic_init(&a.bad, 0);
	a.npairs = npairs;
	a.rounds = p->quick ? CS_ROUNDS_QUICK / npairs : CS_ROUNDS_FULL;
	if (a.rounds < CS_ROUNDS_QUICK_MIN)
		a.rounds = CS_ROUNDS_QUICK_MIN;
	a.warm = a.rounds / 10;
	a.pair = aligned_alloc(HP_LINE, npairs * sizeof *a.pair);
	a.ticks = calloc((size_t)npairs * a.rounds, sizeof *a.ticks);
	int *cpus = calloc(2 * (size_t)npairs, sizeof *cpus);
	double *gbs = calloc(a.rounds, sizeof *gbs);
	int rc = 0;
	if (!a.pair || !a.ticks || !cpus || !gbs) {
		hb_err(p->err, p->errlen,
		       "probe: out of memory for the cache-to-cache measurement");
		rc = -ENOMEM;
		goto out;
	}
	memset(a.pair, 0, npairs * sizeof *a.pair);
	for (unsigned k = 0; k < npairs; k++) {
		atomic_init(&a.pair[k].flag, 0);
		atomic_init(&a.pair[k].ack, 0);
		cpus[2 * k] = w[k];
		cpus[2 * k + 1] = rd[k];
	}
	rc = hp_gang_run(p, cpus, 2 * npairs, cs_body, &a, "cache-to-cache");
	if (rc)
		goto out;
	if (atomic_load(&a.bad)) {
		hb_err(p->err, p->errlen, "probe: cache-to-cache reads saw %llu torn rounds",
		       (unsigned long long)atomic_load(&a.bad));
		rc = -EIO;
		goto out;
	}
	for (unsigned k = 0; k < npairs; k++) {
		for (unsigned i = 0; i < a.rounds; i++)
			gbs[i] = (double)CS_LINES * 64.0 /
				 hc_to_ns(a.ticks[(size_t)k * a.rounds + i]
					      ? a.ticks[(size_t)k * a.rounds + i]
					      : 1);
		out[k] = hp_summarise(gbs, a.rounds);
	}
out:
	free(gbs);
	free(cpus);
	free(a.ticks);
	free(a.pair);
	return rc;
}

static int cs_row(struct hp_probe *p, const char *kind, const int *w, const int *rd,
		  unsigned npairs)
{
	struct hp_stats *s = calloc(npairs, sizeof *s);
	if (!s) {
		hb_err(p->err, p->errlen,
		       "probe: out of memory for the cache-to-cache measurement");
		return -ENOMEM;
	}
	int rc = cs_measure(p, w, rd, npairs, s);
	if (rc) {
		free(s);
		return rc;
	}
	double med = 0, p10 = 0, p90 = 0;
	for (unsigned k = 0; k < npairs; k++) {
		med += s[k].med;
		p10 += s[k].p10;
		p90 += s[k].p90;
	}
	free(s);
	char method[64];
	if (npairs == 1)
		snprintf(method, sizeof method, "stream-%u-lines-1pair", CS_LINES);
	else
		snprintf(method, sizeof method, "stream-%u-lines-sum-of-%upairs", CS_LINES, npairs);
	struct hp_row *r;
	HP_ADD_ROW(r, p, kind, "GB/s", method);
	r->cpu_a = w[0];
	r->cpu_b = rd[0];
	r->node_a = p->node_of[w[0]];
	r->node_b = p->node_of[rd[0]];
	r->value = med;
	r->spread = p90 - p10;
	hp_progress(p, "%s: %u pair%s (cpu %d -> %d%s): %.2f GB/s", kind, npairs,
		    npairs > 1 ? "s" : "", w[0], rd[0], npairs > 1 ? ", ..." : "", med);
	return 0;
}

/* c2c_bw_same_node_gbs: one reader pulling lines one writer of its node has
 * just written (the first two CPUs of the first node that has two);
 * c2c_bw_mt_same_node_gbs: every CPU of that node in such pairs at once,
 * the sum (only with >= 4 CPUs there). c2c_bw_other_node_gbs and
 * c2c_bw_mt_other_node_gbs: the same with the writers on the first CPU's
 * node and the readers on the first other node with CPUs. */
int hp_probe_c2c_bw(struct hp_probe *p)
{
	const struct numaring_topology *t = p->t;
	int *a = calloc(p->ncpus, sizeof *a), *b = calloc(p->ncpus, sizeof *b);
	int *w = calloc(p->ncpus, sizeof *w), *rd = calloc(p->ncpus, sizeof *rd);
	int rc = 0;
	if (!a || !b || !w || !rd) {
		hb_err(p->err, p->errlen,
		       "probe: out of memory for the cache-to-cache measurement");
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned k = 0; k < t->nnodes; k++) {
		unsigned n = hp_cpus_of(p, (int)k, a);
		if (n < 2)
			continue;
		rc = cs_row(p, HP_KIND(c2c_bw_same_node_gbs), &a[0], &a[1], 1);
		if (!rc && n >= 4) {
			unsigned np = n / 2;
			for (unsigned i = 0; i < np; i++) {
				w[i] = a[2 * i];
				rd[i] = a[2 * i + 1];
			}
			rc = cs_row(p, HP_KIND(c2c_bw_mt_same_node_gbs), w, rd, np);
		}
		break;
	}
	if (rc)
		goto out;
	int a0 = p->cpu_node[0];
	unsigned na = hp_cpus_of(p, a0, a);
	for (unsigned k = 0; k < t->nnodes; k++) {
		if ((int)k == a0)
			continue;
		unsigned nb = hp_cpus_of(p, (int)k, b);
		if (!nb)
			continue;
		rc = cs_row(p, HP_KIND(c2c_bw_other_node_gbs), &a[0], &b[0], 1);
		unsigned np = na < nb ? na : nb;
		if (!rc && np >= 2)
			rc = cs_row(p, HP_KIND(c2c_bw_mt_other_node_gbs), a, b, np);
		break;
	}
out:
	free(a);
	free(b);
	free(w);
	free(rd);
	return rc;
}
