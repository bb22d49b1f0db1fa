/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe.c - numaring-bench --probe: cache-line round trips between CPUs,
 * node look-up costs, the cost of one PAUSE, contended fetch-and-add
 * (within and across nodes),
 * cache-to-cache streaming of lines another core has just written, and the
 * memory read bandwidth of one thread and of a node's threads at once, of
 * this host, written to <outdir>/probe.csv (see probe.h).
 *
 * Every measurement runs on threads pinned with pthread_setaffinity_np (the
 * caller's own affinity is never touched), warms up first, then times
 * batches with hc_now() and keeps the median and the p90-p10 width of the
 * batches: the machines this runs on are shared and noisy, so a mean alone
 * would say little. The timed loops allocate nothing and make no system
 * call, except the look-up modes that are system calls by definition
 * (syscall; libnuma and table through sched_getcpu where glibc has no rseq).
 */
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numa.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "errors.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "probe_rows.h"
#include "relax.h"

extern char **environ;

#define HP_LINE 128 /* two cache lines: keeps the adjacent-line prefetcher off shared data */

/* ---- sizes of the measurements ------------------------------------------ */

#define C2C_ROUNDS_FULL	  20000u
#define C2C_ROUNDS_QUICK  2000u
#define C2C_BATCHES_FULL  50u
#define C2C_BATCHES_QUICK 20u
#define C2C_SWEEPS	  5u

#define LK_BATCHES_FULL	 31u
#define LK_BATCHES_QUICK 11u
#define LK_PER_FULL	 20000u
#define LK_PER_QUICK	 4000u

#define PAUSE_BATCHES_FULL  31u
#define PAUSE_BATCHES_QUICK 11u
#define PAUSE_PER_FULL	    20000u
#define PAUSE_PER_QUICK	    5000u

#define FAA_BATCHES_FULL  31u
#define FAA_BATCHES_QUICK 11u
#define FAA_PER_FULL	  100000u
#define FAA_PER_QUICK	  20000u

#define BW_BYTES	     (256u << 20)
#define BW_PASSES_FULL	     9u
#define BW_PASSES_QUICK	     3u
#define LIKWID_RUNS	     3u
#define LIKWID_SECONDS_FULL  0.5
#define LIKWID_SECONDS_QUICK 0.2
#define LIKWID_TIMEOUT_MS    60000

/* ---- statistics ----------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct stats {
	double med, p10, p90, min, max;
};

/* Percentile q of sorted v (linear interpolation between ranks). */
static double pct(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double f = pos - (double)i;
	return i + 1 < n ? v[i] * (1.0 - f) + v[i + 1] * f : v[i];
}

/* Sorts v. */
static struct stats summarise(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return (struct stats){pct(v, n, 0.5), pct(v, n, 0.1), pct(v, n, 0.9), v[0], v[n - 1]};
}

/* ---- rows of probe.csv ---------------------------------------------------- */

struct row {
	char kind[32];
	int cpu_a, cpu_b, node_a, node_b; /* -1: empty */
	double value;			  /* NAN: empty */
	char vstr[32];			  /* when set, printed instead of value */
	double spread;			  /* NAN: empty */
	char unit[8];
	char method[64];
};

struct probe {
	const struct numaring_topology *t;
	int quick;
	FILE *progress;
	char *err;
	size_t errlen;
	unsigned ncpus;
	int *cpu;		  /* the topology's CPUs, increasing */
	int *cpu_node;		  /* queue node of cpu[i] */
	int node_of[NUMARING_MAX_CPUS]; /* CPU -> queue node, -1 */
	struct row *rows;
	size_t nrows, caprows;
	char likwid[4096]; /* likwid-bench to run; "": none */
};

static void progress(struct probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct probe *p, const char *fmt, ...)
{
	if (!p->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("probe: ", p->progress);
	vfprintf(p->progress, fmt, ap);
	fputc('\n', p->progress);
	fflush(p->progress);
	va_end(ap);
}

static struct row *add_row(struct probe *p, const char *kind, const char *unit, const char *method)
{
	if (p->nrows == p->caprows) {
		size_t cap = p->caprows ? p->caprows * 2 : 64;
		struct row *r = realloc(p->rows, cap * sizeof *r);
		if (!r)
			return NULL;
		p->rows = r;
		p->caprows = cap;
	}
	struct row *r = &p->rows[p->nrows++];
	memset(r, 0, sizeof *r);
	snprintf(r->kind, sizeof r->kind, "%s", kind);
	snprintf(r->unit, sizeof r->unit, "%s", unit ? unit : "");
	snprintf(r->method, sizeof r->method, "%s", method ? method : "");
	r->cpu_a = r->cpu_b = r->node_a = r->node_b = -1;
	r->value = NAN;
	r->spread = NAN;
	return r;
}

#define ADD_ROW(r, p, kind, unit, method)                                                          \
	do {                                                                                       \
		(r) = add_row((p), (kind), (unit), (method));                                      \
		if (!(r)) {                                                                        \
			hb_err((p)->err, (p)->errlen, "probe: out of memory for the result rows"); \
			return -ENOMEM;                                                            \
		}                                                                                  \
	} while (0)

static void put_int(FILE *f, int v)
{
	if (v >= 0)
		fprintf(f, "%d", v);
	fputc(',', f);
}

static void put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.3f", v);
	fputc(',', f);
}

static void write_rows(FILE *f, const struct probe *p)
{
	fputs("kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method\n", f);
	for (size_t i = 0; i < p->nrows; i++) {
		const struct row *r = &p->rows[i];
		fprintf(f, "%s,", r->kind);
		put_int(f, r->cpu_a);
		put_int(f, r->cpu_b);
		put_int(f, r->node_a);
		put_int(f, r->node_b);
		if (r->vstr[0])
			fprintf(f, "%s,", r->vstr);
		else
			put_num(f, r->value);
		put_num(f, r->spread);
		fprintf(f, "%s,%s\n", r->unit, r->method);
	}
}

/* ---- pinned threads ----------------------------------------------------------- */

/* Pin the calling thread to cpu and check that it runs there. */
static int pin_self(int cpu, int *ran_on)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET((size_t)cpu, &s);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
	if (rc)
		return -rc;
	/* The kernel moves the thread before sched_setaffinity returns. */
	int got = sched_getcpu();
	*ran_on = got;
	if (got >= 0 && got != cpu)
		return -EIO;
	return 0;
}

struct gang;
struct gworker {
	pthread_t th;
	int cpu;
	int ran_on;
	unsigned idx;
	int rc;
	struct gang *g;
};

/* Threads, each pinned to its CPU, that start body together. */
struct gang {
	_Atomic unsigned ready;
	_Atomic int abort;
	unsigned n;
	void (*body)(void *arg, unsigned idx);
	void *arg;
	struct gworker *w; /* n of them */
};

static void *gang_main(void *arg)
{
	struct gworker *w = arg;
	struct gang *g = w->g;
	int rc = pin_self(w->cpu, &w->ran_on);
	if (rc) {
		w->rc = rc;
		atomic_store(&g->abort, 1);
		return NULL;
	}
	atomic_fetch_add(&g->ready, 1);
	while (atomic_load(&g->ready) < g->n) {
		if (atomic_load(&g->abort))
			return NULL;
		hb_cpu_relax();
	}
	g->body(g->arg, w->idx);
	return NULL;
}

/* Run body(arg, i) on n threads, thread i pinned to cpus[i]. A body that
 * waits for the others must also give up when gang_aborted() says so: a
 * thread that failed to start or to pin never arrives. */
static int gang_run(struct probe *p, const int *cpus, unsigned n,
		    void (*body)(void *arg, unsigned idx), void *arg, const char *what)
{
	struct gang g;
	memset(&g, 0, sizeof g);
	atomic_init(&g.ready, 0);
	atomic_init(&g.abort, 0);
	g.n = n;
	g.body = body;
	g.arg = arg;
	g.w = calloc(n ? n : 1, sizeof *g.w);
	if (!g.w) {
		hb_err(p->err, p->errlen, "probe: out of memory for the %s threads", what);
		return -ENOMEM;
	}
	unsigned started = 0;
	int rc = 0;
	for (unsigned i = 0; i < n; i++) {
		g.w[i].cpu = cpus[i];
		g.w[i].idx = i;
		g.w[i].g = &g;
		g.w[i].ran_on = -1;
		int e = pthread_create(&g.w[i].th, NULL, gang_main, &g.w[i]);
		if (e) {
			atomic_store(&g.abort, 1);
			hb_err(p->err, p->errlen, "probe: cannot create the %s thread: %s", what,
			       strerror(e));
			rc = -e;
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(g.w[i].th, NULL);
	for (unsigned i = 0; !rc && i < n; i++) {
		if (g.w[i].rc == -EIO) {
			hb_err(p->err, p->errlen,
			       "probe: the %s thread pinned to CPU %d runs on CPU %d", what,
			       g.w[i].cpu, g.w[i].ran_on);
			rc = -EIO;
		} else if (g.w[i].rc) {
			hb_err(p->err, p->errlen, "probe: cannot pin the %s thread to CPU %d: %s",
			       what, g.w[i].cpu, strerror(-g.w[i].rc));
			rc = g.w[i].rc;
		}
	}
	free(g.w);
	return rc;
}

/* A barrier for the n threads of one measurement (generation counting). */
struct hp_barrier {
	_Alignas(HP_LINE) _Atomic unsigned count;
	_Atomic unsigned gen;
	char pad[HP_LINE - 2 * sizeof(unsigned)];
};

static void barrier_wait(struct hp_barrier *b, unsigned n)
{
	unsigned gen = atomic_load(&b->gen);
	if (atomic_fetch_add(&b->count, 1) == n - 1) {
		atomic_store(&b->count, 0);
		atomic_store(&b->gen, gen + 1);
	} else {
		while (atomic_load(&b->gen) == gen)
			hb_cpu_relax();
	}
}

/* ---- 1. core-to-core cache-line round trips --------------------------------- */

struct pp_line {
	_Alignas(HP_LINE) _Atomic uint64_t v;
	char pad[HP_LINE - sizeof(uint64_t)];
};

struct pp_arg {
	struct pp_line *line;
	unsigned warm, nb, per;
	uint64_t *ticks; /* nb batch durations, written by the pinger */
};

/* idx 0 (on cpu a) writes odd numbers and waits for the even reply; idx 1
 * (on cpu b) answers each odd number with the next one. One exchange is a
 * round trip a->b->a of the line. */
static void pp_body(void *arg, unsigned idx)
{
	struct pp_arg *a = arg;
	_Atomic uint64_t *x = &a->line->v;
	uint64_t v = 0;
	if (idx == 0) {
		for (unsigned i = 0; i < a->warm; i++, v += 2) {
			atomic_store_explicit(x, v + 1, memory_order_release);
			while (atomic_load_explicit(x, memory_order_acquire) != v + 2)
				;
		}
		for (unsigned b = 0; b < a->nb; b++) {
			uint64_t t0 = hc_now();
			for (unsigned i = 0; i < a->per; i++, v += 2) {
				atomic_store_explicit(x, v + 1, memory_order_release);
				while (atomic_load_explicit(x, memory_order_acquire) != v + 2)
					;
			}
			a->ticks[b] = hc_now() - t0;
		}
	} else {
		uint64_t total = (uint64_t)a->warm + (uint64_t)a->nb * a->per;
		for (uint64_t i = 0; i < total; i++, v += 2) {
			while (atomic_load_explicit(x, memory_order_acquire) != v + 1)
				;
			atomic_store_explicit(x, v + 2, memory_order_release);
		}
	}
}

struct pair {
	int a, b;
};

/* The pairs to measure: all ordered pairs up to HP_ALL_PAIRS_MAX_CPUS CPUs
 * (HP_QUICK_ALL_PAIRS_MAX_CPUS in quick mode);
 * above, CPU 0 (the first of the topology) with every other CPU of its node
 * and the first CPU of every other node, the first CPUs of every two other
 * nodes, and the first two CPUs of every other node, each both ways. */
static struct pair *choose_pairs(struct probe *p, size_t *npairs, int *sampled)
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

struct c2c_result {
	int a, b;
	double med, spread;
};

static int probe_c2c(struct probe *p, unsigned rounds, struct c2c_result **out, size_t *nout)
{
	size_t np = 0;
	int sampled = 0;
	*out = NULL;
	*nout = 0;
	if (p->ncpus < 2) {
		progress(p, "c2c: one CPU only, no pair to measure");
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
	struct pp_line *line = aligned_alloc(HP_LINE, sizeof *line);
	uint64_t *ticks = calloc(np * nb, sizeof *ticks);
	double *ns = calloc(nb, sizeof *ns);
	struct c2c_result *res = calloc(np, sizeof *res);
	int rc = 0;
	if (!line || !ticks || !ns || !res) {
		hb_err(p->err, p->errlen, "probe: out of memory for the round-trip measurement");
		rc = -ENOMEM;
		goto out;
	}
	const char *method = sampled ? "pingpong-median-sampled" : "pingpong-median";
	for (unsigned sw = 0; sw < sweeps; sw++) {
		if (sweeps > 1)
			progress(p, "c2c sweep %u/%u: %zu pairs, %u x %u round trips each", sw + 1,
				 sweeps, np, nbs, per);
		for (size_t i = 0; i < np; i++) {
			atomic_init(&line->v, 0);
			struct pp_arg a = {line, warm, nbs, per, &ticks[i * nb + (size_t)sw * nbs]};
			int cpus[2] = {pairs[i].a, pairs[i].b};
			rc = gang_run(p, cpus, 2, pp_body, &a, "round-trip");
			if (rc)
				goto out;
		}
	}
	for (size_t i = 0; i < np; i++) {
		for (unsigned b = 0; b < nb; b++)
			ns[b] = hc_to_ns(ticks[i * nb + b]) / per;
		struct stats s = summarise(ns, nb);
		res[i] = (struct c2c_result){pairs[i].a, pairs[i].b, s.med, s.p90 - s.p10};
		progress(p, "c2c %zu/%zu (cpu %d -> %d) %.1f ns round trip", i + 1, np, pairs[i].a,
			 pairs[i].b, s.med);
		struct row *r = add_row(p, HP_KIND(c2c_rtt), "ns", method);
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
static int c2c_summaries(struct probe *p, const struct c2c_result *res, size_t n)
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
		struct stats s = summarise(v, k);
		char method[64];
		snprintf(method, sizeof method, "median-of-%zu-pairs", k);
		const char *rtt = other ? HP_KIND(c2c_other_node) : HP_KIND(c2c_same_node);
		const char *way = other ? HP_KIND(c2c_one_way_other_node)
					: HP_KIND(c2c_one_way_same_node);
		if (!add_row(p, rtt, "ns", method) || !add_row(p, way, "ns", "half-rtt-median")) {
			free(v);
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			return -ENOMEM;
		}
		struct row *r = &p->rows[p->nrows - 2], *h = &p->rows[p->nrows - 1];
		r->value = s.med;
		r->spread = s.max - s.min;
		h->value = s.med / 2;
		h->spread = (s.max - s.min) / 2;
		progress(p, "c2c %s node: %.1f ns round trip, %.1f ns one way (%zu pairs)",
			 other ? "other" : "same", s.med, s.med / 2, k);
	}
	free(v);
	return 0;
}

/* ---- 3. node look-up costs ------------------------------------------------ */

enum { LK_LIBNUMA, LK_SYSCALL, LK_TABLE, LK_RSEQ, LK_RDPID, LK_N };
/* The modes timed, and their names: the library's (numaring_lookup_name). */
static const enum numaring_lookup lk_mode[LK_N] = {
	[LK_LIBNUMA] = NUMARING_LOOKUP_LIBNUMA, [LK_SYSCALL] = NUMARING_LOOKUP_SYSCALL,
	[LK_TABLE] = NUMARING_LOOKUP_TABLE,     [LK_RSEQ] = NUMARING_LOOKUP_RSEQ,
	[LK_RDPID] = NUMARING_LOOKUP_RDPID,
};
#define lk_name(m) numaring_lookup_name(lk_mode[m])

struct lk_arg {
	const int *table; /* CPU -> queue node, NUMARING_MAX_CPUS entries */
	unsigned nb, per;
	int supported[LK_N];
	uint64_t *ticks; /* [LK_N][nb] */
	uint64_t sink;
};

/* One batch of n look-ups of `mode`, timed. The loop runs inside the library
 * (numaring_lab_lookup_run): one call per batch, the look-ups themselves
 * inlined there as in the queue's fast path. */
static uint64_t lk_batch(int mode, unsigned n, const int *table, uint64_t *sink)
{
	uint64_t t0 = hc_now();
	uint64_t s = numaring_lab_lookup_run(lk_mode[mode], n, table, NUMARING_MAX_CPUS);
	uint64_t t1 = hc_now();
	*sink += s;
	return t1 - t0;
}

static void lk_body(void *arg, unsigned idx)
{
	struct lk_arg *a = arg;
	(void)idx;
	a->supported[LK_LIBNUMA] = a->supported[LK_SYSCALL] = a->supported[LK_TABLE] = 1;
	a->supported[LK_RSEQ] = numaring_rseq_node_supported();
	a->supported[LK_RDPID] = numaring_rdpid_supported();
	/* warm-up: one batch of each, then the modes interleaved batch by batch so
	 * that the machine's drift falls on every mode alike */
	for (int m = 0; m < LK_N; m++)
		if (a->supported[m])
			(void)lk_batch(m, a->per, a->table, &a->sink);
	for (unsigned b = 0; b < a->nb; b++)
		for (int m = 0; m < LK_N; m++)
			if (a->supported[m])
				a->ticks[(size_t)m * a->nb + b] =
				    lk_batch(m, a->per, a->table, &a->sink);
}

static int probe_lookup(struct probe *p)
{
	struct lk_arg a;
	memset(&a, 0, sizeof a);
	a.nb = p->quick ? LK_BATCHES_QUICK : LK_BATCHES_FULL;
	a.per = p->quick ? LK_PER_QUICK : LK_PER_FULL;
	a.table = p->node_of;
	a.ticks = calloc((size_t)LK_N * a.nb, sizeof *a.ticks);
	double *ns = calloc(a.nb, sizeof *ns);
	int rc = 0;
	if (!a.ticks || !ns) {
		hb_err(p->err, p->errlen, "probe: out of memory for the look-up measurement");
		rc = -ENOMEM;
		goto out;
	}
	progress(p, "lookup: on cpu %d, %u batches of %u look-ups per mode", p->cpu[0], a.nb,
		 a.per);
	rc = gang_run(p, &p->cpu[0], 1, lk_body, &a, "look-up");
	if (rc)
		goto out;
	for (int m = 0; m < LK_N; m++) {
		char method[32];
		struct row *r;
		if (!a.supported[m]) {
			snprintf(method, sizeof method, "%s-unsupported", lk_name(m));
			r = add_row(p, HP_KIND(lookup_ns), "ns", method);
		} else {
			r = add_row(p, HP_KIND(lookup_ns), "ns", lk_name(m));
		}
		if (!r) {
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			rc = -ENOMEM;
			goto out;
		}
		if (!a.supported[m]) {
			progress(p, "lookup %s: unsupported here", lk_name(m));
			continue;
		}
		for (unsigned b = 0; b < a.nb; b++)
			ns[b] = hc_to_ns(a.ticks[(size_t)m * a.nb + b]) / a.per;
		struct stats s = summarise(ns, a.nb);
		r->value = s.med;
		r->spread = s.p90 - s.p10;
		progress(p, "lookup %s: %.2f ns", lk_name(m), s.med);
	}
out:
	free(ns);
	free(a.ticks);
	return rc;
}

/* ---- 3b. one PAUSE ------------------------------------------------------------ */

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
static int probe_pause(struct probe *p)
{
	struct row *r;
	if (!PAUSE_METHOD) {
		ADD_ROW(r, p, HP_KIND(pause_ns), "ns", "pause-unsupported");
		progress(p, "pause: no spin-wait hint on this architecture");
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
	int rc = gang_run(p, &p->cpu[0], 1, pause_body, &a, "pause");
	if (!rc) {
		struct stats s = summarise(a.ns, a.nb);
		r = add_row(p, HP_KIND(pause_ns), "ns", PAUSE_METHOD);
		if (!r) {
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			rc = -ENOMEM;
		} else {
			r->cpu_a = p->cpu[0];
			r->node_a = p->cpu_node[0];
			r->value = s.med;
			r->spread = s.p90 - s.p10;
			if (hc.tsc)
				progress(p,
					 "pause (cpu %d): %.2f ns per PAUSE (%.0f TSC ticks), "
					 "%u batches of %u",
					 p->cpu[0], s.med, s.med * hc.ticks_per_ns, a.nb, a.per);
			else
				progress(p, "pause (cpu %d): %.2f ns per PAUSE, %u batches of %u",
					 p->cpu[0], s.med, a.nb, a.per);
		}
	}
	free(a.ns);
	return rc;
}

/* ---- 4. atomic fetch-and-add on one line ---------------------------------- */

struct faa_shared {
	_Alignas(HP_LINE) _Atomic uint64_t ctr;
	char pad0[HP_LINE - sizeof(uint64_t)];
	_Alignas(HP_LINE) _Atomic unsigned count; /* batch barrier */
	_Atomic unsigned gen;
	char pad1[HP_LINE - 2 * sizeof(unsigned)];
};

struct faa_arg {
	struct faa_shared *s;
	unsigned n, nb, per;
	uint64_t *ticks; /* [n][nb] */
	uint64_t sink[2];
};

static void faa_barrier(struct faa_shared *s, unsigned n)
{
	unsigned gen = atomic_load(&s->gen);
	if (atomic_fetch_add(&s->count, 1) == n - 1) {
		atomic_store(&s->count, 0);
		atomic_store(&s->gen, gen + 1);
	} else {
		while (atomic_load(&s->gen) == gen)
			hb_cpu_relax();
	}
}

static void faa_body(void *arg, unsigned idx)
{
	struct faa_arg *a = arg;
	uint64_t sum = 0;
	for (unsigned b = 0; b <= a->nb; b++) { /* batch 0: warm-up */
		faa_barrier(a->s, a->n);
		uint64_t t0 = hc_now();
		for (unsigned i = 0; i < a->per; i++)
			sum += atomic_fetch_add(&a->s->ctr, 1);
		uint64_t t1 = hc_now();
		if (b)
			a->ticks[(size_t)idx * a->nb + b - 1] = t1 - t0;
	}
	a->sink[idx] = sum;
}

static int faa_measure(struct probe *p, const int *cpus, unsigned n, struct stats *out)
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
	atomic_init(&a.s->count, 0);
	atomic_init(&a.s->gen, 0);
	rc = gang_run(p, cpus, n, faa_body, &a, "fetch-and-add");
	if (rc)
		goto out;
	for (size_t i = 0; i < (size_t)n * a.nb; i++)
		ns[i] = hc_to_ns(a.ticks[i]) / a.per;
	*out = summarise(ns, (size_t)n * a.nb);
out:
	free(ns);
	free(a.ticks);
	free(a.s);
	return rc;
}

static int faa_row(struct probe *p, const char *kind, const int cpus[2], const struct stats *s)
{
	struct row *r;
	ADD_ROW(r, p, kind, "ns", "faa-2threads-median");
	r->cpu_a = cpus[0];
	r->cpu_b = cpus[1];
	r->node_a = p->node_of[cpus[0]];
	r->node_b = p->node_of[cpus[1]];
	r->value = s->med;
	r->spread = s->p90 - s->p10;
	progress(p, "%s (cpus %d, %d): %.2f ns per operation each", kind, cpus[0], cpus[1], s->med);
	return 0;
}

/* faa_uncontended_ns on the first CPU; faa_contended_ns on the pair with
 * the lowest round trip; faa_contended_other_node_ns on the pair across
 * nodes with the lowest round trip (where there is one): a line fought over
 * from two nodes, as a shared gate is. */
static int probe_faa(struct probe *p, const struct c2c_result *res, size_t nres)
{
	struct stats s;
	struct row *r;
	int rc = faa_measure(p, &p->cpu[0], 1, &s);
	if (rc)
		return rc;
	ADD_ROW(r, p, HP_KIND(faa_uncontended_ns), "ns", "faa-1thread-median");
	r->cpu_a = p->cpu[0];
	r->node_a = p->cpu_node[0];
	r->value = s.med;
	r->spread = s.p90 - s.p10;
	progress(p, "faa uncontended (cpu %d): %.2f ns", p->cpu[0], s.med);
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

/* ---- 5. memory read bandwidth ----------------------------------------------- */

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

static int bw_builtin(struct probe *p, int cpu, int mem_node, struct stats *out)
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
	int rc = gang_run(p, &cpu, 1, bw_body, &a, "bandwidth");
	if (!rc && a.rc) {
		rc = a.rc;
		hb_err(p->err, p->errlen,
		       "probe: cannot allocate %zu MiB for the bandwidth measurement%s",
		       a.bytes >> 20, mem_node >= 0 ? " on its node" : "");
	}
	if (!rc)
		*out = summarise(a.gbs, a.passes);
	free(a.gbs);
	return rc;
}

/* Run argv with stdout and stderr into buf (NUL-terminated, truncated at
 * cap-1), at most timeout_ms. Returns 0 with *status, or -errno. */
static int run_capture(const char *path, char *const argv[], char *buf, size_t cap, int timeout_ms,
		       int *status)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	pid_t pid;
	int e = strchr(path, '/') ? posix_spawn(&pid, path, &fa, NULL, argv, environ)
				  : posix_spawnp(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (e) {
		close(fds[0]);
		return -e;
	}
	size_t len = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int timed_out = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (el >= timeout_ms) {
			timed_out = 1;
			break;
		}
		struct pollfd pf = {fds[0], POLLIN, 0};
		int r = poll(&pf, 1, (int)(timeout_ms - el));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		char tmp[4096];
		ssize_t got = read(fds[0], tmp, sizeof tmp);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		size_t keep = (size_t)got < cap - 1 - len ? (size_t)got : cap - 1 - len;
		memcpy(buf + len, tmp, keep);
		len += keep;
	}
	buf[len] = '\0';
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return timed_out ? -ETIMEDOUT : 0;
}

int hp_likwid_load(const char *likwid_bench, unsigned cpu_dom, unsigned mem_dom, size_t bytes,
		   double seconds, double *gbs, int *hwthread, char *err, size_t errlen)
{
	char w[96], s[32];
	snprintf(w, sizeof w, "M%u:%zukB:1-0:M%u", cpu_dom, bytes >> 10, mem_dom);
	snprintf(s, sizeof s, "%g", seconds);
	char *argv[] = {(char *)likwid_bench, "-s", s, "-t", "load", "-w", w, NULL};
	size_t cap = 1 << 16;
	char *out = malloc(cap);
	if (!out) {
		hb_err(err, errlen, "probe: out of memory for likwid-bench's output");
		return -ENOMEM;
	}
	int status = 0;
	int rc = run_capture(likwid_bench, argv, out, cap, LIKWID_TIMEOUT_MS, &status);
	if (rc) {
		hb_err(err, errlen, "probe: likwid-bench -t load -w %s: %s", w,
		       rc == -ETIMEDOUT ? "ran over 60 s" : strerror(-rc));
		free(out);
		return rc;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		hb_err(err, errlen, "probe: likwid-bench -t load -w %s failed (status %d)", w,
		       status);
		free(out);
		return -EIO;
	}
	const char *m = strstr(out, "MByte/s:");
	const char *h = strstr(out, "Global Thread 0 running on hwthread ");
	double mbs = m ? strtod(m + strlen("MByte/s:"), NULL) : 0.0;
	if (!m || !h || !(mbs > 0.0) || !isfinite(mbs)) {
		hb_err(err, errlen, "probe: likwid-bench -t load -w %s printed no bandwidth", w);
		free(out);
		return -EIO;
	}
	*gbs = mbs / 1000.0;
	*hwthread = atoi(h + strlen("Global Thread 0 running on hwthread "));
	free(out);
	return 0;
}

int hp_likwid_domains(const char *text, cpu_set_t *dom, int maxdom)
{
	int n = 0;
	for (int k = 0; k < maxdom; k++)
		CPU_ZERO(&dom[k]);
	for (const char *l = text; l && *l;) {
		const char *eol = strchr(l, '\n');
		const char *tag = strstr(l, "Tag M");
		if (tag && (!eol || tag < eol)) {
			char *end;
			long k = strtol(tag + 5, &end, 10);
			if (end != tag + 5 && *end == ':' && k >= 0 && k < maxdom) {
				const char *c = end + 1;
				for (;;) {
					while (*c == ' ' || *c == '\t')
						c++;
					if (*c < '0' || *c > '9')
						break;
					long cpu = strtol(c, &end, 10);
					if (cpu >= 0 && cpu < NUMARING_MAX_CPUS)
						CPU_SET((size_t)cpu, &dom[k]);
					c = end;
				}
				if (k + 1 > n)
					n = (int)(k + 1);
			}
		}
		l = eol ? eol + 1 : NULL;
	}
	return n;
}

/* likwid-bench to use: o->likwid_bench ("" = none), else on PATH. */
static int find_likwid(const struct hp_opts *o, char *path, size_t len, char *err, size_t errlen)
{
	path[0] = '\0';
	if (o && o->likwid_bench) {
		if (!o->likwid_bench[0])
			return 0;
		if (access(o->likwid_bench, X_OK) < 0) {
			int e = errno;
			hb_err(err, errlen, "probe: likwid-bench %s is not executable: %s",
			       o->likwid_bench, strerror(e));
			return -e;
		}
		snprintf(path, len, "%s", o->likwid_bench);
		return 0;
	}
	const char *env = getenv("PATH");
	if (!env)
		return 0;
	while (*env) {
		const char *c = strchr(env, ':');
		size_t n = c ? (size_t)(c - env) : strlen(env);
		if (n && n + sizeof "/likwid-bench" < len) {
			snprintf(path, len, "%.*s/likwid-bench", (int)n, env);
			if (access(path, X_OK) == 0)
				return 0;
		}
		path[0] = '\0';
		env += n + (c ? 1 : 0);
	}
	return 0;
}

/* likwid's memory domain holding OS node os (by the node of its CPUs), -1. */
static int likwid_dom_of_os_node(const cpu_set_t *dom, int ndom, int os)
{
	for (int k = 0; k < ndom; k++)
		for (int c = 0; c < NUMARING_MAX_CPUS; c++)
			if (CPU_ISSET(c, &dom[k]) && numa_node_of_cpu(c) == os)
				return k;
	return -1;
}

static int bw_row(struct probe *p, const char *kind, int cpu, int node_a, int node_b,
		  const struct stats *s, const char *method)
{
	struct row *r;
	ADD_ROW(r, p, kind, "GB/s", method);
	r->cpu_a = cpu;
	r->node_a = node_a;
	r->node_b = node_b;
	r->value = s->med;
	r->spread = s->p90 - s->p10;
	if (node_b >= 0)
		progress(p, "%s: cpu %d (node %d) reading node %d's memory: %.2f GB/s (%s)", kind,
			 cpu, node_a, node_b, s->med, method);
	else
		progress(p, "%s: cpu %d (node %d) reading memory it touched first: %.2f GB/s (%s)",
			 kind, cpu, node_a, s->med, method);
	return 0;
}

/* A node whose own memory holds its ring (real topologies only). */
static int has_own_mem(const struct numaring_topology *t, unsigned k)
{
	return !t->emulated && t->numa_available && t->os_node[k] >= 0 &&
	       t->mem_node[k] == t->os_node[k];
}

static int first_cpu_of(const struct probe *p, unsigned k)
{
	for (unsigned i = 0; i < p->ncpus; i++)
		if (p->cpu_node[i] == (int)k)
			return p->cpu[i];
	return -1;
}

static int probe_bw(struct probe *p)
{
	const struct numaring_topology *t = p->t;
	struct stats s;
	int rc;
	if (t->emulated || t->nnodes < 2 || !t->numa_available) {
		/* one row, local; emulated nodes have no memory of their own */
		int cpu = p->cpu[0], k = p->cpu_node[0];
		int placed = has_own_mem(t, (unsigned)k);
		progress(p, "bw: %s topology, local read bandwidth only (built-in loop)",
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
		size_t cap = 1 << 16;
		char *out = malloc(cap);
		dom = calloc(NUMARING_MAX_NODES, sizeof *dom);
		char *argv[] = {(char *)lw, "-p", NULL};
		int status = 0;
		if (out && dom && run_capture(lw, argv, out, cap, 20000, &status) == 0 &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ndom = hp_likwid_domains(out, dom, NUMARING_MAX_NODES);
		free(out);
		progress(p, "bw: %s, %d memory domains", lw, ndom);
	} else {
		progress(p, "bw: %s, built-in read loop", lw[0] ? "quick mode" : "no likwid-bench");
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
				int cd = likwid_dom_of_os_node(dom, ndom, t->os_node[src]);
				int md = likwid_dom_of_os_node(dom, ndom, t->mem_node[dst]);
				double v[LIKWID_RUNS];
				unsigned got = 0;
				for (unsigned i = 0; cd >= 0 && md >= 0 && i < LIKWID_RUNS; i++) {
					char e2[256];
					int hw = -1;
					if (hp_likwid_load(lw, (unsigned)cd, (unsigned)md, BW_BYTES,
							   p->quick ? LIKWID_SECONDS_QUICK
								    : LIKWID_SECONDS_FULL,
							   &v[got], &hw, e2, sizeof e2) != 0) {
						progress(p, "bw: %s; built-in loop instead", e2);
						break;
					}
					/* likwid picks the domain's first hwthread: it must be
					 * one of this node's CPUs for the row to be true */
					if (hw < 0 || hw >= NUMARING_MAX_CPUS || p->node_of[hw] != src) {
						progress(p,
							 "bw: likwid-bench ran on cpu %d, not on "
							 "node %d; built-in loop instead",
							 hw, src);
						break;
					}
					ran = hw;
					got++;
				}
				if (got == LIKWID_RUNS) {
					s = summarise(v, got);
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
	barrier_wait(&a->bar, a->n);
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
		barrier_wait(&a->bar, a->n);
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
static int bw_mt_builtin(struct probe *p, const int *cpus, unsigned n, int mem_node,
			 struct stats *out)
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
	rc = gang_run(p, cpus, n, bwmt_body, a, "bandwidth");
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
	*out = summarise(gbs, a->passes);
out:
	free(gbs);
	free(a->start);
	free(a->end);
	free(a);
	return rc;
}

/* The CPUs of queue node k into out (at most NUMARING_MAX_CPUS); their count. */
static unsigned cpus_of(const struct probe *p, int k, int *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->ncpus; i++)
		if (k < 0 || p->cpu_node[i] == k)
			out[n++] = p->cpu[i];
	return n;
}

static int bwmt_row(struct probe *p, const char *kind, const int *cpus, unsigned n, int node_a,
		    int node_b, int mem_node)
{
	struct stats s;
	int rc = bw_mt_builtin(p, cpus, n, mem_node, &s);
	if (rc)
		return rc;
	char method[64];
	snprintf(method, sizeof method, "builtin-read-%uthreads-%s", n,
		 mem_node >= 0 ? "onnode" : "unplaced");
	struct row *r;
	ADD_ROW(r, p, kind, "GB/s", method);
	r->cpu_a = cpus[0];
	r->node_a = node_a;
	r->node_b = node_b;
	r->value = s.med;
	r->spread = s.p90 - s.p10;
	progress(p, "%s: %u threads of node %d reading %s at once: %.2f GB/s (%s)", kind, n, node_a,
		 node_b >= 0 ? "their node's memory" : "memory they touched first", s.med, method);
	return 0;
}

/* bw_local_mt_gbs: the CPUs of a node read their node's memory at once (on
 * one node or an emulated topology: every CPU of the topology, which share
 * one real memory); bw_remote_mt_gbs (>= 2 real nodes): the CPUs of the
 * first CPU's node read another node's memory at once. */
static int probe_bw_mt(struct probe *p)
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
		unsigned n = cpus_of(p, placed ? k : -1, cpus);
		rc = bwmt_row(p, HP_KIND(bw_local_mt_gbs), cpus, n, k, placed ? k : -1,
			      placed ? t->mem_node[k] : -1);
		free(cpus);
		return rc;
	}
	int a0 = p->cpu_node[0];
	for (unsigned k = 0; !rc && k < t->nnodes; k++) {
		unsigned n = cpus_of(p, (int)k, cpus);
		if (n && has_own_mem(t, k))
			rc = bwmt_row(p, HP_KIND(bw_local_mt_gbs), cpus, n, (int)k, (int)k,
				      t->mem_node[k]);
	}
	unsigned n0 = cpus_of(p, a0, cpus);
	for (unsigned k = 0; !rc && k < t->nnodes; k++) {
		if ((int)k == a0 || !has_own_mem(t, k) || t->mem_node[k] == t->mem_node[a0])
			continue;
		rc = bwmt_row(p, HP_KIND(bw_remote_mt_gbs), cpus, n0, a0, (int)k, t->mem_node[k]);
	}
	free(cpus);
	return rc;
}

/* ---- 5c. cache-to-cache streaming: lines one core just wrote, read by another --- */

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
static int cs_measure(struct probe *p, const int *w, const int *rd, unsigned npairs,
		      struct stats *out)
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
	rc = gang_run(p, cpus, 2 * npairs, cs_body, &a, "cache-to-cache");
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
		out[k] = summarise(gbs, a.rounds);
	}
out:
	free(gbs);
	free(cpus);
	free(a.ticks);
	free(a.pair);
	return rc;
}

static int cs_row(struct probe *p, const char *kind, const int *w, const int *rd, unsigned npairs)
{
	struct stats *s = calloc(npairs, sizeof *s);
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
	struct row *r;
	ADD_ROW(r, p, kind, "GB/s", method);
	r->cpu_a = w[0];
	r->cpu_b = rd[0];
	r->node_a = p->node_of[w[0]];
	r->node_b = p->node_of[rd[0]];
	r->value = med;
	r->spread = p90 - p10;
	progress(p, "%s: %u pair%s (cpu %d -> %d%s): %.2f GB/s", kind, npairs,
		 npairs > 1 ? "s" : "", w[0], rd[0], npairs > 1 ? ", ..." : "", med);
	return 0;
}

/* c2c_bw_same_node_gbs: one reader pulling lines one writer of its node has
 * just written (the first two CPUs of the first node that has two);
 * c2c_bw_mt_same_node_gbs: every CPU of that node in such pairs at once,
 * the sum (only with >= 4 CPUs there). c2c_bw_other_node_gbs and
 * c2c_bw_mt_other_node_gbs: the same with the writers on the first CPU's
 * node and the readers on the first other node with CPUs. */
static int probe_c2c_bw(struct probe *p)
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
		unsigned n = cpus_of(p, (int)k, a);
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
	unsigned na = cpus_of(p, a0, a);
	for (unsigned k = 0; k < t->nnodes; k++) {
		if ((int)k == a0)
			continue;
		unsigned nb = cpus_of(p, (int)k, b);
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

/* ---- 6. meta, and the whole run --------------------------------------------- */

static int meta_str(struct probe *p, const char *fact, const char *v)
{
	struct row *r;
	ADD_ROW(r, p, HP_KIND(meta), "", fact);
	snprintf(r->vstr, sizeof r->vstr, "%s", v);
	return 0;
}

static int meta_num(struct probe *p, const char *fact, double v, const char *unit)
{
	struct row *r;
	ADD_ROW(r, p, HP_KIND(meta), unit, fact);
	r->value = v;
	return 0;
}

static int meta_uint(struct probe *p, const char *fact, unsigned v)
{
	char b[16];
	snprintf(b, sizeof b, "%u", v);
	return meta_str(p, fact, b);
}

static int probe_all(struct probe *p, const struct hp_opts *o)
{
	unsigned rounds = o && o->rounds ? o->rounds
			  : p->quick	 ? C2C_ROUNDS_QUICK
					 : C2C_ROUNDS_FULL;
	int rc;
	if ((rc = meta_str(p, HP_FACT(topology), p->t->emulated ? "emulated" : "real")) ||
	    (rc = meta_str(p, HP_FACT(clock), hc.source)) ||
	    (rc = meta_num(p, HP_FACT(timer_overhead_ns), hc.overhead_ns, "ns")) ||
	    (rc = meta_uint(p, HP_FACT(nodes), p->t->nnodes)) ||
	    (rc = meta_uint(p, HP_FACT(cpus), p->ncpus)) ||
	    (rc = meta_uint(p, HP_FACT(rounds), rounds)) ||
	    (rc = meta_str(p, HP_FACT(mode), p->quick ? "quick" : "full")))
		return rc;
	progress(p, "%s topology, %u nodes, %u CPUs; clock %s (%.1f ns per read)",
		 p->t->emulated ? "emulated" : "real", p->t->nnodes, p->ncpus, hc.source,
		 hc.overhead_ns);

	struct c2c_result *res = NULL;
	size_t nres = 0;
	rc = probe_c2c(p, rounds, &res, &nres);
	if (!rc)
		rc = c2c_summaries(p, res, nres);
	if (!rc)
		rc = probe_lookup(p);
	if (!rc)
		rc = probe_pause(p);
	if (!rc)
		rc = probe_faa(p, res, nres);
	free(res);
	if (!rc)
		rc = probe_c2c_bw(p);
	if (!rc)
		rc = probe_bw(p);
	if (!rc)
		rc = probe_bw_mt(p);
	return rc;
}

int hp_probe_run(const struct numaring_topology *t, const char *outdir, const struct hp_opts *o,
		 char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!t || !outdir || !*outdir) {
		hb_err(err, errlen, "probe: no topology or no output directory");
		return -EINVAL;
	}
	struct probe p;
	memset(&p, 0, sizeof p);
	p.t = t;
	p.quick = o && o->quick;
	p.progress = o ? o->progress : NULL;
	p.err = err;
	p.errlen = errlen;
	for (int c = 0; c < NUMARING_MAX_CPUS; c++)
		p.node_of[c] = -1;
	for (unsigned k = 0; k < t->nnodes && k < NUMARING_MAX_NODES; k++)
		for (int c = 0; c < NUMARING_MAX_CPUS; c++)
			if (CPU_ISSET(c, &t->cpus[k]) && p.node_of[c] < 0) {
				p.node_of[c] = (int)k;
				p.ncpus++;
			}
	if (!p.ncpus) {
		hb_err(err, errlen, "probe: the topology has no CPU");
		return -EINVAL;
	}
	int rc = find_likwid(o, p.likwid, sizeof p.likwid, err, errlen);
	if (rc)
		return rc;
	if (hc.overhead_ns <= 0.0 && hc_init() != 0) {
		hb_err(err, errlen, "probe: NUMARING_CLOCK must be \"tsc\" or \"gettime\"");
		return -EINVAL;
	}
	p.cpu = calloc(p.ncpus, sizeof *p.cpu);
	p.cpu_node = calloc(p.ncpus, sizeof *p.cpu_node);
	size_t plen = strlen(outdir) + sizeof "/.probe.csv.XXXXXX";
	char *tmp = malloc(plen), *final = malloc(plen);
	int fd = -1;
	if (!p.cpu || !p.cpu_node || !tmp || !final) {
		hb_err(err, errlen, "probe: out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (int c = 0, i = 0; c < NUMARING_MAX_CPUS; c++)
		if (p.node_of[c] >= 0) {
			p.cpu[i] = c;
			p.cpu_node[i++] = p.node_of[c];
		}

	/* the file first: an output directory we cannot write fails at once */
	snprintf(tmp, plen, "%s/.probe.csv.XXXXXX", outdir);
	snprintf(final, plen, "%s/probe.csv", outdir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot create a file in %s: %s", outdir, strerror(-rc));
		goto out;
	}
	if (fchmod(fd, 0644) < 0) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot set the mode of %s: %s", tmp, strerror(-rc));
		goto fail;
	}

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = probe_all(&p, o);
	if (rc)
		goto fail;

	FILE *f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot write %s: %s", tmp, strerror(-rc));
		goto fail;
	}
	fd = -1;
	write_rows(f, &p);
	int werr = ferror(f) ? (errno ? errno : EIO) : 0;
	if (!werr && fflush(f) != 0)
		werr = errno;
	if (!werr && fsync(fileno(f)) != 0)
		werr = errno;
	if (fclose(f) != 0 && !werr)
		werr = errno;
	if (werr) {
		rc = -werr;
		hb_err(err, errlen, "probe: cannot write %s: %s", tmp, strerror(werr));
		goto fail;
	}
	if (rename(tmp, final) < 0) {
		rc = -errno;
		hb_err(err, errlen, "probe: cannot rename %s to %s: %s", tmp, final, strerror(-rc));
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	progress(&p, "wrote %s (%zu rows, %.1f s)", final, p.nrows,
		 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	fd = -1;
	unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(final);
	free(p.cpu);
	free(p.cpu_node);
	free(p.rows);
	return rc;
}
