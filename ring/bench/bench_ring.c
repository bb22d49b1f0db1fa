/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_ring.c - micro-benchmark of the ring on one thread (make bench-ring).
 *
 * Prints, for each lookup mode, nanoseconds per enqueue+dequeue pair on the
 * local ring, and the cost of the node look-up alone, each the median of
 * REPS repetitions with its min..max. The data movement of one operation is
 * taken as half a pair with lookup NONE (no look-up at all).
 *
 * Targets (issue "ring library", study F1): LIBNUMA's look-up >= 10x the data
 * movement (the study's own ratio is in its F1 results, not here); CACHED
 * and RSEQ pairs within 10% of NONE. They are reported, not enforced: this
 * is a measurement, not a test.
 *
 * It times the lab's variants, so it links the lab's archive
 * (build/libnumaring_lab.a): every variant is reached through the same
 * jump of the lab's numaring_enqueue, production's own entry points
 * (libnumaring, ring/src/ops.c) have none. What that jump costs is the
 * last line: the production look-up's pairs through the lab's entry
 * points against the same core inlined into the loop (nr_fastpath.h), in
 * interleaved rounds.
 *
 * Usage: bench_ring [--quick] [--csv FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "numaring.h"
#include "numaring_lab.h"
#include "nr_fastpath.h" /* the cores, for the jump's cost (built with -DNR_LAB) */
#include "nr_lookup.h"

#define REPS 7

static volatile uint64_t sink;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct result {
	double med, min, max;
};

static struct result summarise(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return (struct result){v[n / 2], v[0], v[n - 1]};
}

/* One queue per lookup mode, measured in interleaved rounds so that the
 * machine's drift (it is shared and noisy) falls on every mode alike. */
struct subject {
	struct numaring *q;
	struct numaring_worker *w;
	long pairs;
	double v[REPS];
};

static void subject_init(struct subject *s, enum numaring_lookup mode, long pairs)
{
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	lab.lookup = mode;
	s->q = numaring_lab_create(&cfg, &lab);
	if (!s->q) {
		fprintf(stderr, "bench_ring: numaring_create: %s\n", numaring_last_error());
		exit(1);
	}
	s->w = numaring_worker_attach(s->q);
	if (!s->w) {
		fprintf(stderr, "bench_ring: numaring_worker_attach: %s\n", numaring_last_error());
		exit(1);
	}
	s->pairs = pairs;
}

/* ns per enqueue+dequeue pair, one round. */
static double pair_round(struct subject *s)
{
	void *out;
	double t0 = now_ns();
	for (long i = 0; i < s->pairs; i++) {
		if (numaring_enqueue(s->w, (void *)i) != 0 || numaring_dequeue(s->w, &out) != 0) {
			fprintf(stderr, "bench_ring: operation failed\n");
			exit(1);
		}
	}
	return (now_ns() - t0) / (double)s->pairs;
}

/* The same pairs with the core inlined here, no call and no jump: what
 * numaring_enqueue's jump to the worker's variant costs is the difference.
 * mode is production's look-up in force (RSEQ or CACHED). */
static double pair_round_inline(struct subject *s, enum numaring_lookup mode)
{
	void *out;
	double t0 = now_ns();
	for (long i = 0; i < s->pairs; i++) {
		int bad = mode == NUMARING_LOOKUP_RSEQ
				  ? nr_enqueue_core(s->w, (void *)i, NUMARING_LOOKUP_RSEQ) != 0 ||
					    nr_dequeue_core(s->w, &out, NUMARING_LOOKUP_RSEQ) != 0
				  : nr_enqueue_core(s->w, (void *)i, NUMARING_LOOKUP_CACHED) != 0 ||
					    nr_dequeue_core(s->w, &out, NUMARING_LOOKUP_CACHED) != 0;
		if (bad) {
			fprintf(stderr, "bench_ring: operation failed\n");
			exit(1);
		}
	}
	return (now_ns() - t0) / (double)s->pairs;
}

static int16_t table[CPU_SETSIZE];
static unsigned cached_left = 256;

/* ns per look-up alone, by mode. */
static struct result lookup_cost(enum numaring_lookup mode, long calls)
{
	double v[REPS];
	for (int r = 0; r < REPS; r++) {
		uint64_t acc = 0;
		unsigned cpu, node;
		double t0 = now_ns();
		for (long i = 0; i < calls; i++) {
			switch (mode) {
			case NUMARING_LOOKUP_LIBNUMA:
				acc += (uint64_t)numa_node_of_cpu(sched_getcpu());
				break;
			case NUMARING_LOOKUP_SYSCALL:
				nr_getcpu_syscall(&cpu, &node);
				acc += node;
				break;
			case NUMARING_LOOKUP_TABLE:
				acc += (uint64_t)table[sched_getcpu() & (CPU_SETSIZE - 1)];
				break;
			case NUMARING_LOOKUP_CACHED:
				if (--cached_left == 0) {
					cached_left = 256;
					acc += (uint64_t)table[sched_getcpu() & (CPU_SETSIZE - 1)];
				}
				acc += 1;
				break;
			case NUMARING_LOOKUP_RSEQ:
				acc += nr_rseq_node();
				break;
			case NUMARING_LOOKUP_RDPID:
				acc += nr_rdpid() >> 12;
				break;
			default:
				acc += 1;
				break;
			}
		}
		v[r] = (now_ns() - t0) / (double)calls;
		sink += acc;
	}
	return summarise(v, REPS);
}

int main(int argc, char **argv)
{
	long pairs = 2000000, calls = 2000000;
	const char *csv = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			pairs = 200000;
			calls = 200000;
		} else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
			csv = argv[++i];
		} else {
			fprintf(stderr, "usage: bench_ring [--quick] [--csv FILE]\n");
			return 2;
		}
	}
	/* stay on one CPU: a migration in the middle would time the scheduler */
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof one, &one);

	static const enum numaring_lookup modes[] = {
		NUMARING_LOOKUP_NONE,  NUMARING_LOOKUP_CACHED, NUMARING_LOOKUP_RSEQ,
		NUMARING_LOOKUP_RDPID, NUMARING_LOOKUP_TABLE,  NUMARING_LOOKUP_SYSCALL,
		NUMARING_LOOKUP_LIBNUMA,
	};
	const int nmodes = (int)(sizeof modes / sizeof modes[0]);
	struct result pair[8], look[8];
	enum numaring_lookup in_force[8];
	FILE *out = csv ? fopen(csv, "w") : NULL;
	if (csv && !out) {
		fprintf(stderr, "bench_ring: cannot write %s: %s\n", csv, strerror(errno));
		return 2;
	}

	printf("bench-ring: one thread, one node ring (capacity 1024), %d interleaved rounds, median [min..max]\n",
	       REPS);
	printf("rseq node_id supported: %s; rdpid supported: %s\n\n",
	       numaring_rseq_node_supported() ? "yes" : "no",
	       numaring_rdpid_supported() ? "yes" : "no");
	printf("%-8s %-8s %26s %26s\n", "lookup", "in force", "ns per enq+deq pair",
	       "ns per look-up alone");
	if (out)
		fprintf(out, "lookup,in_force,pair_ns_median,pair_ns_min,pair_ns_max,lookup_ns_median,lookup_ns_min,lookup_ns_max\n");
	struct subject subj[8];
	for (int m = 0; m < nmodes; m++) {
		int slow = modes[m] == NUMARING_LOOKUP_LIBNUMA || modes[m] == NUMARING_LOOKUP_SYSCALL;
		subject_init(&subj[m], modes[m], slow ? pairs / 10 : pairs);
		in_force[m] = numaring_lookup_in_force(subj[m].q);
		pair_round(&subj[m]); /* warm up */
	}
	for (int r = 0; r < REPS; r++)
		for (int m = 0; m < nmodes; m++)
			subj[m].v[r] = pair_round(&subj[m]);
	for (int m = 0; m < nmodes; m++) {
		int slow = modes[m] == NUMARING_LOOKUP_LIBNUMA || modes[m] == NUMARING_LOOKUP_SYSCALL;
		pair[m] = summarise(subj[m].v, REPS);
		enum numaring_lookup lm = in_force[m];
		look[m] = lm == NUMARING_LOOKUP_NONE ? (struct result){0, 0, 0}
						     : lookup_cost(lm, slow ? calls / 10 : calls);
		printf("%-8s %-8s %9.2f [%6.2f..%6.2f] %9.2f [%6.2f..%6.2f]\n",
		       numaring_lookup_name(modes[m]), numaring_lookup_name(in_force[m]),
		       pair[m].med, pair[m].min, pair[m].max, look[m].med, look[m].min,
		       look[m].max);
		if (out)
			fprintf(out, "%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
				numaring_lookup_name(modes[m]), numaring_lookup_name(in_force[m]),
				pair[m].med, pair[m].min, pair[m].max, look[m].med, look[m].min,
				look[m].max);
		numaring_worker_detach(subj[m].w);
		numaring_destroy(subj[m].q);
	}
	/* a full disk shows here (the rows went to the stdio buffer): leave no
	 * half-written CSV, exit 3 as numaring-bench does for its results */
	if (out) {
		int bad = ferror(out) != 0;
		bad |= fflush(out) != 0;
		bad |= fsync(fileno(out)) != 0;
		int err = bad ? (errno ? errno : EIO) : 0;
		if (fclose(out) != 0 && !bad) {
			bad = 1;
			err = errno;
		}
		if (bad) {
			fprintf(stderr, "bench_ring: cannot write %s: %s\n", csv, strerror(err));
			unlink(csv);
			return 3;
		}
	}

	double move = pair[0].med / 2.0; /* one operation's data movement */
	double libnuma = look[nmodes - 1].med;
	printf("\ndata movement per operation (half a NONE pair): %.2f ns\n", move);
	printf("libnuma look-up / data movement: %.1fx   (target >= 10x; study F1: 11x)  %s\n",
	       libnuma / move, libnuma / move >= 10 ? "met" : "MISSED");
	for (int m = 1; m < 3; m++) {
		double r = pair[m].med / pair[0].med;
		printf("%s pair / none pair: %.3f      (target <= 1.10)               %s\n",
		       numaring_lookup_name(modes[m]), r, r <= 1.10 ? "met" : "MISSED");
	}

	/* the lab's jump: production's look-up (AUTO in force) through the
	 * lab's entry points and inlined, interleaved rounds of each */
	struct subject jump, inl;
	subject_init(&jump, NUMARING_LOOKUP_AUTO, pairs);
	subject_init(&inl, NUMARING_LOOKUP_AUTO, pairs);
	enum numaring_lookup prod = numaring_lookup_in_force(jump.q);
	pair_round(&jump);
	pair_round_inline(&inl, prod);
	for (int r = 0; r < REPS; r++) {
		jump.v[r] = pair_round(&jump);
		inl.v[r] = pair_round_inline(&inl, prod);
	}
	struct result rj = summarise(jump.v, REPS), ri = summarise(inl.v, REPS);
	printf("the lab's entry points (%s): %.2f ns per pair through numaring_enqueue/dequeue "
	       "(a call and a jump each) [%.2f..%.2f], %.2f with the core inlined [%.2f..%.2f]: "
	       "%+.2f ns per operation\n",
	       numaring_lookup_name(prod), rj.med, rj.min, rj.max, ri.med, ri.min, ri.max,
	       (rj.med - ri.med) / 2.0);
	numaring_worker_detach(jump.w);
	numaring_destroy(jump.q);
	numaring_worker_detach(inl.w);
	numaring_destroy(inl.q);
	return 0;
}
