/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pin.c - where numaring-bench puts its threads (placement.c), on
 * hosts this machine is not: the planner is a pure function of a CPU map,
 * fed here with synthetic ones. The main one is the study's kind of host,
 * two sockets of 16 cores with two hyperthreads each, numbered as Linux
 * numbers an Intel host (CPU c and c + 32 are the two hyperthreads of core
 * c; cores 0-15 on node 0, 16-31 on node 1); another numbers hyperthreads
 * side by side (AMD: core k = CPUs 2k, 2k+1).
 *
 * What must hold: one thread per core unless --smt siblings asks for the
 * hyperthreads, cores in node order, the main thread on a CPU no worker
 * uses (a free core first) when there is one, and the sharing of cores
 * recorded (threads_per_core, smt_shared). The threads of a symmetric
 * workload (--workload pairs, mixed) fill a node's cores first (compact) or
 * alternate the nodes (scatter), and split is refused for them.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "run.h"

/* 2 nodes x 16 cores x 2 hyperthreads; intel: siblings c, c + 32;
 * otherwise siblings 2k, 2k + 1. CPUs are added in a shuffled order: the
 * planner may not depend on the map's order. */
static struct hb_cpumap *two_sockets(int intel)
{
	struct hb_cpumap *m = calloc(1, sizeof *m);
	assert_non_null(m);
	for (int i = 0; i < 64; i++) {
		int cpu = (i * 37) % 64; /* 37 is prime to 64: every CPU once */
		int core = intel ? cpu % 32 : cpu / 2;
		m->cpu[m->n++] = (struct hb_cpu){cpu, core / 16, core};
	}
	m->cores_known = 1;
	return m;
}

struct plan {
	unsigned nodes[2]; /* HB_PIN_NODES: set before place() */
	int cpu[256];
	struct hb_placement p;
	struct hb_sharing sh;
	char err[256];
	int rc;
};

static void place(struct plan *pl, const struct hb_cpumap *m, enum hb_pin pin, enum hb_smt smt,
		  unsigned np, unsigned nc, const char *list)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (list) {
		char err[NUMARING_ERRLEN];
		assert_int_equal(numaring_cpulist_parse(list, strlen(list), &set, err, sizeof err), 0);
	}
	unsigned nodes[2] = {pl->nodes[0], pl->nodes[1]};
	memset(pl, 0, sizeof *pl);
	memcpy(pl->nodes, nodes, sizeof nodes);
	pl->p.cpu = pl->cpu;
	pl->rc = hb_place(pin, smt, np, nc, &set, pl->nodes, m, &pl->p, pl->err, sizeof pl->err);
	if (pl->rc == 0)
		hb_sharing_of(m, pl->cpu, np + nc, &pl->sh);
}

static const struct hb_cpu *at(const struct hb_cpumap *m, int cpu)
{
	const struct hb_cpu *c = hb_cpumap_find(m, cpu);
	if (!c)
		fail_msg("CPU %d is not in the map", cpu);
	return c;
}

static void expect_cpus(const struct plan *pl, unsigned n, const int *want)
{
	for (unsigned i = 0; i < n; i++)
		if (pl->cpu[i] != want[i])
			fail_msg("thread %u on CPU %d, expected %d", i, pl->cpu[i], want[i]);
}

static void the_map_counts_cores_and_hyperthreads(void **state)
{
	(void)state;
	unsigned cpus, cores, tpc;
	struct hb_cpumap *m = two_sockets(1);
	hb_cpumap_count(m, &cpus, &cores, &tpc);
	assert_int_equal(cpus, 64);
	assert_int_equal(cores, 32);
	assert_int_equal(tpc, 2);
	assert_int_equal(at(m, 40)->core, 8);
	assert_int_equal(at(m, 40)->node, 0);
	assert_int_equal(at(m, 48)->node, 1);
	assert_null(hb_cpumap_find(m, 64));
	free(m);
}

/* compact, one producer and one consumer: two cores, not two hyperthreads
 * of one; the main thread on a third core */
static void compact_takes_one_cpu_per_core(void **state)
{
	(void)state;
	struct plan pl;
	for (int intel = 0; intel < 2; intel++) {
		struct hb_cpumap *m = two_sockets(intel);
		place(&pl, m, HB_PIN_COMPACT, HB_SMT_CORES, 1, 1, NULL);
		assert_int_equal(pl.rc, 0);
		const int want[] = {0, intel ? 1 : 2};
		expect_cpus(&pl, 2, want);
		assert_int_equal(pl.sh.known, 1);
		assert_int_equal(pl.sh.threads_per_core, 1);
		assert_int_equal(pl.sh.smt_shared, 0);
		assert_int_equal(pl.sh.cores, 2);
		assert_int_equal(pl.p.main_cpu, intel ? 2 : 4); /* the next free core */
		free(m);
	}
}

/* every core of both nodes, in node order: 32 threads on 32 cores, none
 * on a hyperthread sibling; the main thread on a sibling (no core is free,
 * a CPU is) */
static void all_cores_then_main_on_a_sibling(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_COMPACT, HB_SMT_CORES, 16, 16, NULL);
	assert_int_equal(pl.rc, 0);
	int seen[64] = {0};
	for (unsigned i = 0; i < 32; i++) {
		assert_true(pl.cpu[i] >= 0 && pl.cpu[i] < 32); /* first hyperthreads only */
		seen[pl.cpu[i]]++;
	}
	for (int c = 0; c < 32; c++)
		assert_int_equal(seen[c], 1);
	/* P0 C0 P1 C1 ...: node 0's cores first */
	assert_int_equal(pl.cpu[0], 0);
	assert_int_equal(pl.cpu[16], 1);
	assert_int_equal(pl.cpu[7], 14);
	assert_int_equal(pl.cpu[8], 16);
	assert_int_equal(pl.sh.threads_per_core, 1);
	assert_int_equal(pl.sh.smt_shared, 0);
	assert_int_equal(pl.sh.cores, 32);
	assert_int_equal(pl.p.main_cpu, 32); /* core 0's other hyperthread */
	free(m);
}

/* --smt siblings: P0 and C0 on the two hyperthreads of core 0, and so on;
 * at 64 threads every CPU has one and the main thread none */
static void siblings_only_when_asked(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_COMPACT, HB_SMT_SIBLINGS, 1, 1, NULL);
	const int want[] = {0, 32};
	expect_cpus(&pl, 2, want);
	assert_int_equal(pl.sh.threads_per_core, 2);
	assert_int_equal(pl.sh.smt_shared, 1);
	assert_int_equal(pl.p.main_cpu, 1); /* core 1 is free */

	place(&pl, m, HB_PIN_COMPACT, HB_SMT_SIBLINGS, 32, 32, NULL);
	assert_int_equal(pl.rc, 0);
	int seen[64] = {0};
	for (unsigned i = 0; i < 64; i++)
		seen[pl.cpu[i]]++;
	for (int c = 0; c < 64; c++)
		assert_int_equal(seen[c], 1);
	assert_int_equal(pl.sh.smt_shared, 1);
	assert_int_equal(pl.sh.threads_per_core, 2);
	assert_int_equal(pl.p.main_cpu, -1);
	free(m);

	/* side-by-side numbering: the same cores, other CPU numbers */
	m = two_sockets(0);
	place(&pl, m, HB_PIN_COMPACT, HB_SMT_SIBLINGS, 1, 1, NULL);
	const int want2[] = {0, 1};
	expect_cpus(&pl, 2, want2);
	assert_int_equal(pl.sh.smt_shared, 1);
	free(m);
}

/* More threads than cores with --smt cores: the extra threads share the
 * cores' first CPUs (oversubscribed, recorded), not their siblings */
static void more_threads_than_cores_share_cpus(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_COMPACT, HB_SMT_CORES, 32, 32, NULL);
	assert_int_equal(pl.rc, 0);
	for (unsigned i = 0; i < 64; i++)
		assert_true(pl.cpu[i] < 32);
	assert_int_equal(pl.sh.threads_per_core, 2);
	assert_int_equal(pl.sh.smt_shared, 0); /* two threads on one CPU, not two hyperthreads */
	assert_int_equal(pl.p.main_cpu, 32);
	free(m);
}

/* split: producers on node 0's cores, consumers on node 1's; with siblings
 * each node's hyperthreads pair up, and the main thread gets a free core */
static void split_by_cores_and_by_siblings(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_SPLIT, HB_SMT_CORES, 16, 16, NULL);
	assert_int_equal(pl.rc, 0);
	for (unsigned i = 0; i < 16; i++) {
		assert_int_equal(pl.cpu[i], (int)i);
		assert_int_equal(pl.cpu[16 + i], 16 + (int)i);
	}
	assert_int_equal(pl.sh.threads_per_core, 1);
	assert_int_equal(pl.p.main_cpu, 32);

	place(&pl, m, HB_PIN_SPLIT, HB_SMT_SIBLINGS, 16, 16, NULL);
	assert_int_equal(pl.rc, 0);
	const int want[] = {0, 32, 1, 33};
	expect_cpus(&pl, 4, want);
	assert_int_equal(pl.cpu[16], 16);
	assert_int_equal(pl.cpu[17], 48);
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(at(m, pl.cpu[i])->node, 0);
	for (unsigned i = 16; i < 32; i++)
		assert_int_equal(at(m, pl.cpu[i])->node, 1);
	assert_int_equal(pl.sh.smt_shared, 1);
	assert_int_equal(pl.sh.cores, 16);
	assert_int_equal(pl.p.main_cpu, 8); /* node 0's first free core */
	free(m);
}

/* nodes:P/C: producers on node P's cores, consumers on node C's, each a
 * core in turn; on one node P0, C0, P1, C1.. as compact; a node without
 * CPUs is refused by name */
static void nodes_put_each_side_where_asked(void **state)
{
	(void)state;
	struct plan pl = {.nodes = {1, 0}};
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_NODES, HB_SMT_CORES, 2, 3, NULL);
	assert_int_equal(pl.rc, 0);
	const int want[] = {16, 17, 0, 1, 2};
	expect_cpus(&pl, 5, want);
	pl.nodes[0] = pl.nodes[1] = 1;
	place(&pl, m, HB_PIN_NODES, HB_SMT_CORES, 2, 2, NULL);
	assert_int_equal(pl.rc, 0);
	const int same[] = {16, 18, 17, 19}; /* P0 16, P1 18; C0 17, C1 19 */
	expect_cpus(&pl, 4, same);
	assert_int_equal(pl.sh.threads_per_core, 1);
	pl.nodes[0] = 0;
	pl.nodes[1] = 2;
	place(&pl, m, HB_PIN_NODES, HB_SMT_CORES, 1, 1, NULL);
	assert_int_equal(pl.rc, -1);
	assert_non_null(strstr(pl.err, "node 2 has no CPU in this run"));
	free(m);
}

/* scatter: Pi and Ci on node i mod 2, each on a core of its own */
static void scatter_round_robins_over_nodes(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_SCATTER, HB_SMT_CORES, 2, 2, NULL);
	assert_int_equal(pl.rc, 0);
	const int want[] = {0, 16, 1, 17};
	expect_cpus(&pl, 4, want);
	assert_int_equal(pl.sh.threads_per_core, 1);
	free(m);
}

/* a cpulist is taken as given, whatever --smt says, and recorded */
static void a_list_is_taken_as_given(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_LIST, HB_SMT_CORES, 1, 1, "0,32");
	assert_int_equal(pl.rc, 0);
	const int want[] = {0, 32};
	expect_cpus(&pl, 2, want);
	assert_int_equal(pl.sh.smt_shared, 1);
	assert_int_equal(pl.p.main_cpu, 1);
	free(m);
}

static void what_cannot_be_placed_is_refused(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_LIST, HB_SMT_CORES, 1, 1, "0,64");
	assert_int_equal(pl.rc, -1);
	assert_non_null(strstr(pl.err, "CPU 64, which this run may not use"));
	/* one node: split cannot be done */
	for (unsigned i = 0; i < m->n; i++)
		m->cpu[i].node = 0;
	place(&pl, m, HB_PIN_SPLIT, HB_SMT_CORES, 1, 1, NULL);
	assert_int_equal(pl.rc, -1);
	assert_non_null(strstr(pl.err, "split needs two nodes with CPUs; this run has 1"));
	free(m);
}

/* The command line's plan for a symmetric workload (options.c, then
 * hb_plan_cpus): its threads are placed as producers alone. */
static int plan_of(const struct hb_cpumap *m, int *cpu, const char *const *args)
{
	const char *argv[16] = {"numaring-bench"};
	int argc = 1;
	struct hb_options o;
	struct hb_placement p = {cpu, -1};
	for (int i = 0; args[i]; i++)
		argv[argc++] = args[i];
	assert_int_equal(hb_parse(argc, (char **)argv, &o), 0);
	assert_int_equal(o.producers, o.threads);
	assert_int_equal(o.consumers, o.threads);
	return hb_plan_cpus(&o, m, &p);
}

static void symmetric_threads_fill_a_node_or_alternate(void **state)
{
	(void)state;
	int cpu[64];
	struct hb_cpumap *m = two_sockets(1);
	/* compact: the first node's cores, one thread each, then the second's */
	const char *compact[] = {"--workload", "pairs", "--threads", "20", "--pin", "compact", NULL};
	assert_int_equal(plan_of(m, cpu, compact), 0);
	for (int i = 0; i < 20; i++) {
		if (cpu[i] != i)
			fail_msg("compact: thread %d on CPU %d, expected %d", i, cpu[i], i);
		assert_int_equal(at(m, cpu[i])->node, i < 16 ? 0 : 1);
	}
	/* scatter: thread i on node i mod 2 */
	const char *scatter[] = {"--workload", "mixed", "--threads", "4", "--pin", "scatter", NULL};
	assert_int_equal(plan_of(m, cpu, scatter), 0);
	const int want[] = {0, 16, 1, 17};
	for (int i = 0; i < 4; i++)
		if (cpu[i] != want[i])
			fail_msg("scatter: thread %d on CPU %d, expected %d", i, cpu[i], want[i]);
	/* split has no sides to put on two nodes: refused by the planner too */
	struct plan pl;
	place(&pl, m, HB_PIN_SPLIT, HB_SMT_CORES, 4, 0, NULL);
	assert_int_equal(pl.rc, -1);
	assert_non_null(strstr(pl.err, "split needs producers and consumers"));
	free(m);
}

/* --pin none: nothing pinned, the main thread neither, sharing unknown */
static void none_pins_nothing(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = two_sockets(1);
	place(&pl, m, HB_PIN_NONE, HB_SMT_CORES, 2, 2, NULL);
	assert_int_equal(pl.rc, 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(pl.cpu[i], -1);
	assert_int_equal(pl.p.main_cpu, -1);
	assert_int_equal(pl.sh.known, 0);
	free(m);
}

/* An emulated topology puts real CPUs on emulated nodes: on a two-CPU
 * host whose CPUs are the two hyperthreads of one core, "0;1" gives each
 * node one CPU of that core. Split then cannot give each thread a core,
 * and says so in the record. */
static void emulated_nodes_over_one_core(void **state)
{
	(void)state;
	struct plan pl;
	struct hb_cpumap *m = calloc(1, sizeof *m);
	assert_non_null(m);
	m->cpu[m->n++] = (struct hb_cpu){0, 0, 0};
	m->cpu[m->n++] = (struct hb_cpu){1, 1, 0};
	m->cores_known = 1;
	place(&pl, m, HB_PIN_SPLIT, HB_SMT_CORES, 1, 1, NULL);
	assert_int_equal(pl.rc, 0);
	const int want[] = {0, 1};
	expect_cpus(&pl, 2, want);
	assert_int_equal(pl.sh.smt_shared, 1);
	assert_int_equal(pl.p.main_cpu, -1);
	/* compact on that one core: the core's first CPU only, shared */
	for (unsigned i = 0; i < m->n; i++)
		m->cpu[i].node = 0;
	place(&pl, m, HB_PIN_COMPACT, HB_SMT_CORES, 1, 1, NULL);
	const int want2[] = {0, 0};
	expect_cpus(&pl, 2, want2);
	assert_int_equal(pl.sh.threads_per_core, 2);
	assert_int_equal(pl.sh.smt_shared, 0);
	assert_int_equal(pl.p.main_cpu, 1);
	free(m);
}

/* This machine's real map: every allowed CPU once, a core for each */
static void the_machine_map_has_every_allowed_cpu(void **state)
{
	(void)state;
	struct numaring_topology *t = calloc(1, sizeof *t);
	struct hb_cpumap *m = calloc(1, sizeof *m);
	char err[NUMARING_ERRLEN];
	cpu_set_t allowed;
	assert_non_null(t);
	assert_non_null(m);
	assert_int_equal(numaring_topology_get(NULL, t, err, sizeof err), 0);
	assert_int_equal(hb_cpumap_discover(t, m, err, sizeof err), 0);
	sched_getaffinity(0, sizeof allowed, &allowed);
	assert_int_equal(m->n, (unsigned)CPU_COUNT(&allowed));
	for (unsigned i = 0; i < m->n; i++) {
		assert_true(CPU_ISSET(m->cpu[i].cpu, &allowed));
		assert_true(m->cpu[i].core >= 0);
	}
	free(t);
	free(m);
}

/* Memory for a thread's own state: zeroed, and on a node the kernel names
 * where it has NUMA (the first page was touched by the caller). */
static void local_memory_is_zeroed_and_placed(void **state)
{
	(void)state;
	int node = -2;
	size_t size = 3 * 4096 + 100;
	unsigned char *p = hb_local_alloc(size, &node);
	assert_non_null(p);
	for (size_t i = 0; i < size; i++)
		if (p[i])
			fail_msg("byte %zu is %d", i, p[i]);
	if (access("/sys/devices/system/node/node0", F_OK) == 0)
		assert_true(node >= 0);
	hb_local_free(p, size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_map_counts_cores_and_hyperthreads),
		cmocka_unit_test(compact_takes_one_cpu_per_core),
		cmocka_unit_test(all_cores_then_main_on_a_sibling),
		cmocka_unit_test(siblings_only_when_asked),
		cmocka_unit_test(more_threads_than_cores_share_cpus),
		cmocka_unit_test(split_by_cores_and_by_siblings),
		cmocka_unit_test(scatter_round_robins_over_nodes),
		cmocka_unit_test(nodes_put_each_side_where_asked),
		cmocka_unit_test(a_list_is_taken_as_given),
		cmocka_unit_test(what_cannot_be_placed_is_refused),
		cmocka_unit_test(none_pins_nothing),
		cmocka_unit_test(symmetric_threads_fill_a_node_or_alternate),
		cmocka_unit_test(emulated_nodes_over_one_core),
		cmocka_unit_test(the_machine_map_has_every_allowed_cpu),
		cmocka_unit_test(local_memory_is_zeroed_and_placed),
	};
	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
