/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_oversub.c - more threads than CPUs, as a user would run it (make
 * bench-oversub).
 *
 * 3 producers + 3 consumers on two emulated nodes made of the first two
 * allowed CPUs ("a;b"), capacity 8, batch 4, single and burst operations
 * mixed, and every thread moving itself between the two CPUs now and then.
 * Each producer sends --items items; each item must arrive exactly once. For
 * every lookup x gate x backoff it prints the items per second delivered
 * (a combination that has not finished after --seconds is stopped there and
 * counted by what it delivered), and the ratio against the per-worker gate
 * with the same lookup and backoff.
 *
 * Target (issue "ring v2"): no combination below 1/10 of the per-worker
 * gate with the same lookup and backoff: the shared gate is the study's bug
 * and may be slow, but a preempted ticket holder must not stall everyone
 * (waits spin for a time budget and then yield: nr_backoff.h). It is
 * reported, not enforced: this is a measurement, not a test.
 *
 * Usage: bench_oversub [--quick] [--items N] [--seconds S] [--csv FILE]
 *                      [--lookup MODE] [--backoff MODE]
 * Exit status: 0 (targets are reported), 1 an item was lost or duplicated
 * or a thread failed, 2 bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "numaring.h"
#include "numaring_lab.h"
#include "relax.h" /* harness/relax.h: the one spin-wait hint of the programs */

#define PRODUCERS 3
#define CONSUMERS 3
#define CAPACITY 8
#define BATCH 4
#define MOVE_EVERY 2048 /* operations between a thread's moves */

struct run {
	struct numaring *q;
	uint64_t per_producer, total;
	_Atomic uint8_t *seen;
	_Atomic uint64_t consumed, bad;
	_Atomic int stop, failed;
	uint64_t sent_to[PRODUCERS]; /* producer p sent items p*per_producer+1 .. sent_to[p]-1 */
	int cpu[2];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Move the calling thread: CPU a, CPU b, or both, in turn. */
static void move(struct run *r, unsigned *turn)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	switch ((*turn)++ % 3) {
	case 0:
		CPU_SET(r->cpu[0], &s);
		break;
	case 1:
		CPU_SET(r->cpu[1], &s);
		break;
	default:
		CPU_SET(r->cpu[0], &s);
		CPU_SET(r->cpu[1], &s);
	}
	sched_setaffinity(0, sizeof s, &s);
}

/* What a user does when the queue is full or empty: retry, and now and
 * then let another thread run. */
static void retry_later(unsigned *fails)
{
	if (++*fails % 16 == 0)
		sched_yield();
	else
		hb_cpu_relax();
}

struct worker_arg {
	struct run *r;
	unsigned index;
};

static void *producer(void *arg)
{
	struct worker_arg *a = arg;
	struct run *r = a->r;
	struct numaring_worker *w = numaring_worker_attach(r->q);
	uint64_t next = a->index * r->per_producer + 1, end = next + r->per_producer;
	unsigned ops = 0, turn = a->index, fails = 0;
	if (!w) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	while (next < end && !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		if (++ops % MOVE_EVERY == 0)
			move(r, &turn);
		if (ops % 3 == 0) { /* a burst of up to BATCH */
			void *b[BATCH];
			unsigned n = end - next < BATCH ? (unsigned)(end - next) : BATCH;
			for (unsigned i = 0; i < n; i++)
				b[i] = (void *)(uintptr_t)(next + i);
			unsigned k = numaring_enqueue_burst(w, b, n);
			next += k;
			if (k == 0)
				retry_later(&fails);
		} else if (numaring_enqueue(w, (void *)(uintptr_t)next) == 0) {
			next++;
		} else {
			retry_later(&fails);
		}
	}
	r->sent_to[a->index] = next; /* read after pthread_join */
	numaring_worker_detach(w);
	return NULL;
}

static void got(struct run *r, void *item)
{
	uint64_t v = (uintptr_t)item;
	if (v == 0 || v > r->total ||
	    atomic_fetch_add_explicit(&r->seen[v - 1], 1, memory_order_relaxed) != 0)
		atomic_fetch_add(&r->bad, 1);
	atomic_fetch_add_explicit(&r->consumed, 1, memory_order_relaxed);
}

static void *consumer(void *arg)
{
	struct worker_arg *a = arg;
	struct run *r = a->r;
	struct numaring_worker *w = numaring_worker_attach(r->q);
	unsigned ops = 0, turn = a->index + 1, fails = 0;
	if (!w) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	while (atomic_load_explicit(&r->consumed, memory_order_relaxed) < r->total &&
	       !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		void *b[BATCH];
		if (++ops % MOVE_EVERY == 0)
			move(r, &turn);
		unsigned k;
		if (ops % 3 == 0)
			k = numaring_dequeue_burst(w, b, BATCH);
		else
			k = numaring_dequeue(w, &b[0]) == 0;
		for (unsigned i = 0; i < k; i++)
			got(r, b[i]);
		if (k == 0)
			retry_later(&fails);
	}
	numaring_worker_detach(w);
	return NULL;
}

/* --csv FILE is written to FILE.tmp.<pid> and renamed over FILE at the end:
 * never half a file. An exit before that removes the temporary. */
static char csv_tmp[4096];

static void remove_csv_tmp(void)
{
	if (csv_tmp[0])
		unlink(csv_tmp);
}

/* One combination. Returns items per second, or -1 after a message. */
static double run_one(struct run *r, const char *topo, enum numaring_lookup lk,
		      enum numaring_gate g, enum numaring_backoff bo, double limit_s,
		      int *finished)
{
	struct numaring_config cfg;
	struct numaring_lab lab;
	pthread_t th[PRODUCERS + CONSUMERS];
	struct worker_arg args[PRODUCERS + CONSUMERS];
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.capacity = CAPACITY;
	cfg.batch = BATCH;
	lab.lookup = lk;
	lab.gate = g;
	cfg.backoff = bo;
	cfg.topology = topo;
	if (!(r->q = numaring_lab_create(&cfg, &lab))) {
		fprintf(stderr, "bench-oversub: numaring_create: %s\n", numaring_last_error());
		return -1;
	}
	memset(r->seen, 0, r->total);
	atomic_store(&r->consumed, 0);
	atomic_store(&r->stop, 0);
	double t0 = now_s();
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++) {
		args[i].r = r;
		args[i].index = i < PRODUCERS ? (unsigned)i : (unsigned)(i - PRODUCERS);
		if (pthread_create(&th[i], NULL, i < PRODUCERS ? producer : consumer, &args[i])) {
			fprintf(stderr, "bench-oversub: cannot start a thread\n");
			exit(1);
		}
	}
	struct timespec tick = {0, 2000000};
	while (atomic_load(&r->consumed) < r->total && now_s() - t0 < limit_s)
		nanosleep(&tick, NULL);
	double t1 = now_s();
	uint64_t delivered = atomic_load(&r->consumed);
	*finished = delivered >= r->total;
	atomic_store(&r->stop, 1);
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
		pthread_join(th[i], NULL);
	/* what is left inside is not lost: it must come out exactly once */
	struct numaring_worker *w = numaring_worker_attach(r->q);
	void *item;
	while (w && numaring_dequeue(w, &item) == 0)
		got(r, item);
	numaring_worker_detach(w);
	numaring_destroy(r->q);
	return (double)delivered / (t1 - t0);
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: bench_oversub [--quick] [--items N] [--seconds S] [--csv FILE]\n"
		   "                     [--lookup MODE] [--backoff MODE]\n"
		   "  --items N    items per producer (default 200000; --quick 50000)\n"
		   "  --seconds S  stop a combination after S seconds (default 5; --quick 2)\n"
		   "  --csv FILE   also write lookup,gate,backoff,items_per_s,finished,\n"
		   "               ratio_to_perworker (whole: a temporary renamed at the end)\n"
		   "  --lookup MODE, --backoff MODE   only these (default: every one)\n");
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"quick", no_argument, NULL, 'q'},
					     {"items", required_argument, NULL, 'i'},
					     {"seconds", required_argument, NULL, 's'},
					     {"csv", required_argument, NULL, 'c'},
					     {"lookup", required_argument, NULL, 'l'},
					     {"backoff", required_argument, NULL, 'b'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct run r;
	uint64_t items = 0;
	double seconds = 0;
	const char *csv = NULL;
	int quick = 0, c, lookup_given = 0, backoff_given = 0;
	enum numaring_lookup only_lookup = NUMARING_LOOKUP_CACHED;
	enum numaring_backoff only_backoff = NUMARING_BACKOFF_NONE;
	char *end;
	memset(&r, 0, sizeof r);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quick = 1;
			break;
		case 'i':
			items = strtoull(optarg, &end, 10);
			if (*end || items < 1 || items > 100000000 || optarg[0] == '-') {
				fprintf(stderr, "bench-oversub: --items needs 1..100000000, not \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0 && seconds <= 3600)) {
				fprintf(stderr, "bench-oversub: --seconds needs a number in (0, 3600], not \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			csv = optarg;
			break;
		case 'l':
			if (numaring_lookup_parse(optarg, &only_lookup) < 0) {
				fprintf(stderr, "bench-oversub: unknown --lookup \"%s\"\n", optarg);
				return 2;
			}
			lookup_given = 1;
			break;
		case 'b':
			if (numaring_backoff_parse(optarg, &only_backoff) < 0) {
				fprintf(stderr, "bench-oversub: unknown --backoff \"%s\"\n", optarg);
				return 2;
			}
			backoff_given = 1;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			fprintf(stderr, "bench-oversub: unknown option or missing value: %s\n",
				argv[optind - 1]);
			return usage(stderr, 2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench-oversub: unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	r.per_producer = items ? items : quick ? 50000 : 200000;
	if (!seconds)
		seconds = quick ? 2 : 5;
	r.total = r.per_producer * PRODUCERS;
	if (!(r.seen = calloc(r.total, 1))) {
		fprintf(stderr, "bench-oversub: out of memory\n");
		return 1;
	}
	cpu_set_t s;
	sched_getaffinity(0, sizeof s, &s);
	int n = 0;
	for (int k = 0; k < CPU_SETSIZE && n < 2; k++)
		if (CPU_ISSET(k, &s))
			r.cpu[n++] = k;
	if (n < 2) {
		fprintf(stderr, "bench-oversub: needs two allowed CPUs (two emulated nodes)\n");
		return 2;
	}
	/* the emulated nodes must cover every allowed CPU: the rest join b */
	char topo[4096];
	int len = snprintf(topo, sizeof topo, "%d;%d", r.cpu[0], r.cpu[1]);
	for (int k = r.cpu[1] + 1; k < CPU_SETSIZE && len < (int)sizeof topo - 8; k++)
		if (CPU_ISSET(k, &s))
			len += snprintf(topo + len, sizeof topo - (size_t)len, ",%d", k);
	FILE *out = NULL;
	if (csv) {
		struct stat st;
		int isdir = stat(csv, &st) == 0 && S_ISDIR(st.st_mode);
		int fits = snprintf(csv_tmp, sizeof csv_tmp, "%s.tmp.%ld", csv, (long)getpid()) <
			   (int)sizeof csv_tmp;
		if (isdir || !fits || !(out = fopen(csv_tmp, "w"))) {
			fprintf(stderr, "bench-oversub: cannot write %s: %s\n", csv,
				isdir ? "it is a folder" : !fits ? "path too long" : strerror(errno));
			csv_tmp[0] = 0;
			return 2;
		}
		atexit(remove_csv_tmp);
	}
	if (out)
		fprintf(out, "lookup,gate,backoff,items_per_s,finished,ratio_to_perworker\n");
	printf("%d producers + %d consumers on 2 CPUs, emulated nodes \"%s\", capacity %d, batch %d,\n"
	       "single and burst operations, threads moving between CPUs; %llu items per producer,\n"
	       "at most %g s per combination. Items/s delivered; ratio to the per-worker gate\n"
	       "with the same lookup and backoff (target >= 0.10).\n\n",
	       PRODUCERS, CONSUMERS, topo, CAPACITY, BATCH, (unsigned long long)r.per_producer,
	       seconds);
	printf("%-8s %-8s %12s %12s %12s   ratios (shared, pernode)\n", "lookup", "backoff",
	       "shared", "pernode", "perworker");
	int misses = 0, combos = 0;
	double worst = 1e9;
	for (int lk = 0; lk < NUMARING_LOOKUP_COUNT_; lk++)
		for (int bo = 0; bo < NUMARING_BACKOFF_COUNT_; bo++) {
			if ((lookup_given && lk != (int)only_lookup) ||
			    (backoff_given && bo != (int)only_backoff))
				continue;
			double rate[NUMARING_GATE_COUNT_];
			int fin[NUMARING_GATE_COUNT_];
			for (int g = 0; g < NUMARING_GATE_COUNT_; g++) {
				rate[g] = run_one(&r, topo, (enum numaring_lookup)lk,
						  (enum numaring_gate)g, (enum numaring_backoff)bo,
						  seconds, &fin[g]);
				if (rate[g] < 0)
					return 1;
				if (atomic_load(&r.bad) || atomic_load(&r.failed)) {
					fprintf(stderr, "bench-oversub: %s/%s/%s: %llu items lost or duplicated%s\n",
						numaring_lookup_name(lk), numaring_gate_name(g),
						numaring_backoff_name(bo),
						(unsigned long long)atomic_load(&r.bad),
						atomic_load(&r.failed) ? ", a worker could not attach" : "");
					return 1;
				}
				for (uint64_t k = 0; k < r.total; k++) {
					/* sent (below its producer's sent_to): once; else never */
					unsigned want = k + 1 < r.sent_to[k / r.per_producer];
					if (atomic_load_explicit(&r.seen[k], memory_order_relaxed) != want) {
						fprintf(stderr, "bench-oversub: %s/%s/%s: item %llu seen %u times\n",
							numaring_lookup_name(lk), numaring_gate_name(g),
							numaring_backoff_name(bo), (unsigned long long)k + 1,
							atomic_load(&r.seen[k]));
						return 1;
					}
				}
			}
			double pw = rate[NUMARING_GATE_PERWORKER];
			printf("%-8s %-8s", numaring_lookup_name(lk), numaring_backoff_name(bo));
			for (int g = 0; g < NUMARING_GATE_COUNT_; g++)
				printf(" %11.0f%s", rate[g], fin[g] ? " " : "*");
			printf("  ");
			for (int g = 0; g < NUMARING_GATE_COUNT_; g++) {
				double ratio = pw > 0 ? rate[g] / pw : 0;
				if (g != NUMARING_GATE_PERWORKER) {
					printf(" %5.2f%s", ratio, ratio < 0.1 ? " MISSED" : "");
					misses += ratio < 0.1;
					combos++;
					if (ratio < worst)
						worst = ratio;
				}
				if (out)
					fprintf(out, "%s,%s,%s,%.0f,%d,%.4f\n", numaring_lookup_name(lk),
						numaring_gate_name(g), numaring_backoff_name(bo), rate[g],
						fin[g], ratio);
			}
			printf("\n");
			fflush(stdout);
		}
	printf("\n* stopped at the time limit before every item arrived (counted by what did)\n"
	       "worst ratio to the per-worker gate: %.2f (target >= 0.10): %d of %d combinations "
	       "%s\n",
	       worst, misses, combos, misses ? "MISSED" : "missed: target met");
	if (out && (ferror(out) | fclose(out) || rename(csv_tmp, csv) != 0)) {
		fprintf(stderr, "bench-oversub: cannot write %s: %s\n", csv, strerror(errno));
		return 1;
	}
	csv_tmp[0] = 0;
	free(r.seen);
	return 0;
}
