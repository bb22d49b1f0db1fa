/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_test.h - helpers shared by the ring's cmocka tests.
 *
 * The white-box tests link the lab's test archive (build/test/libnumaring.a)
 * and see nr_internal.h's lab layout: NR_LAB is defined here unless the
 * test is production's (NR_TEST_PRODUCTION, build/test/libnumaring_prod.a),
 * so that a test built without the flag still agrees with its archive.
 */
#ifndef NR_TEST_H
#define NR_TEST_H

#if !defined(NR_LAB) && !defined(NR_TEST_PRODUCTION)
#define NR_LAB 1
#endif

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "numaring.h"
#include "numaring_lab.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define NR_UNDER_SANITIZER 1
#else
#define NR_UNDER_SANITIZER 0
#endif

/* The CPUs the process may run on, as the test found them before any
 * pinning (the library reads the creating thread's affinity). */
static inline const cpu_set_t *nr_test_allowed(void)
{
	static cpu_set_t s;
	static int done;
	if (!done) {
		CPU_ZERO(&s);
		if (sched_getaffinity(0, sizeof s, &s) < 0)
			CPU_SET(0, &s);
		done = 1;
	}
	return &s;
}

static inline int nr_test_ncpus(void)
{
	return CPU_COUNT(nr_test_allowed());
}

/* The k-th allowed CPU. */
static inline int nr_test_cpu(int k)
{
	for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, nr_test_allowed()) && seen++ == k)
			return c;
	return -1;
}

/* Pin the calling thread to one CPU. */
static inline int nr_test_pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* Give the calling thread back every allowed CPU. */
static inline void nr_test_unpin(void)
{
	pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), nr_test_allowed());
}

/* An emulated topology with one node per allowed CPU, plus `extra`
 * memory-only nodes: "0;1;-". Written into buf. */
static inline const char *nr_test_topology(char *buf, size_t len, int max_nodes, int extra)
{
	size_t o = 0;
	int n = nr_test_ncpus();
	buf[0] = '\0';
	if (n <= max_nodes) {
		for (int k = 0; k < n; k++)
			o += (size_t)snprintf(buf + o, len - o, "%s%d", k ? ";" : "", nr_test_cpu(k));
	} else { /* more CPUs than nodes: spread them */
		for (int node = 0; node < max_nodes; node++) {
			o += (size_t)snprintf(buf + o, len - o, "%s", node ? ";" : "");
			int first = 1;
			for (int k = node; k < n; k += max_nodes) {
				o += (size_t)snprintf(buf + o, len - o, "%s%d", first ? "" : ",",
						      nr_test_cpu(k));
				first = 0;
			}
		}
	}
	for (int e = 0; e < extra; e++)
		o += (size_t)snprintf(buf + o, len - o, ";-");
	return buf;
}

#ifdef NR_LAB
/* A queue of the lab's, recheck 8, with the backoffs' spin lengths
 * (0: the production ones). */
static inline struct numaring *nr_test_create_spin(size_t capacity, unsigned batch,
						   enum numaring_lookup lookup,
						   enum numaring_gate gate,
						   enum numaring_backoff backoff,
						   const char *topology, unsigned pause_spin,
						   unsigned exp_cap)
{
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.capacity = capacity;
	cfg.batch = batch;
	lab.lookup = lookup;
	lab.gate = gate;
	cfg.backoff = backoff;
	lab.recheck = 8;
	lab.pause_spin = pause_spin;
	lab.exp_cap = exp_cap;
	cfg.topology = topology;
	nr_test_unpin(); /* the library checks topologies against our affinity */
	struct numaring *q = numaring_lab_create(&cfg, &lab);
	if (!q)
		fail_msg("numaring_create failed: %s", numaring_last_error());
	return q;
}

static inline struct numaring *nr_test_create(size_t capacity, unsigned batch,
					      enum numaring_lookup lookup,
					      enum numaring_gate gate,
					      enum numaring_backoff backoff, const char *topology)
{
	return nr_test_create_spin(capacity, batch, lookup, gate, backoff, topology, 0, 0);
}
#endif /* NR_LAB */

#endif /* NR_TEST_H */
