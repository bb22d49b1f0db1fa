/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_pvt.h - what the measurements of numaring-bench --probe share,
 * private to harness/probe*.c: include probe.h, not this, anywhere else.
 *
 * The probe, one file per part:
 *
 *   probe.c         hp_probe_run: the order of the measurements, the meta
 *                   rows, probe.csv written whole
 *   probe_common.c  statistics over batches, the rows of probe.csv,
 *                   progress lines, the gang of pinned threads
 *   probe_c2c.c     1-2. cache-line round trips and their summaries (c2c_*)
 *   probe_lookup.c  3. node look-up costs (lookup_ns)
 *   probe_pause.c   3b. one spin-wait hint (pause_ns)
 *   probe_handover.c 3c. one hand-over timed as the harness times items
 *                   (handover_stamped_ns)
 *   probe_faa.c     4. fetch-and-add on one line (faa_*)
 *   probe_bw.c      5, 5b. memory read bandwidth of one thread, and of a
 *                   node's threads at once (bw_*)
 *   probe_stream.c  5c. cache-to-cache streaming (c2c_bw_*)
 *   probe_likwid.c  likwid-bench: finding, running and reading it
 *
 * Each measurement (hp_probe_*) runs on the gang's pinned threads, adds its
 * rows to the probe's table (kinds from probe_rows.h only) and returns 0,
 * or -errno with the probe's err set. One probe runs at a time, on the
 * caller's thread; the gang's threads write only what their body is given.
 */
#ifndef HP_PROBE_PVT_H
#define HP_PROBE_PVT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "probe.h"
#include "relax.h"

#define HP_LINE 128 /* two cache lines: keeps the adjacent-line prefetcher off shared data */

/* ---- statistics (probe_common.c) ------------------------------------------ */

struct hp_stats {
	double med, p10, p90, min, max;
};

/* The median, p10, p90, min and max of v[0..n), n >= 1. Sorts v. */
struct hp_stats hp_summarise(double *v, size_t n);

/* ---- the probe and its rows (probe_common.c) ------------------------------ */

/* One row of probe.csv (probe.h says what each field holds). */
struct hp_row {
	char kind[32];
	int cpu_a, cpu_b, node_a, node_b; /* -1: empty */
	double value;			  /* NAN: empty */
	char vstr[32];			  /* when set, printed instead of value */
	double spread;			  /* NAN: empty */
	char unit[8];
	char method[64];
};

/* One run of the probe: the host as the measurements see it, their rows. */
struct hp_probe {
	const struct numaring_topology *t;
	int quick;
	FILE *progress;
	char *err;
	size_t errlen;
	unsigned ncpus;
	int *cpu;			/* the topology's CPUs, increasing */
	int *cpu_node;			/* queue node of cpu[i] */
	int node_of[NUMARING_MAX_CPUS]; /* CPU -> queue node, -1 */
	struct hp_row *rows;
	size_t nrows, caprows;
	char likwid[4096]; /* likwid-bench to run; "": none */
};

/* A progress line "probe: ...\n" on p->progress, if any. */
__attribute__((format(printf, 2, 3))) void hp_progress(struct hp_probe *p, const char *fmt, ...);

/* A new row at the end of p's table: kind (HP_KIND), unit and method, every
 * other field empty. NULL when out of memory (p->err is not set). */
struct hp_row *hp_add_row(struct hp_probe *p, const char *kind, const char *unit,
			  const char *method);

/* hp_add_row into r, or return -ENOMEM from the calling function with
 * p->err set. */
#define HP_ADD_ROW(r, p, kind, unit, method)                                                       \
	do {                                                                                       \
		(r) = hp_add_row((p), (kind), (unit), (method));                                   \
		if (!(r)) {                                                                        \
			hb_err((p)->err, (p)->errlen, "probe: out of memory for the result rows"); \
			return -ENOMEM;                                                            \
		}                                                                                  \
	} while (0)

/* The header line and every row of p, as probe.h describes them. */
void hp_write_rows(FILE *f, const struct hp_probe *p);

/* The CPUs of queue node k (every CPU when k < 0) into out (room for
 * p->ncpus), increasing; their count. */
unsigned hp_cpus_of(const struct hp_probe *p, int k, int *out);

/* ---- pinned threads (probe_common.c) -------------------------------------- */

/*
 * hp_gang_run - run body(arg, i) on n threads, thread i pinned to cpus[i];
 * returns when all have joined. body starts only once every thread is
 * pinned, so it may wait for the others; if one fails, no body runs.
 * `what` names the threads in err. Returns 0, or -errno with p->err set (a
 * thread not created or not pinned; -EIO when it ran on another CPU).
 */
int hp_gang_run(struct hp_probe *p, const int *cpus, unsigned n,
		void (*body)(void *arg, unsigned idx), void *arg, const char *what);

/* A barrier for the n threads of one measurement (generation counting). */
struct hp_barrier {
	_Alignas(HP_LINE) _Atomic unsigned count;
	_Atomic unsigned gen;
	char pad[HP_LINE - 2 * sizeof(unsigned)];
};

/* Wait until n threads have called it for this generation. Inline: it sits
 * right before timed batches. count and gen start at 0. */
static inline void hp_barrier_wait(struct hp_barrier *b, unsigned n)
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

/* ---- the measurements, in the order hp_probe_run calls them --------------- */

/* One pair's round trip (probe_c2c.c), for the fetch-and-add pairs. */
struct hp_c2c_result {
	int a, b;
	double med, spread;
};

/* c2c_rtt rows for the pairs, each `rounds` round trips; *out (free it):
 * the pairs' medians, *nout of them (none with one CPU). probe_c2c.c */
int hp_probe_c2c(struct hp_probe *p, unsigned rounds, struct hp_c2c_result **out, size_t *nout);
/* c2c_same_node, c2c_other_node and the one-way rows from res. probe_c2c.c */
int hp_c2c_summaries(struct hp_probe *p, const struct hp_c2c_result *res, size_t n);
/* lookup_ns rows, one per mode. probe_lookup.c */
int hp_probe_lookup(struct hp_probe *p);
/* The pause_ns row. probe_pause.c */
int hp_probe_pause(struct hp_probe *p);
/* handover_stamped_ns. probe_handover.c */
int hp_probe_handover(struct hp_probe *p);
/* faa_* rows, on the pairs of res with the lowest round trips. probe_faa.c */
int hp_probe_faa(struct hp_probe *p, const struct hp_c2c_result *res, size_t nres);
/* c2c_bw_* rows. probe_stream.c */
int hp_probe_c2c_bw(struct hp_probe *p);
/* bw_local_gbs and bw_remote_gbs rows. probe_bw.c */
int hp_probe_bw(struct hp_probe *p);
/* bw_local_mt_gbs and bw_remote_mt_gbs rows. probe_bw.c */
int hp_probe_bw_mt(struct hp_probe *p);

/* ---- likwid-bench (probe_likwid.c; hp_likwid_load in probe.h) ------------- */

/* The likwid-bench to use into path: o->likwid_bench ("" = none: path ""),
 * else the first on PATH, else "". Returns 0, or -errno with err set when
 * o->likwid_bench is not executable. */
int hp_find_likwid(const struct hp_opts *o, char *path, size_t len, char *err, size_t errlen);
/* `likwid-bench -p` parsed into dom (hp_likwid_domains); the number of
 * memory domains, 0 if it failed. */
int hp_likwid_memory_domains(const char *likwid_bench, cpu_set_t *dom, int maxdom);
/* likwid's memory domain holding OS node os (by the node of its CPUs), -1. */
int hp_likwid_dom_of_os_node(const cpu_set_t *dom, int ndom, int os);

#endif /* HP_PROBE_PVT_H */
