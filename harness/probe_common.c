/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_common.c - what every measurement of the probe uses (probe_pvt.h):
 * statistics over batches, the rows of probe.csv and the progress lines,
 * and the gang of pinned threads a measurement runs on.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"

/* ---- statistics ----------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Percentile q of sorted v (linear interpolation between ranks). */
static double pct(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double f = pos - (double)i;
	return i + 1 < n ? v[i] * (1.0 - f) + v[i + 1] * f : v[i];
}

struct hp_stats hp_summarise(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return (struct hp_stats){pct(v, n, 0.5), pct(v, n, 0.1), pct(v, n, 0.9), v[0], v[n - 1]};
}

/* ---- rows of probe.csv ---------------------------------------------------- */

void hp_progress(struct hp_probe *p, const char *fmt, ...)
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

struct hp_row *hp_add_row(struct hp_probe *p, const char *kind, const char *unit,
			  const char *method)
{
	if (p->nrows == p->caprows) {
		size_t cap = p->caprows ? p->caprows * 2 : 64;
		struct hp_row *r = realloc(p->rows, cap * sizeof *r);
		if (!r)
			return NULL;
		p->rows = r;
		p->caprows = cap;
	}
	struct hp_row *r = &p->rows[p->nrows++];
	memset(r, 0, sizeof *r);
	snprintf(r->kind, sizeof r->kind, "%s", kind);
	snprintf(r->unit, sizeof r->unit, "%s", unit ? unit : "");
	snprintf(r->method, sizeof r->method, "%s", method ? method : "");
	r->cpu_a = r->cpu_b = r->node_a = r->node_b = -1;
	r->value = NAN;
	r->spread = NAN;
	return r;
}

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

void hp_write_rows(FILE *f, const struct hp_probe *p)
{
	fputs("kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method\n", f);
	for (size_t i = 0; i < p->nrows; i++) {
		const struct hp_row *r = &p->rows[i];
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

/* The CPUs of queue node k into out (at most NUMARING_MAX_CPUS); their count. */
unsigned hp_cpus_of(const struct hp_probe *p, int k, int *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->ncpus; i++)
		if (k < 0 || p->cpu_node[i] == k)
			out[n++] = p->cpu[i];
	return n;
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

int hp_gang_run(struct hp_probe *p, const int *cpus, unsigned n,
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
