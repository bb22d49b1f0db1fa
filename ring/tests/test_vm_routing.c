/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_vm_routing.c - routing, migration, cross-node batches and stealing
 * order on REAL NUMA nodes (no NUMARING_TOPOLOGY emulation).
 *
 * Meant to run inside the QEMU guest of `make vm-test` (scripts/numa_vm.py),
 * where the kernel reports several nodes: a worker pinned to a CPU must
 * route to the ring of the node the kernel gives that CPU, under every
 * lookup mode; it must follow a migration (at once, within `recheck`
 * operations for CACHED, never for NONE); producers on one node and
 * consumers on another must deliver every item exactly once through
 * cross-node batches; and a consumer whose ring is empty must steal from
 * the nearest non-empty node first. Cases that need more nodes than the
 * machine has are skipped, saying so; on a one-node machine everything is.
 *
 * NUMARING_VM_WRONG=1 flips one expectation (a CPU of a node other than 0
 * is expected on ring 0) so that `make vm-test` can show that a wrong
 * expectation in the guest fails the run.
 *
 * Timings inside a TCG guest mean nothing: nothing here measures time
 * except a deadline that turns a hang into a failure.
 */
#include "nr_test.h"

#include "nr_internal.h" /* white-box: the rings, to watch where a batch came from */
#include "nr_lookup.h"   /* white-box: the rseq node_id, checked against the kernel */

#include <errno.h>
#include <numa.h>
#include <stdatomic.h>
#include <time.h>

#define RECHECK 16u
#define MAX_SIDE 8       /* threads per side in cross_node_batches */
#define DEADLINE_S 120.0 /* a cross-node run taking longer is a hang */

static int vm_wrong;   /* NUMARING_VM_WRONG: flip one expectation */
static int wrong_used; /* the flip happens once */

/* ---- helpers ---------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct numaring *make_queue(enum numaring_lookup lookup, enum numaring_gate gate,
				   size_t capacity, unsigned batch)
{
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.capacity = capacity;
	cfg.batch = batch;
	lab.lookup = lookup;
	lab.recheck = RECHECK;
	lab.gate = gate;
	cfg.backoff = NUMARING_BACKOFF_NONE;
	cfg.topology = NULL;
	nr_test_unpin(); /* discovery sees the creating thread's allowed CPUs */
	struct numaring *q = numaring_lab_create(&cfg, &lab);
	if (!q)
		fail_msg("numaring_create (lookup %s, gate %s) failed: %s", numaring_lookup_name(lookup),
			 numaring_gate_name(gate), numaring_last_error());
	if (numaring_topology_emulated(q))
		fail_msg("the topology is emulated although NUMARING_TOPOLOGY is unset");
	return q;
}

/* The k-th CPU of queue node n, -1 if it has fewer. */
static int cpu_of(const struct numaring *q, unsigned n, int k)
{
	for (int c = 0, seen = 0; c < NR_MAX_CPUS; c++)
		if (CPU_ISSET(c, &q->topo.cpus[n]) && seen++ == k)
			return c;
	return -1;
}

static int ncpus_of(const struct numaring *q, unsigned n)
{
	return CPU_COUNT(&q->topo.cpus[n]);
}

/* Queue nodes that have CPUs, into out[]; returns how many. */
static unsigned cpu_nodes(const struct numaring *q, unsigned *out)
{
	unsigned k = 0;
	for (unsigned n = 0; n < numaring_node_count(q); n++)
		if (ncpus_of(q, n) > 0)
			out[k++] = n;
	return k;
}

/* The queue node of `cpu` as the KERNEL says (libnuma reads sysfs), mapped
 * to a queue index through numaring_node_os_index. */
static int kernel_queue_node(const struct numaring *q, int cpu, int *os_out)
{
	int os = numa_node_of_cpu(cpu);
	if (os_out)
		*os_out = os;
	if (os < 0)
		fail_msg("numa_node_of_cpu(%d) failed: %s", cpu, strerror(errno));
	for (unsigned n = 0; n < numaring_node_count(q); n++)
		if (numaring_node_os_index(q, n) == os)
			return (int)n;
	fail_msg("the kernel puts CPU %d on node %d, which is none of the queue's nodes", cpu, os);
	return -1;
}

/* Pin the calling thread to cpu and check it runs there. */
static void pin(int cpu)
{
	int rc = nr_test_pin(cpu);
	if (rc != 0)
		fail_msg("cannot pin to CPU %d: %s", cpu, strerror(rc));
	int now = sched_getcpu();
	if (now != cpu)
		fail_msg("pinned to CPU %d but sched_getcpu() says %d", cpu, now);
}

/* One operation: the route is taken before it. Keeps the ring balanced. */
static void one_op(struct numaring_worker *w, unsigned *held)
{
	void *item;
	if (*held == 0) {
		assert_int_equal(numaring_enqueue(w, (void *)(uintptr_t)0x5a5a), 0);
		*held = 1;
	} else {
		assert_int_equal(numaring_dequeue(w, &item), 0);
		assert_ptr_equal(item, (void *)(uintptr_t)0x5a5a);
		*held = 0;
	}
}

static int skip_unless_nodes(const struct numaring *q, unsigned want, const char *why)
{
	unsigned nodes[NR_MAX_NODES];
	unsigned have = cpu_nodes(q, nodes);
	if (have >= want)
		return 0;
	print_message("SKIP: %s needs %u NUMA nodes with CPUs; this machine has %u "
		      "(run it in the guest of make vm-test)\n",
		      why, want, have);
	return 1;
}

static int exact_mode(enum numaring_lookup m)
{
	return m != NUMARING_LOOKUP_CACHED && m != NUMARING_LOOKUP_NONE;
}

/* ---- the tests -------------------------------------------------------- */

/* A node's memory as this process may use it: > 0 bytes and in its
 * mems_allowed (a cpuset may forbid some nodes). */
static int mem_usable(int os, struct bitmask *allowed)
{
	return numa_node_size64(os, NULL) > 0 &&
	       (!allowed || numa_bitmask_isbitset(allowed, (unsigned)os));
}

/* The library's idea of each node's memory is the kernel's: a node with
 * (usable) memory keeps its ring on itself, one without on the nearest node
 * with usable memory (test_placement checks that the pages really are there). */
static void memory_nodes_are_own_or_nearest(void **state)
{
	(void)state;
	struct numaring *q = make_queue(NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER, 64, 4);
	if (numa_available() < 0 || numaring_node_count(q) < 2) {
		numaring_destroy(q);
		print_message("SKIP: one NUMA node here: nothing to choose between\n");
		skip();
	}
	struct bitmask *allowed = numa_get_mems_allowed();
	for (unsigned n = 0; n < numaring_node_count(q); n++) {
		int os = numaring_node_os_index(q, n), mem = numaring_node_memory(q, n);
		if (mem < 0)
			fail_msg("node %u (OS node %d): no real placement (memory node -1)", n, os);
		if (mem_usable(os, allowed)) {
			if (mem != os)
				fail_msg("node %u (OS node %d) has memory this process may use, but its "
					 "ring is placed on node %d",
					 n, os, mem);
			continue;
		}
		int best = -1;
		for (int m = 0; m <= numa_max_node(); m++)
			if (mem_usable(m, allowed) &&
			    (best < 0 || numa_distance(os, m) < numa_distance(os, best)))
				best = m;
		if (best < 0)
			fail_msg("no node has memory this process may use");
		if (!mem_usable(mem, allowed) || numa_distance(os, mem) != numa_distance(os, best))
			fail_msg("node %u (OS node %d) has no usable memory: its ring should be on the "
				 "nearest node with memory (node %d, distance %d), not on node %d "
				 "(distance %d)",
				 n, os, best, numa_distance(os, best), mem, numa_distance(os, mem));
		print_message("node %u (OS node %d) has no usable memory: ring on OS node %d "
			      "(distance %d, the nearest)\n",
			      n, os, mem, numa_distance(os, mem));
	}
	if (allowed)
		numa_bitmask_free(allowed);
	numaring_destroy(q);
}

/* Every lookup mode, every CPU: the worker routes to the kernel's node. */
static void routes_to_the_cpus_node(void **state)
{
	(void)state;
	for (int m = 0; m < NUMARING_LOOKUP_COUNT_; m++) {
		enum numaring_lookup mode = (enum numaring_lookup)m;
		struct numaring *q = make_queue(mode, NUMARING_GATE_PERWORKER, 64, 4);
		if (m == 0 && skip_unless_nodes(q, 2, "routing to several nodes")) {
			numaring_destroy(q);
			skip();
		}
		enum numaring_lookup in_force = numaring_lookup_in_force(q);
		if (mode == NUMARING_LOOKUP_RSEQ && numaring_rseq_node_supported())
			assert_int_equal(in_force, NUMARING_LOOKUP_RSEQ);
		if (in_force != mode)
			print_message("lookup %s: not supported here, runs as %s\n",
				      numaring_lookup_name(mode), numaring_lookup_name(in_force));
		for (unsigned n = 0; n < numaring_node_count(q); n++) {
			for (int k = 0; k < ncpus_of(q, n); k++) {
				int cpu = cpu_of(q, n, k), os;
				unsigned held = 0;
				pin(cpu);
				int want = kernel_queue_node(q, cpu, &os);
				if (want != (int)n)
					fail_msg("the queue puts CPU %d on node %u, the kernel on OS node %d "
						 "(queue node %d)",
						 cpu, n, os, want);
				if (in_force == NUMARING_LOOKUP_RSEQ && (int)nr_rseq_node() != os)
					fail_msg("rseq node_id says %u on CPU %d, the kernel's node is %d",
						 nr_rseq_node(), cpu, os);
				const char *note = "";
				if (vm_wrong && !wrong_used && want != 0) {
					want = 0; /* deliberately wrong */
					wrong_used = 1;
					note = " [NUMARING_VM_WRONG=1: this expectation is deliberately wrong]";
				}
				struct numaring_worker *w = numaring_worker_attach(q);
				assert_non_null(w);
				one_op(w, &held);
				int got = numaring_worker_node(w);
				one_op(w, &held);
				if (got != want)
					fail_msg("lookup %s (in force: %s): a worker on CPU %d (OS node %d) "
						 "routed to ring %d, expected ring %d%s",
						 numaring_lookup_name(mode), numaring_lookup_name(in_force),
						 cpu, os, got, want, note);
				numaring_worker_detach(w);
			}
		}
		print_message("lookup %-7s (in force %-7s): every CPU routes to its kernel node\n",
			      numaring_lookup_name(mode), numaring_lookup_name(in_force));
		numaring_destroy(q);
	}
	nr_test_unpin();
}

/* Moved to a CPU of another node: exact modes route there at the next
 * operation, CACHED within `recheck` operations, NONE never. */
static void follows_a_migration(void **state)
{
	(void)state;
	unsigned nodes[NR_MAX_NODES];
	for (int m = 0; m < NUMARING_LOOKUP_COUNT_; m++) {
		enum numaring_lookup mode = (enum numaring_lookup)m;
		struct numaring *q = make_queue(mode, NUMARING_GATE_PERWORKER, 64, 4);
		if (m == 0 && skip_unless_nodes(q, 2, "a migration between nodes")) {
			numaring_destroy(q);
			skip();
		}
		unsigned nn = cpu_nodes(q, nodes);
		enum numaring_lookup in_force = numaring_lookup_in_force(q);
		/* from the first node with CPUs to every other, and back */
		for (unsigned j = 1; j < nn; j++) {
			unsigned a = nodes[0], b = nodes[j];
			int ca = cpu_of(q, a, 0), cb = cpu_of(q, b, ncpus_of(q, b) - 1);
			unsigned held = 0;
			struct numaring_stats st;
			pin(ca);
			struct numaring_worker *w = numaring_worker_attach(q);
			assert_non_null(w);
			one_op(w, &held);
			assert_int_equal(numaring_worker_node(w), (int)a);
			for (int leg = 0; leg < 2; leg++) {
				unsigned from = leg ? b : a, to = leg ? a : b;
				int cpu = leg ? ca : cb;
				pin(cpu);
				assert_int_equal(kernel_queue_node(q, cpu, NULL), (int)to);
				if (in_force == NUMARING_LOOKUP_NONE) {
					/* stays on its attach node a, on either leg */
					for (unsigned i = 0; i < 2 * RECHECK + 2; i++) {
						one_op(w, &held);
						if (numaring_worker_node(w) != (int)a)
							fail_msg("lookup none: the worker attached on node %u moved to "
								 "ring %d after a migration to CPU %d (it must keep its "
								 "attach node)",
								 a, numaring_worker_node(w), cpu);
					}
					continue;
				}
				unsigned ops = 0;
				unsigned limit = exact_mode(in_force) ? 1 : RECHECK;
				while (ops < limit && numaring_worker_node(w) != (int)to) {
					one_op(w, &held);
					ops++;
				}
				if (numaring_worker_node(w) != (int)to)
					fail_msg("lookup %s (in force: %s): after moving from CPU %d (node %u) "
						 "to CPU %d (node %u), the worker still routes to ring %d after "
						 "%u operation%s (expected ring %u within %u)",
						 numaring_lookup_name(mode), numaring_lookup_name(in_force),
						 leg ? cb : ca, from, cpu, to, numaring_worker_node(w), ops,
						 ops == 1 ? "" : "s", to, limit);
			}
			if (held)
				one_op(w, &held);
			numaring_worker_stats(w, &st, sizeof st);
			if (in_force == NUMARING_LOOKUP_NONE)
				assert_int_equal(st.node_changes, 0);
			else if (st.node_changes < 2)
				fail_msg("lookup %s: %llu node changes counted, expected >= 2",
					 numaring_lookup_name(mode), (unsigned long long)st.node_changes);
			numaring_worker_detach(w);
		}
		print_message("lookup %-7s (in force %-7s): %s\n", numaring_lookup_name(mode),
			      numaring_lookup_name(in_force),
			      in_force == NUMARING_LOOKUP_NONE ? "stays on its attach node, as it must"
			      : exact_mode(in_force)
				      ? "follows every migration at the next operation"
				      : "follows every migration within recheck operations");
		numaring_destroy(q);
	}
	nr_test_unpin();
}

/* ---- producers on one node, consumers on another ---------------------- */

struct xrun {
	struct numaring *q;
	uint64_t total;            /* items 1..total */
	_Atomic uint64_t claimed;  /* producers' next item */
	_Atomic uint64_t consumed; /* items dequeued */
	_Atomic uint64_t bad;      /* out of range or seen twice */
	_Atomic uint8_t *seen;
	_Atomic int failed;
	double deadline;
	pthread_mutex_t lock;
	struct numaring_stats prod, cons;
};

struct xarg {
	struct xrun *r;
	int cpu;
};

static void *producer(void *p)
{
	struct xarg *a = p;
	struct xrun *r = a->r;
	struct numaring_stats st;
	if (nr_test_pin(a->cpu) != 0) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	struct numaring_worker *w = numaring_worker_attach(r->q);
	if (!w) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	for (;;) {
		uint64_t i = atomic_fetch_add(&r->claimed, 1);
		if (i > r->total)
			break;
		while (numaring_enqueue(w, (void *)(uintptr_t)i) != 0) {
			if (now_s() > r->deadline || atomic_load(&r->failed)) {
				atomic_store(&r->failed, 1);
				goto out;
			}
			sched_yield();
		}
	}
out:
	numaring_worker_stats(w, &st, sizeof st);
	numaring_worker_detach(w); /* held items go back to a ring */
	pthread_mutex_lock(&r->lock);
	numaring_stats_add(&r->prod, &st);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void *consumer(void *p)
{
	struct xarg *a = p;
	struct xrun *r = a->r;
	struct numaring_stats st;
	void *item;
	if (nr_test_pin(a->cpu) != 0) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	struct numaring_worker *w = numaring_worker_attach(r->q);
	if (!w) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	while (atomic_load(&r->consumed) < r->total && !atomic_load(&r->failed)) {
		if (numaring_dequeue(w, &item) != 0) {
			if (now_s() > r->deadline) {
				atomic_store(&r->failed, 1);
				break;
			}
			sched_yield();
			continue;
		}
		uintptr_t v = (uintptr_t)item;
		if (v < 1 || v > r->total || atomic_fetch_add(&r->seen[v - 1], 1) != 0)
			atomic_fetch_add(&r->bad, 1);
		atomic_fetch_add(&r->consumed, 1);
	}
	numaring_worker_stats(w, &st, sizeof st);
	numaring_worker_detach(w);
	pthread_mutex_lock(&r->lock);
	numaring_stats_add(&r->cons, &st);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void cross_node_batches(void **state)
{
	(void)state;
	unsigned nodes[NR_MAX_NODES];
	double scale = 1.0;
	const char *s = getenv("NUMARING_STRESS_SCALE");
	if (s && atof(s) > 0)
		scale = atof(s) * 20; /* the stress test's 0.05 keeps 1x here */
	if (scale > 1.0)
		scale = 1.0;
	for (int g = 0; g < NUMARING_GATE_COUNT_; g++) {
		struct xrun r;
		struct xarg pa[MAX_SIDE], ca[MAX_SIDE];
		pthread_t pt[MAX_SIDE], ct[MAX_SIDE];
		memset(&r, 0, sizeof r);
		r.q = make_queue(NUMARING_LOOKUP_TABLE, (enum numaring_gate)g, 16, 4);
		if (g == 0 && skip_unless_nodes(r.q, 2, "cross-node batches")) {
			numaring_destroy(r.q);
			skip();
		}
		cpu_nodes(r.q, nodes);
		unsigned pn = nodes[0], cn = nodes[1];
		int np = ncpus_of(r.q, pn), nc = ncpus_of(r.q, cn);
		if (np > MAX_SIDE)
			np = MAX_SIDE;
		if (nc > MAX_SIDE)
			nc = MAX_SIDE;
		r.total = (uint64_t)(3000 * scale);
		if (r.total < 200)
			r.total = 200;
		r.seen = calloc(r.total, sizeof *r.seen);
		assert_non_null(r.seen);
		pthread_mutex_init(&r.lock, NULL);
		r.deadline = now_s() + DEADLINE_S;

		/* Before any consumer: fill node pn past its ring's capacity, so
		 * that batches must go out (16 slots, 24 items). */
		const uint64_t prefill = 24;
		atomic_store(&r.claimed, prefill + 1);
		pin(cpu_of(r.q, pn, 0));
		struct numaring_worker *w = numaring_worker_attach(r.q);
		assert_non_null(w);
		for (uint64_t i = 1; i <= prefill; i++)
			assert_int_equal(numaring_enqueue(w, (void *)(uintptr_t)i), 0);
		struct numaring_stats st;
		numaring_worker_stats(w, &st, sizeof st);
		numaring_worker_detach(w);
		numaring_stats_add(&r.prod, &st);
		nr_test_unpin();

		for (int i = 0; i < nc; i++) {
			ca[i] = (struct xarg){&r, cpu_of(r.q, cn, i)};
			assert_int_equal(pthread_create(&ct[i], NULL, consumer, &ca[i]), 0);
		}
		for (int i = 0; i < np; i++) {
			pa[i] = (struct xarg){&r, cpu_of(r.q, pn, i)};
			assert_int_equal(pthread_create(&pt[i], NULL, producer, &pa[i]), 0);
		}
		for (int i = 0; i < np; i++)
			pthread_join(pt[i], NULL);
		for (int i = 0; i < nc; i++)
			pthread_join(ct[i], NULL);

		if (atomic_load(&r.failed))
			fail_msg("gate %s: %llu of %llu items consumed when the run stopped (a thread "
				 "could not pin or attach, or nothing moved for %.0f s)",
				 numaring_gate_name((enum numaring_gate)g),
				 (unsigned long long)atomic_load(&r.consumed),
				 (unsigned long long)r.total, DEADLINE_S);
		assert_int_equal(atomic_load(&r.bad), 0);
		assert_int_equal(atomic_load(&r.consumed), r.total);
		for (uint64_t i = 0; i < r.total; i++)
			if (atomic_load(&r.seen[i]) != 1)
				fail_msg("gate %s: item %llu seen %u times",
					 numaring_gate_name((enum numaring_gate)g),
					 (unsigned long long)i + 1, (unsigned)atomic_load(&r.seen[i]));
		assert_int_equal(r.prod.enqueued, r.total);
		assert_int_equal(r.cons.dequeued, r.total);
		uint64_t out = r.prod.batches_out + r.cons.batches_out;
		uint64_t in = r.prod.batches_in + r.cons.batches_in;
		if (out == 0 || r.cons.batches_in == 0)
			fail_msg("gate %s: batches out %llu, batches in by the consumers %llu: both "
				 "must be > 0",
				 numaring_gate_name((enum numaring_gate)g), (unsigned long long)out,
				 (unsigned long long)r.cons.batches_in);
		print_message("gate %-9s: %llu items from node %u (%d producers) to node %u (%d "
			      "consumers), each once; %llu batches out, %llu in\n",
			      numaring_gate_name((enum numaring_gate)g), (unsigned long long)r.total,
			      pn, np, cn, nc, (unsigned long long)out, (unsigned long long)in);
		pthread_mutex_destroy(&r.lock);
		free(r.seen);
		numaring_destroy(r.q);
	}
}

/* An empty local ring: the batch comes from the nearest non-empty node,
 * and only when that one is empty from the next. */
static void steals_from_the_nearest_node(void **state)
{
	(void)state;
	unsigned nodes[NR_MAX_NODES];
	struct numaring *q = make_queue(NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER, 64, 4);
	if (skip_unless_nodes(q, 3, "stealing from the nearest of several nodes")) {
		numaring_destroy(q);
		skip();
	}
	unsigned nn = cpu_nodes(q, nodes), n = numaring_node_count(q);
	/* Choose A, and B nearer to A than C. Prefer a triple where the
	 * rotated tie-break order (A+1, A+2, ...) would pick C first, so that
	 * only the distances can make B come first. */
	int A = -1, B = -1, C = -1, strong = 0;
	for (unsigned i = 0; i < nn; i++)
		for (unsigned j = 0; j < nn; j++)
			for (unsigned k = 0; k < nn; k++) {
				unsigned a = nodes[i], b = nodes[j], c = nodes[k];
				if (a == b || a == c || b == c ||
				    numaring_node_distance(q, a, b) >= numaring_node_distance(q, a, c))
					continue;
				int st = (c + n - a) % n < (b + n - a) % n;
				if (A < 0 || (st && !strong)) {
					A = (int)a, B = (int)b, C = (int)c, strong = st;
				}
			}
	if (A < 0) {
		print_message("SKIP: every node with CPUs is at the same distance from the others: "
			      "nothing to order\n");
		numaring_destroy(q);
		skip();
	}
	print_message("A = node %d; B = node %d at distance %d; C = node %d at distance %d%s\n", A,
		      B, numaring_node_distance(q, (unsigned)A, (unsigned)B), C,
		      numaring_node_distance(q, (unsigned)A, (unsigned)C),
		      strong ? " (C comes first in the tie-break order: only distance puts B first)"
			     : "");

	/* Fill C first, then B: each by a worker pinned there. */
	const unsigned per = 8, batch = 4;
	struct numaring_worker *wc, *wb, *wa;
	pin(cpu_of(q, (unsigned)C, 0));
	wc = numaring_worker_attach(q);
	assert_non_null(wc);
	for (unsigned i = 0; i < per; i++)
		assert_int_equal(numaring_enqueue(wc, (void *)(uintptr_t)(0xC000 + i)), 0);
	pin(cpu_of(q, (unsigned)B, 0));
	wb = numaring_worker_attach(q);
	assert_non_null(wb);
	for (unsigned i = 0; i < per; i++)
		assert_int_equal(numaring_enqueue(wb, (void *)(uintptr_t)(0xB000 + i)), 0);
	assert_int_equal(nr_ring_count(q->rings[B]), per);
	assert_int_equal(nr_ring_count(q->rings[C]), per);

	pin(cpu_of(q, (unsigned)A, 0));
	wa = numaring_worker_attach(q);
	assert_non_null(wa);
	assert_int_equal(numaring_worker_node(wa), A);
	uint64_t before[NR_MAX_NODES] = {0}, after[NR_MAX_NODES] = {0};
	for (unsigned i = 0; i < n; i++)
		before[i] = nr_ring_count(q->rings[i]);
	assert_int_equal(before[A], 0);
	void *item;
	assert_int_equal(numaring_dequeue(wa, &item), 0);
	for (unsigned i = 0; i < n; i++)
		after[i] = nr_ring_count(q->rings[i]);
	if (after[B] != before[B] - batch || after[C] != before[C])
		fail_msg("the first steal of node %d took %llu items from node %d (distance %d) and "
			 "%llu from node %d (distance %d): expected a batch of %u from the nearer node %d",
			 A, (unsigned long long)(before[B] - after[B]), B,
			 numaring_node_distance(q, (unsigned)A, (unsigned)B),
			 (unsigned long long)(before[C] - after[C]), C,
			 numaring_node_distance(q, (unsigned)A, (unsigned)C), batch, B);
	assert_int_equal((uintptr_t)item & 0xF000, 0xB000);
	assert_int_equal(after[A], batch - 1);
	for (unsigned i = 0; i < n; i++)
		if ((int)i != A && (int)i != B)
			assert_int_equal(after[i], before[i]);
	struct numaring_stats st;
	numaring_worker_stats(wa, &st, sizeof st);
	assert_int_equal(st.batches_in, 1);

	/* Drain from A: every item of B before any of C. */
	for (unsigned i = 1; i < 2 * per; i++) {
		assert_int_equal(numaring_dequeue(wa, &item), 0);
		uintptr_t want = i < per ? 0xB000 : 0xC000;
		if (((uintptr_t)item & 0xF000) != want)
			fail_msg("dequeue %u from node %d returned an item of node %s while node %d "
				 "(nearer) %s",
				 i + 1, A, ((uintptr_t)item & 0xF000) == 0xB000 ? "B" : "C", B,
				 i < per ? "still had items" : "was empty");
	}
	assert_int_equal(numaring_dequeue(wa, &item), -ENOENT);
	numaring_worker_stats(wa, &st, sizeof st);
	assert_int_equal(st.batches_in, 2 * per / batch);
	print_message("node %d stole %u batches: all of node %d (distance %d) before node %d "
		      "(distance %d)\n",
		      A, (unsigned)st.batches_in, B, numaring_node_distance(q, (unsigned)A, (unsigned)B),
		      C, numaring_node_distance(q, (unsigned)A, (unsigned)C));
	numaring_worker_detach(wa);
	numaring_worker_detach(wb);
	numaring_worker_detach(wc);
	numaring_destroy(q);
	nr_test_unpin();
}

int main(void)
{
	const char *w = getenv("NUMARING_VM_WRONG");
	vm_wrong = w && *w && strcmp(w, "0") != 0;
	unsetenv("NUMARING_TOPOLOGY"); /* real nodes only */
	if (numa_available() < 0)
		print_message("libnuma: no NUMA support here; the multi-node cases skip\n");
	if (vm_wrong)
		print_message("NUMARING_VM_WRONG is set: one expectation is deliberately wrong and "
			      "this run must FAIL\n");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memory_nodes_are_own_or_nearest),
		cmocka_unit_test(routes_to_the_cpus_node),
		cmocka_unit_test(follows_a_migration),
		cmocka_unit_test(cross_node_batches),
		cmocka_unit_test(steals_from_the_nearest_node),
	};
	return cmocka_run_group_tests_name("vm_routing", tests, NULL, NULL);
}
