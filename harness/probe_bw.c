/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_bw.c - the probe's memory read bandwidth: of one pinned thread
 * from its own node's memory and from other nodes' (bw_local_gbs,
 * bw_remote_gbs: likwid-bench where it can place its thread, else a
 * built-in read loop), and of every CPU of a node at once (bw_local_mt_gbs,
 * bw_remote_mt_gbs: built-in). See probe.h.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <numa.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errors.h"
#include "probe_rows.h"

/* One thread's buffer, passes of it, and likwid-bench's runs (hp_probe_bw). */
#define BW_BYTES	     (256u << 20)
#define BW_PASSES_FULL	     9u
#define BW_PASSES_QUICK	     3u
#define LIKWID_RUNS	     3u
#define LIKWID_SECONDS_FULL  0.5
#define LIKWID_SECONDS_QUICK 0.2

/* ---- 5. memory read bandwidth of one thread --------------------------------- */

typedef uint64_t hp_v2 __attribute__((vector_size(16)));

/* Read every byte of buf once (64 bytes per iteration, four independent sums). */
static __attribute__((noinline)) uint64_t read_pass(const void *buf, size_t bytes)
{
	const hp_v2 *v = buf;
	size_t n = bytes / sizeof(hp_v2);
	hp_v2 s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
	for (size_t i = 0; i + 4 <= n; i += 4) {
		s0 += v[i];
		s1 += v[i + 1];
		s2 += v[i + 2];
		s3 += v[i + 3];
	}
	hp_v2 s = s0 + s1 + s2 + s3;
	return s[0] + s[1];
}

struct bw_arg {
	int mem_node; /* OS node for numa_alloc_onnode; -1: first touch by the pinned thread */
	size_t bytes;
	unsigned passes;
	double *gbs;
	int rc;
	uint64_t sink;
};

static void bw_body(void *arg, unsigned idx)
{
	struct bw_arg *a = arg;
	(void)idx;
	void *buf = a->mem_node >= 0 ? numa_alloc_onnode(a->bytes, a->mem_node)
				     : aligned_alloc(4096, a->bytes);
	if (!buf) {
		a->rc = -ENOMEM;
		return;
	}
	memset(buf, 1, a->bytes);	     /* fault every page in, on its node */
	a->sink += read_pass(buf, a->bytes); /* warm-up */
	for (unsigned i = 0; i < a->passes; i++) {
		uint64_t t0 = hc_now();
		a->sink += read_pass(buf, a->bytes);
		a->gbs[i] = (double)a->bytes / hc_to_ns(hc_now() - t0);
	}
	if (a->mem_node >= 0)
		numa_free(buf, a->bytes);
	else
		free(buf);
}

static int bw_builtin(struct hp_probe *p, int cpu, int mem_node, struct hp_stats *out)
{
	struct bw_arg a;
	memset(&a, 0, sizeof a);
	a.mem_node = mem_node;
	a.bytes = BW_BYTES;
	a.passes = p->quick ? BW_PASSES_QUICK : BW_PASSES_FULL;
	a.gbs = calloc(a.passes, sizeof *a.gbs);
	if (!a.gbs) {
		hb_err(p->err, p->errlen, "probe: out of memory for the bandwidth measurement");
		return -ENOMEM;
	}
	int rc = hp_gang_run(p, &cpu, 1, bw_body, &a, "bandwidth");
	if (!rc && a.rc) {
		rc = a.rc;
		hb_err(p->err, p->errlen,
		       "probe: cannot allocate %zu MiB for the bandwidth measurement%s",
		       a.bytes >> 20, mem_node >= 0 ? " on its node" : "");
	}
	if (!rc)
		*out = hp_summarise(a.gbs, a.passes);
	free(a.gbs);
	return rc;
}

static int bw_row(struct hp_probe *p, const char *kind, int cpu, int node_a, int node_b,
		  const struct hp_stats *s, const char *method)
{
	struct hp_row *r;
	HP_ADD_ROW(r, p, kind, "GB/s", method);
	r->cpu_a = cpu;
	r->node_a = node_a;
	r->node_b = node_b;
	r->value = s->med;
	r->spread = s->p90 - s->p10;
	if (node_b >= 0)
		hp_progress(p, "%s: cpu %d (node %d) reading node %d's memory: %.2f GB/s (%s)",
			    kind, cpu, node_a, node_b, s->med, method);
	else
		hp_progress(p,
			    "%s: cpu %d (node %d) reading memory it touched first: %.2f GB/s (%s)",
			    kind, cpu, node_a, s->med, method);
	return 0;
}

/* A node whose own memory holds its ring (real topologies only). */
static int has_own_mem(const struct numaring_topology *t, unsigned k)
{
	return !t->emulated && t->numa_available && t->os_node[k] >= 0 &&
	       t->mem_node[k] == t->os_node[k];
}

static int first_cpu_of(const struct hp_probe *p, unsigned k)
{
	for (unsigned i = 0; i < p->ncpus; i++)
		if (p->cpu_node[i] == (int)k)
			return p->cpu[i];
	return -1;
}

int hp_probe_bw(struct hp_probe *p)
{
	const struct numaring_topology *t = p->t;
	struct hp_stats s;
	int rc;
	if (t->emulated || t->nnodes < 2 || !t->numa_available) {
		/* one row, local; emulated nodes have no memory of their own */
		int cpu = p->cpu[0], k = p->cpu_node[0];
		int placed = has_own_mem(t, (unsigned)k);
		hp_progress(p, "bw: %s topology, local read bandwidth only (built-in loop)",
			    t->emulated ? "emulated" : "one-node");
		rc = bw_builtin(p, cpu, placed ? t->mem_node[k] : -1, &s);
		if (rc)
			return rc;
		return bw_row(p, HP_KIND(bw_local_gbs), cpu, k, placed ? k : -1, &s,
			      placed ? "builtin-read-onnode" : "builtin-read-unplaced");
	}

	const char *lw = p->likwid;
	cpu_set_t *dom = NULL;
	int ndom = 0;
	if (lw[0] && !p->quick) {
		dom = calloc(NUMARING_MAX_NODES, sizeof *dom);
		if (dom)
			ndom = hp_likwid_memory_domains(lw, dom, NUMARING_MAX_NODES);
		hp_progress(p, "bw: %s, %d memory domains", lw, ndom);
	} else {
		hp_progress(p, "bw: %s, built-in read loop",
			    lw[0] ? "quick mode" : "no likwid-bench");
	}

	/* local for every node with CPUs and memory; remote from the first
	 * CPU's node to every other node with memory */
	int a0 = p->cpu_node[0];
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned k = 0; k < t->nnodes; k++) {
			int src = pass == 0 ? (int)k : a0;
			int dst = (int)k;
			if (pass == 1 && dst == a0)
				continue;
			int cpu = first_cpu_of(p, (unsigned)src);
			if (cpu < 0 || !has_own_mem(t, (unsigned)dst) ||
			    (pass == 1 && t->mem_node[dst] == t->mem_node[src]))
				continue;
			const char *kind =
			    pass == 0 ? HP_KIND(bw_local_gbs) : HP_KIND(bw_remote_gbs);
			const char *method = "builtin-read-onnode";
			int ran = cpu, done = 0;
			if (ndom > 0) {
				int cd = hp_likwid_dom_of_os_node(dom, ndom, t->os_node[src]);
				int md = hp_likwid_dom_of_os_node(dom, ndom, t->mem_node[dst]);
				double v[LIKWID_RUNS];
				unsigned got = 0;
				for (unsigned i = 0; cd >= 0 && md >= 0 && i < LIKWID_RUNS; i++) {
					char e2[256];
					int hw = -1;
					if (hp_likwid_load(lw, (unsigned)cd, (unsigned)md, BW_BYTES,
							   p->quick ? LIKWID_SECONDS_QUICK
								    : LIKWID_SECONDS_FULL,
							   &v[got], &hw, e2, sizeof e2) != 0) {
						hp_progress(p, "bw: %s; built-in loop instead", e2);
						break;
					}
					/* likwid picks the domain's first hwthread: it must be
					 * one of this node's CPUs for the row to be true */
					if (hw < 0 || hw >= NUMARING_MAX_CPUS ||
					    p->node_of[hw] != src) {
						hp_progress(
						    p,
						    "bw: likwid-bench ran on cpu %d, not on "
						    "node %d; built-in loop instead",
						    hw, src);
						break;
					}
					ran = hw;
					got++;
				}
				if (got == LIKWID_RUNS) {
					s = hp_summarise(v, got);
					s.p10 = s.min; /* three runs: min..max */
					s.p90 = s.max;
					method = "likwid-bench-load-1thread";
					done = 1;
				}
			}
			if (!done) {
				ran = cpu;
				rc = bw_builtin(p, cpu, t->mem_node[dst], &s);
				if (rc) {
					free(dom);
					return rc;
				}
			}
			rc = bw_row(p, kind, ran, src, dst, &s, method);
			if (rc) {
				free(dom);
				return rc;
			}
		}
	}
	free(dom);
	return 0;
}

/* ---- 5b. memory read bandwidth of many threads at once ------------------------ */

#define BW_MT_TOTAL_FULL  (512u << 20)
#define BW_MT_TOTAL_QUICK (256u << 20)
#define BW_MT_MIN_BYTES	  (32u << 20)

struct bwmt_arg {
	int mem_node; /* OS node for numa_alloc_onnode; -1: first touch by the thread */
	unsigned n, passes;
	size_t bytes; /* per thread */
	struct hp_barrier bar;
	uint64_t *start, *end; /* [passes][n] */
	_Atomic int failed;
	_Atomic uint64_t sink;
};

static void bwmt_body(void *arg, unsigned idx)
{
	struct bwmt_arg *a = arg;
	void *buf = a->mem_node >= 0 ? numa_alloc_onnode(a->bytes, a->mem_node)
				     : aligned_alloc(4096, a->bytes);
	if (!buf)
		atomic_store(&a->failed, 1);
	else
		memset(buf, 1, a->bytes); /* fault every page in, on its node */
	hp_barrier_wait(&a->bar, a->n);
	if (atomic_load(&a->failed)) {
		/* every thread sees it after the barrier: nobody waits for us */
		if (buf && a->mem_node >= 0)
			numa_free(buf, a->bytes);
		else
			free(buf);
		return;
	}
	uint64_t sink = read_pass(buf, a->bytes); /* warm-up */
	for (unsigned i = 0; i < a->passes; i++) {
		hp_barrier_wait(&a->bar, a->n);
		uint64_t t0 = hc_now();
		sink += read_pass(buf, a->bytes);
		uint64_t t1 = hc_now();
		a->start[(size_t)i * a->n + idx] = t0;
		a->end[(size_t)i * a->n + idx] = t1;
	}
	atomic_fetch_add(&a->sink, sink);
	if (a->mem_node >= 0)
		numa_free(buf, a->bytes);
	else
		free(buf);
}

/* n threads on cpus[] read their own buffers (on mem_node, or first-touch
 * placed) at once; out: the aggregate GB/s per pass, from the first start
 * to the last end of the pass. */
static int bw_mt_builtin(struct hp_probe *p, const int *cpus, unsigned n, int mem_node,
			 struct hp_stats *out)
{
	struct bwmt_arg *a = aligned_alloc(HP_LINE, sizeof *a);
	if (!a) {
		hb_err(p->err, p->errlen, "probe: out of memory for the bandwidth measurement");
		return -ENOMEM;
	}
	memset(a, 0, sizeof *a);
	size_t total = p->quick ? BW_MT_TOTAL_QUICK : BW_MT_TOTAL_FULL;
	a->mem_node = mem_node;
	a->n = n;
	a->passes = p->quick ? BW_PASSES_QUICK : BW_PASSES_FULL;
	a->bytes = total / n > BW_MT_MIN_BYTES ? total / n : BW_MT_MIN_BYTES;
	a->bytes &= ~(size_t)4095;
	atomic_init(&a->bar.count, 0);
	atomic_init(&a->bar.gen, 0);
	atomic_init(&a->failed, 0);
	atomic_init(&a->sink, 0);
	a->start = calloc((size_t)a->passes * n, sizeof *a->start);
	a->end = calloc((size_t)a->passes * n, sizeof *a->end);
	double *gbs = calloc(a->passes, sizeof *gbs);
	int rc = 0;
	if (!a->start || !a->end || !gbs) {
		hb_err(p->err, p->errlen, "probe: out of memory for the bandwidth measurement");
		rc = -ENOMEM;
		goto out;
	}
	rc = hp_gang_run(p, cpus, n, bwmt_body, a, "bandwidth");
	if (!rc && atomic_load(&a->failed)) {
		rc = -ENOMEM;
		hb_err(p->err, p->errlen,
		       "probe: cannot allocate %u x %zu MiB for the bandwidth measurement%s", n,
		       a->bytes >> 20, mem_node >= 0 ? " on its node" : "");
	}
	if (rc)
		goto out;
	for (unsigned i = 0; i < a->passes; i++) {
		uint64_t t0 = a->start[(size_t)i * n], t1 = a->end[(size_t)i * n];
		for (unsigned j = 1; j < n; j++) {
			if (a->start[(size_t)i * n + j] < t0)
				t0 = a->start[(size_t)i * n + j];
			if (a->end[(size_t)i * n + j] > t1)
				t1 = a->end[(size_t)i * n + j];
		}
		gbs[i] = (double)a->bytes * n / hc_to_ns(t1 - t0);
	}
	*out = hp_summarise(gbs, a->passes);
out:
	free(gbs);
	free(a->start);
	free(a->end);
	free(a);
	return rc;
}

static int bwmt_row(struct hp_probe *p, const char *kind, const int *cpus, unsigned n, int node_a,
		    int node_b, int mem_node)
{
	struct hp_stats s;
	int rc = bw_mt_builtin(p, cpus, n, mem_node, &s);
	if (rc)
		return rc;
	char method[64];
	snprintf(method, sizeof method, "builtin-read-%uthreads-%s", n,
		 mem_node >= 0 ? "onnode" : "unplaced");
	struct hp_row *r;
	HP_ADD_ROW(r, p, kind, "GB/s", method);
	r->cpu_a = cpus[0];
	r->node_a = node_a;
	r->node_b = node_b;
	r->value = s.med;
	r->spread = s.p90 - s.p10;
	hp_progress(p, "%s: %u threads of node %d reading %s at once: %.2f GB/s (%s)", kind, n,
		    node_a, node_b >= 0 ? "their node's memory" : "memory they touched first",
		    s.med, method);
	return 0;
}

/* bw_local_mt_gbs: the CPUs of a node read their node's memory at once (on
 * one node or an emulated topology: every CPU of the topology, which share
 * one real memory); bw_remote_mt_gbs (>= 2 real nodes): the CPUs of the
 * first CPU's node read another node's memory at once. */
int hp_probe_bw_mt(struct hp_probe *p)
{
	const struct numaring_topology *t = p->t;
	int *cpus = calloc(p->ncpus, sizeof *cpus);
	int rc = 0;
	if (!cpus) {
		hb_err(p->err, p->errlen, "probe: out of memory for the bandwidth measurement");
		return -ENOMEM;
	}
	if (t->emulated || t->nnodes < 2 || !t->numa_available) {
		int k = p->cpu_node[0];
		int placed = !t->emulated && has_own_mem(t, (unsigned)k);
		unsigned n = hp_cpus_of(p, placed ? k : -1, cpus);
		rc = bwmt_row(p, HP_KIND(bw_local_mt_gbs), cpus, n, k, placed ? k : -1,
			      placed ? t->mem_node[k] : -1);
		free(cpus);
		return rc;
	}
	int a0 = p->cpu_node[0];
	for (unsigned k = 0; !rc && k < t->nnodes; k++) {
		unsigned n = hp_cpus_of(p, (int)k, cpus);
		if (n && has_own_mem(t, k))
			rc = bwmt_row(p, HP_KIND(bw_local_mt_gbs), cpus, n, (int)k, (int)k,
				      t->mem_node[k]);
	}
	unsigned n0 = hp_cpus_of(p, a0, cpus);
	for (unsigned k = 0; !rc && k < t->nnodes; k++) {
		if ((int)k == a0 || !has_own_mem(t, k) || t->mem_node[k] == t->mem_node[a0])
			continue;
		rc = bwmt_row(p, HP_KIND(bw_remote_mt_gbs), cpus, n0, a0, (int)k, t->mem_node[k]);
	}
	free(cpus);
	return rc;
}
