/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_c2c.c - the probe's cache-line round trips between CPUs (c2c_rtt:
 * ping-pong on one line, per ordered pair), and their summaries within a
 * node and across nodes (c2c_same_node, c2c_other_node, the one-way
 * halves). See probe.h for the rows.
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
#include "pingpong.h"
#include "probe_rows.h"

/* Batches per pair, and the sessions of full mode (hp_probe_c2c). */
#define C2C_BATCHES_FULL  50u
#define C2C_BATCHES_QUICK 20u
#define C2C_SWEEPS	  5u

/* The exchange is pingpong.h's, the same one each run times its CPUs with. */
static void pp_body(void *arg, unsigned idx)
{
	hb_pingpong_body(arg, idx);
}

struct pair {
	int a, b;
};

/* The pairs to measure: all ordered pairs up to HP_ALL_PAIRS_MAX_CPUS CPUs
 * (HP_QUICK_ALL_PAIRS_MAX_CPUS in quick mode);
 * above, CPU 0 (the first of the topology) with every other CPU of its node
 * and the first CPU of every other node, the first CPUs of every two other
 * nodes, and the first two CPUs of every other node, each both ways. */
static struct pair *choose_pairs(struct hp_probe *p, size_t *npairs, int *sampled)
{
	size_t cap = 64, n = 0;
	struct pair *v = malloc(cap * sizeof *v);
	if (!v)
		return NULL;
#define PUSH(x, y)                                                                                 \
	do {                                                                                       \
		if (n + 2 > cap) {                                                                 \
			struct pair *nv_ = realloc(v, 2 * cap * sizeof *v);                        \
			if (!nv_) {                                                                \
				free(v);                                                           \
				return NULL;                                                       \
			}                                                                          \
			v = nv_;                                                                   \
			cap *= 2;                                                                  \
		}                                                                                  \
		v[n++] = (struct pair){(x), (y)};                                                  \
		v[n++] = (struct pair){(y), (x)};                                                  \
	} while (0)
	*sampled = p->ncpus > (p->quick ? HP_QUICK_ALL_PAIRS_MAX_CPUS : HP_ALL_PAIRS_MAX_CPUS);
	if (!*sampled) {
		for (unsigned i = 0; i < p->ncpus; i++)
			for (unsigned j = 0; j < p->ncpus; j++) {
				if (i == j)
					continue;
				if (n + 1 > cap) {
					struct pair *nv = realloc(v, 2 * cap * sizeof *v);
					if (!nv) {
						free(v);
						return NULL;
					}
					v = nv;
					cap *= 2;
				}
				v[n++] = (struct pair){p->cpu[i], p->cpu[j]};
			}
		*npairs = n;
		return v;
	}
	const struct numaring_topology *t = p->t;
	int c0 = p->cpu[0], n0 = p->cpu_node[0];
	int first[NUMARING_MAX_NODES], second[NUMARING_MAX_NODES];
	for (unsigned k = 0; k < t->nnodes; k++)
		first[k] = second[k] = -1;
	for (unsigned i = 0; i < p->ncpus; i++) {
		int k = p->cpu_node[i];
		if (first[k] < 0)
			first[k] = p->cpu[i];
		else if (second[k] < 0)
			second[k] = p->cpu[i];
	}
	for (unsigned i = 1; i < p->ncpus; i++)
		if (p->cpu_node[i] == n0)
			PUSH(c0, p->cpu[i]);
	for (unsigned k = 0; k < t->nnodes; k++) {
		if ((int)k == n0 || first[k] < 0)
			continue;
		PUSH(c0, first[k]);
		if (second[k] >= 0)
			PUSH(first[k], second[k]);
		for (unsigned m = k + 1; m < t->nnodes; m++)
			if ((int)m != n0 && first[m] >= 0)
				PUSH(first[k], first[m]);
	}
#undef PUSH
	*npairs = n;
	return v;
}

int hp_probe_c2c(struct hp_probe *p, unsigned rounds, struct hp_c2c_result **out, size_t *nout)
{
	size_t np = 0;
	int sampled = 0;
	*out = NULL;
	*nout = 0;
	if (p->ncpus < 2) {
		hp_progress(p, "c2c: one CPU only, no pair to measure");
		return 0;
	}
	struct pair *pairs = choose_pairs(p, &np, &sampled);
	if (!pairs) {
		hb_err(p->err, p->errlen, "probe: out of memory for the CPU pairs");
		return -ENOMEM;
	}
	/* Full mode measures every pair in C2C_SWEEPS sessions spread over the
	 * whole phase, so that the machine's drift falls on every pair alike. */
	unsigned sweeps = p->quick ? 1 : C2C_SWEEPS;
	unsigned nb = p->quick ? C2C_BATCHES_QUICK : C2C_BATCHES_FULL;
	if (rounds < nb)
		nb = rounds;
	if (nb < sweeps)
		sweeps = nb;
	nb -= nb % sweeps;
	unsigned per = rounds / nb, nbs = nb / sweeps;
	unsigned warm = per * nbs / 10 > 200 ? per * nbs / 10 : 200;
	struct hb_pp_line *line = aligned_alloc(HB_PP_LINE, sizeof *line);
	uint64_t *ticks = calloc(np * nb, sizeof *ticks);
	double *ns = calloc(nb, sizeof *ns);
	struct hp_c2c_result *res = calloc(np, sizeof *res);
	int rc = 0;
	if (!line || !ticks || !ns || !res) {
		hb_err(p->err, p->errlen, "probe: out of memory for the round-trip measurement");
		rc = -ENOMEM;
		goto out;
	}
	const char *method = sampled ? "pingpong-median-sampled" : "pingpong-median";
	for (unsigned sw = 0; sw < sweeps; sw++) {
		if (sweeps > 1)
			hp_progress(p, "c2c sweep %u/%u: %zu pairs, %u x %u round trips each",
				    sw + 1, sweeps, np, nbs, per);
		for (size_t i = 0; i < np; i++) {
			atomic_init(&line->v, 0);
			struct hb_pingpong a = {line, warm, nbs, per, &ticks[i * nb + (size_t)sw * nbs],
						0, 0};
			atomic_init(&a.gave_up, 0);
			int cpus[2] = {pairs[i].a, pairs[i].b};
			rc = hp_gang_run(p, cpus, 2, pp_body, &a, "round-trip");
			if (rc)
				goto out;
		}
	}
	for (size_t i = 0; i < np; i++) {
		for (unsigned b = 0; b < nb; b++)
			ns[b] = hc_to_ns(ticks[i * nb + b]) / per;
		struct hp_stats s = hp_summarise(ns, nb);
		res[i] = (struct hp_c2c_result){pairs[i].a, pairs[i].b, s.med, s.p90 - s.p10};
		hp_progress(p, "c2c %zu/%zu (cpu %d -> %d) %.1f ns round trip", i + 1, np,
			    pairs[i].a, pairs[i].b, s.med);
		struct hp_row *r = hp_add_row(p, HP_KIND(c2c_rtt), "ns", method);
		if (!r) {
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			rc = -ENOMEM;
			goto out;
		}
		r->cpu_a = pairs[i].a;
		r->cpu_b = pairs[i].b;
		r->node_a = p->node_of[pairs[i].a];
		r->node_b = p->node_of[pairs[i].b];
		r->value = s.med;
		r->spread = s.p90 - s.p10;
	}
	*out = res;
	*nout = np;
	res = NULL;
out:
	free(res);
	free(ns);
	free(ticks);
	free(line);
	free(pairs);
	return rc;
}

/* 2. the summaries over the pairs within a node and across nodes */
int hp_c2c_summaries(struct hp_probe *p, const struct hp_c2c_result *res, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v) {
		hb_err(p->err, p->errlen, "probe: out of memory for the summaries");
		return -ENOMEM;
	}
	for (int other = 0; other < 2; other++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if ((p->node_of[res[i].a] != p->node_of[res[i].b]) == other)
				v[k++] = res[i].med;
		if (!k)
			continue;
		struct hp_stats s = hp_summarise(v, k);
		char method[64];
		snprintf(method, sizeof method, "median-of-%zu-pairs", k);
		const char *rtt = other ? HP_KIND(c2c_other_node) : HP_KIND(c2c_same_node);
		const char *way =
		    other ? HP_KIND(c2c_one_way_other_node) : HP_KIND(c2c_one_way_same_node);
		if (!hp_add_row(p, rtt, "ns", method) ||
		    !hp_add_row(p, way, "ns", "half-rtt-median")) {
			free(v);
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			return -ENOMEM;
		}
		struct hp_row *r = &p->rows[p->nrows - 2], *h = &p->rows[p->nrows - 1];
		r->value = s.med;
		r->spread = s.max - s.min;
		h->value = s.med / 2;
		h->spread = (s.max - s.min) / 2;
		hp_progress(p, "c2c %s node: %.1f ns round trip, %.1f ns one way (%zu pairs)",
			    other ? "other" : "same", s.med, s.med / 2, k);
	}
	free(v);
	return 0;
}
