/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_abi_old.c - a program built against the headers as shipped
 * (ring/tests/abi-0.1/, -I'd before ring/) and run against the library built
 * from today's sources (the shared libnumaring.so, as a user's program links
 * it): issue 23, "ABI kept". It creates a queue with the 0.1 config struct,
 * moves items, reads the stats with the 0.1 sizes and fills the 0.1
 * topology struct, checking that the library writes nothing past what the
 * old struct has. Built twice (ring/ring.mk): test_abi_old against the
 * production libnumaring.so, test_abi_old_lab (-DNR_ABI_LAB) against
 * libnumaring_lab.so, which adds the 0.1 lab struct's case.
 *
 * The frozen sizes (ring/src/nr_abi.h, NR_ABI_OLD_HEADERS: only the checks
 * that hold for any release's headers) are asserted here against the old
 * headers too: the numbers the library accepts are those of the structs
 * these headers declare.
 */
/* cpu_set_t and the CPU_* macros: the old numaring_topology.h defined
 * _GNU_SOURCE itself, which takes only when it is the first include; a
 * program of 0.1 that included anything before it defined it, as here. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numaring.h"
#include "numaring_lab.h"
#include "numaring_topology.h"

#define NR_ABI_OLD_HEADERS
#include "nr_abi.h"

/* The headers are the copy, not today's: they declared minor version 2
 * and the 0.1 topology entry only. */
#if NUMARING_VERSION_MINOR != 2
#error "test_abi_old.c must be built with -Iring/tests/abi-0.1 before -Iring"
#endif

/* What the linker recorded for a program linked against 0.1's library. */
void old_stats_add(struct numaring_stats *acc, const struct numaring_stats *s);
__asm__(".symver old_stats_add, numaring_stats_add@NUMARING_0.1");

#define CANARY 0x5au

/* ---- the sizes the library takes are those of these headers --------------- */

static void frozen_sizes_are_the_old_headers(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct numaring_config), NR_CONFIG_SIZE_0_1);
	assert_int_equal(offsetof(struct numaring_stats, gate_backoffs), NR_STATS_SIZE_0_1);
	assert_int_equal(sizeof(struct numaring_stats), NR_STATS_SIZE_0_2);
	assert_int_equal(offsetof(struct numaring_lab, pause_spin), NR_LAB_SIZE_0_1);
	assert_int_equal(sizeof(struct numaring_lab), NR_LAB_SIZE_0_2);
	assert_int_equal(sizeof(struct numaring_topology), NR_TOPOLOGY_SIZE_0_1);
}

/* ---- an emulated topology of the CPUs this process has -------------------- */

/* "<allowed CPUs>;-": node 0 with every allowed CPU, node 1 memory only. */
static char spec[4200];

static const cpu_set_t *allowed(void)
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

static int setup(void **state)
{
	(void)state;
	int n = numaring_cpulist_format(allowed(), spec, sizeof spec - 3);
	if (n < 0)
		return -1;
	strcat(spec, ";-");
	return 0;
}

/* The 0.1 topology struct, followed by bytes the library must not touch. */
static void topology_into_the_old_struct(void **state)
{
	(void)state;
	size_t room = sizeof(struct numaring_topology) + 256;
	unsigned char *buf = malloc(room);
	assert_non_null(buf);
	memset(buf, CANARY, room);
	struct numaring_topology *t = (struct numaring_topology *)buf;
	char err[NUMARING_ERRLEN];
	if (numaring_topology_get(spec, t, err, sizeof err) != 0)
		fail_msg("numaring_topology_get(\"%s\"): %s", spec, err);
	assert_int_equal(t->nnodes, 2);
	assert_int_equal(t->emulated, 1);
	assert_int_equal(CPU_COUNT(&t->cpus[0]), CPU_COUNT(allowed()));
	assert_true(CPU_EQUAL(&t->cpus[0], allowed()));
	assert_int_equal(CPU_COUNT(&t->cpus[1]), 0);
	assert_int_equal(t->os_node[0], -1);
	assert_int_equal(t->mem_node[1], -1);
	assert_int_equal(t->dist[0][0], 10);
	assert_int_equal(t->dist[0][1], 20);
	assert_int_equal(t->machine_ncpus[0], CPU_COUNT(allowed()));
	for (size_t i = sizeof *t; i < room; i++)
		if (buf[i] != CANARY)
			fail_msg("numaring_topology_get wrote byte %zu past the 0.1 struct (%zu bytes)",
				 i - sizeof *t, sizeof *t);
	/* and the cpulist calls on the 0.1 cpu_set_t */
	cpu_set_t s;
	char cl[64];
	assert_int_equal(numaring_cpulist_parse("1-3,1023", 8, &s, err, sizeof err), 0);
	assert_int_equal(CPU_COUNT(&s), 4);
	assert_true(CPU_ISSET(1023, &s));
	assert_int_equal(numaring_cpulist_format(&s, cl, sizeof cl), 8);
	assert_string_equal(cl, "1-3,1023");
	free(buf);
}

/* ---- the queue with the 0.1 config -------------------------------------- */

static void config_sizes(void **state)
{
	(void)state;
	/* a config as 0.1's numaring_config_init filled it */
	struct numaring_config cfg = {NR_CONFIG_SIZE_0_1, 1024, 32, NUMARING_BACKOFF_NONE, spec};
	struct numaring *q = numaring_create(&cfg);
	if (!q)
		fail_msg("numaring_create with 0.1's config: %s", numaring_last_error());
	numaring_destroy(q);
	/* numaring_config_init of this library into 0.1's struct: 0.1's size,
	 * nothing written past it (when the struct grows, the 0.1 entry of
	 * numaring_config_init must keep writing 0.1's struct: nr_abi.h) */
	struct {
		struct numaring_config cfg;
		unsigned char after[64];
	} old;
	memset(&old, CANARY, sizeof old);
	numaring_config_init(&old.cfg);
	assert_int_equal(old.cfg.size, NR_CONFIG_SIZE_0_1);
	for (size_t i = 0; i < sizeof old.after; i++)
		if (old.after[i] != CANARY)
			fail_msg("numaring_config_init wrote byte %zu past 0.1's config", i);
	cfg = old.cfg;
	cfg.topology = spec;
	q = numaring_create(&cfg);
	assert_non_null(q);
	numaring_destroy(q);
	/* not a size of any release: below 0.1's, unset, a newer struct than the library's */
	const size_t bad[] = {0, sizeof(size_t), NR_CONFIG_SIZE_0_1 - 1, NR_CONFIG_SIZE_NEWEST + 8};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		cfg.size = bad[k];
		errno = 0;
		assert_null(numaring_create(&cfg));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(numaring_last_error(), "numaring_config"));
	}
#ifdef NR_ABI_LAB
	/* the lab of 0.1 (lookup..linger_us): the 0.2 fields take their defaults
	 * (test_abi_old_lab: the lab is libnumaring_lab.so's alone) */
	struct numaring_lab lab;
	numaring_lab_init(&lab);
	lab.size = NR_LAB_SIZE_0_1;
	lab.pause_spin = 7; /* not the caller's: beyond its size */
	cfg.size = NR_CONFIG_SIZE_0_1;
	q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	unsigned spin = 0, cap = 0;
	numaring_spin_in_force(q, &spin, &cap);
	assert_int_equal(spin, NUMARING_PAUSE_SPIN);
	assert_int_equal(cap, NUMARING_EXP_MAX_SPIN);
	numaring_destroy(q);
#endif
}

/* Items through a queue of two nodes (one memory only), so that batches
 * cross; the stats read with 0.1's size and added with 0.1's entry. */
static void items_and_stats_of_0_1(void **state)
{
	(void)state;
	enum { N = 100 };
	struct numaring_config cfg;
	numaring_config_init(&cfg);
	cfg.capacity = 128; /* two rings hold the 2N items; node 0's alone does not */
	cfg.batch = 8;
	cfg.topology = spec;
	struct numaring *q = numaring_create(&cfg);
	if (!q)
		fail_msg("numaring_create: %s", numaring_last_error());
	assert_int_equal(numaring_node_count(q), 2);
	assert_int_equal(numaring_topology_emulated(q), 1);
	assert_int_equal(numaring_node_distance(q, 0, 1), 20);
	struct numaring_worker *w = numaring_worker_attach(q);
	assert_non_null(w);

	/* N single items and N in bursts of 10: more than node 0's ring holds */
	for (uintptr_t i = 0; i < N; i++)
		assert_int_equal(numaring_enqueue(w, (void *)(i + 1)), 0);
	void *items[10];
	for (uintptr_t i = 0; i < N; i += 10) {
		for (uintptr_t k = 0; k < 10; k++)
			items[k] = (void *)(N + i + k + 1);
		assert_int_equal(numaring_enqueue_burst(w, items, 10), 10);
	}
	unsigned char seen[2 * N + 1] = {0};
	unsigned got = 0;
	void *it;
	while (got < N && numaring_dequeue(w, &it) == 0) {
		uintptr_t v = (uintptr_t)it;
		assert_true(v >= 1 && v <= 2 * N);
		assert_int_equal(seen[v]++, 0);
		got++;
	}
	unsigned n;
	while ((n = numaring_dequeue_burst(w, items, 10)) > 0)
		for (unsigned k = 0; k < n; k++, got++) {
			uintptr_t v = (uintptr_t)items[k];
			assert_true(v >= 1 && v <= 2 * N);
			assert_int_equal(seen[v]++, 0);
		}
	assert_int_equal(got, 2 * N);
	assert_int_equal(numaring_dequeue(w, &it), -ENOENT);

	/* the stats into a struct of 0.1's size: its counters, nothing past it */
	struct numaring_stats st;
	memset(&st, CANARY, sizeof st);
	numaring_worker_stats(w, &st, NR_STATS_SIZE_0_1);
	assert_int_equal(st.enqueued, 2 * N);
	assert_int_equal(st.dequeued, 2 * N);
	assert_true(st.batches_out > 0); /* to node 1: node 0's ring is smaller than 2N */
	assert_true(st.batches_in > 0);  /* and back */
	assert_true(st.local_ops <= 4 * N);
	const unsigned char *p = (const unsigned char *)&st;
	for (size_t i = NR_STATS_SIZE_0_1; i < sizeof st; i++)
		if (p[i] != CANARY)
			fail_msg("numaring_worker_stats wrote byte %zu, past 0.1's %u", i,
				 NR_STATS_SIZE_0_1);

	/* numaring_stats_add as a 0.1 program calls it: 0.1's counters only */
	struct numaring_stats acc;
	memset(&acc, 0, NR_STATS_SIZE_0_1);
	memset((unsigned char *)&acc + NR_STATS_SIZE_0_1, CANARY, sizeof acc - NR_STATS_SIZE_0_1);
	old_stats_add(&acc, &st);
	old_stats_add(&acc, &st);
	assert_int_equal(acc.enqueued, 4 * N);
	assert_int_equal(acc.batches_out, 2 * st.batches_out);
	p = (const unsigned char *)&acc;
	for (size_t i = NR_STATS_SIZE_0_1; i < sizeof acc; i++)
		if (p[i] != CANARY)
			fail_msg("numaring_stats_add@NUMARING_0.1 wrote byte %zu, past 0.1's %u", i,
				 NR_STATS_SIZE_0_1);
	/* the sized one with 0.1's size: the same */
	numaring_stats_add_sized(&acc, &st, NR_STATS_SIZE_0_1);
	assert_int_equal(acc.dequeued, 6 * N);
	for (size_t i = NR_STATS_SIZE_0_1; i < sizeof acc; i++)
		if (p[i] != CANARY)
			fail_msg("numaring_stats_add_sized(0.1's size) wrote byte %zu", i);

	/* and with these headers' whole struct (0.2's): every counter, as they
	 * bind numaring_stats_add (NUMARING_0.2) */
	struct numaring_stats whole, sum;
	numaring_worker_stats(w, &whole, sizeof whole);
	assert_int_equal(whole.enqueued, 2 * N);
	memset(&sum, 0, sizeof sum);
	numaring_stats_add(&sum, &whole);
	assert_memory_equal(&sum, &whole, sizeof sum);

	numaring_worker_detach(w);
	numaring_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(frozen_sizes_are_the_old_headers),
	    cmocka_unit_test(topology_into_the_old_struct),
	    cmocka_unit_test(config_sizes),
	    cmocka_unit_test(items_and_stats_of_0_1),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
