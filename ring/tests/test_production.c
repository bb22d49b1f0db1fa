/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_production.c - the production queue as libnumaring builds it (no
 * lab: ring/src without NR_LAB), linked to its test archive
 * (build/test/libnumaring_prod.a). The other white-box tests run the lab's
 * build, whose rseq and cached variants are the same cores behind a jump;
 * this runs production's own entry points (ring/src/ops.c), each test for
 * each of its look-ups, forced through the test hook nr_test_lookup: NONE
 * (a queue with one node of CPUs; forced on the emulated topologies of
 * several), RSEQ (where glibc registered rseq, on an emulated topology,
 * where the key is the CPU) and CACHED. Items are conserved single-threaded and across
 * threads, held items come back first and survive a detach, allocation
 * failures return ENOMEM.
 */
#include "nr_test.h"

#include <errno.h>
#include <stdatomic.h>

#include "nr_internal.h"
#include "nr_lookup.h"

#ifdef NR_LAB
#error "test_production.c tests the production build: build it with -DNR_TEST_PRODUCTION"
#endif

static char topo2[4200], topo3[4200];

/* The look-ups production has that this machine can run: none (a queue
 * with one node of CPUs; forced here on several, where it keeps the node
 * found at attach), rseq and cached. */
static const enum numaring_lookup lookups[] = {NUMARING_LOOKUP_NONE, NUMARING_LOOKUP_RSEQ,
					       NUMARING_LOOKUP_CACHED};

static const char *lookup_name(enum numaring_lookup l)
{
	return l == NUMARING_LOOKUP_NONE ? "none" : l == NUMARING_LOOKUP_RSEQ ? "rseq" : "cached";
}

static int lookup_runs_here(enum numaring_lookup l)
{
	/* forced RSEQ on an emulated topology reads rseq's cpu_id: it needs
	 * glibc's registration only */
	return l != NUMARING_LOOKUP_RSEQ || __rseq_size > 0;
}

static struct numaring *create(size_t capacity, unsigned batch, const char *topology,
			       enum numaring_lookup l)
{
	struct numaring_config cfg;
	numaring_config_init(&cfg);
	cfg.capacity = capacity;
	cfg.batch = batch;
	cfg.topology = topology;
	nr_test_lookup = (int)l;
	nr_test_unpin();
	struct numaring *q = numaring_create(&cfg);
	nr_test_lookup = NUMARING_LOOKUP_AUTO;
	if (!q)
		fail_msg("numaring_create: %s", numaring_last_error());
	assert_int_equal(q->lookup, l);
	return q;
}

/* The queue nodes of q with CPUs. */
static unsigned cpu_nodes(const struct numaring *q)
{
	unsigned k = 0;
	for (unsigned n = 0; n < q->nnodes; n++)
		k += CPU_COUNT(&q->topo.cpus[n]) > 0;
	return k;
}

/* AUTO on a topology: none with one node of CPUs (nothing to look up),
 * else rseq where the kernel keeps node_id there, else cached; never a
 * look-up of the lab's. The machine's own topology, and an emulated one of
 * two nodes where there are two CPUs to put in them. */
static void auto_is_none_on_one_node_else_rseq_or_cached(void **state)
{
	(void)state;
	const char *topologies[] = {NULL, topo2};
	for (size_t t = 0; t < sizeof topologies / sizeof topologies[0]; t++) {
		struct numaring_config cfg;
		numaring_config_init(&cfg);
		cfg.topology = topologies[t];
		nr_test_unpin();
		struct numaring *q = numaring_create(&cfg);
		assert_non_null(q);
		enum numaring_lookup want = cpu_nodes(q) == 1 ? NUMARING_LOOKUP_NONE
					    : nr_rseq_node_ok() ? NUMARING_LOOKUP_RSEQ
								: NUMARING_LOOKUP_CACHED;
		assert_int_equal(q->lookup, want);
		struct numaring_worker *w = numaring_worker_attach(q);
		assert_non_null(w);
		assert_int_equal(w->fixed, want == NUMARING_LOOKUP_NONE);
		assert_int_equal(w->rseq, want == NUMARING_LOOKUP_RSEQ);
		/* the one node's worker routes nowhere and still delivers */
		void *out = NULL;
		assert_int_equal(numaring_enqueue(w, (void *)7), 0);
		assert_int_equal(numaring_dequeue(w, &out), 0);
		assert_ptr_equal(out, (void *)7);
		numaring_worker_detach(w);
		print_message("AUTO on %s (%u node%s with CPUs) is %s\n",
			      topologies[t] ? "an emulated topology" : "this machine", cpu_nodes(q),
			      cpu_nodes(q) == 1 ? "" : "s", lookup_name(want));
		numaring_destroy(q);
	}
}

/* More items than the local ring holds, single and in bursts: batches go
 * to the other nodes and come back, every item exactly once. */
static void items_cross_nodes_and_come_back(void **state)
{
	(void)state;
	enum { N = 200 };
	for (size_t k = 0; k < sizeof lookups / sizeof lookups[0]; k++) {
		if (!lookup_runs_here(lookups[k]))
			continue;
		struct numaring *q = create(32, 4, topo3, lookups[k]);
		struct numaring_worker *w = numaring_worker_attach(q);
		assert_non_null(w);
		assert_int_equal(w->rseq, lookups[k] == NUMARING_LOOKUP_RSEQ);
		assert_int_equal(w->fixed, lookups[k] == NUMARING_LOOKUP_NONE);
		unsigned cap = 32 * numaring_node_count(q);
		unsigned n = N < cap ? N : cap;
		for (uintptr_t i = 0; i < n / 2; i++)
			assert_int_equal(numaring_enqueue(w, (void *)(i + 1)), 0);
		void *items[10];
		uintptr_t next = n / 2 + 1;
		while (next <= n) {
			unsigned m = 0;
			while (m < 10 && next <= n)
				items[m++] = (void *)next++;
			assert_int_equal(numaring_enqueue_burst(w, items, m), m);
		}
		/* every ring is full now if n == cap: one more is refused */
		if (n == cap)
			assert_int_equal(numaring_enqueue(w, (void *)0), -ENOBUFS);
		unsigned char seen[N + 1] = {0};
		unsigned got = 0, m;
		void *it;
		while (got < n / 2 && numaring_dequeue(w, &it) == 0) {
			assert_true((uintptr_t)it >= 1 && (uintptr_t)it <= n);
			assert_int_equal(seen[(uintptr_t)it]++, 0);
			got++;
		}
		while ((m = numaring_dequeue_burst(w, items, 10)) > 0)
			for (unsigned i = 0; i < m; i++, got++) {
				assert_true((uintptr_t)items[i] >= 1 && (uintptr_t)items[i] <= n);
				assert_int_equal(seen[(uintptr_t)items[i]]++, 0);
			}
		assert_int_equal(got, n);
		assert_int_equal(numaring_dequeue(w, &it), -ENOENT);
		struct numaring_stats st;
		numaring_worker_stats(w, &st, sizeof st);
		assert_int_equal(st.enqueued, n);
		assert_int_equal(st.dequeued, n);
		assert_true(st.batches_out > 0);
		assert_true(st.batches_in > 0);
		numaring_worker_detach(w);
		numaring_destroy(q);
	}
}

/* Held items go back first on enqueue, come out first on dequeue, and
 * become orphans (never lost) when a worker detaches with every ring full. */
static void held_items_first_and_never_lost(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof lookups / sizeof lookups[0]; k++) {
		if (!lookup_runs_here(lookups[k]))
			continue;
		struct numaring *q = create(4, 4, topo2, lookups[k]);
		unsigned nodes = numaring_node_count(q);
		struct numaring_worker *a = numaring_worker_attach(q);
		struct numaring_worker *b = numaring_worker_attach(q);
		void *out[8];
		a->pending[0] = (void *)7;
		a->npending = 1;
		assert_int_equal(numaring_enqueue(a, (void *)8), 0);
		assert_int_equal(a->npending, 0);
		a->pending[0] = (void *)9;
		a->npending = 1;
		assert_int_equal(numaring_dequeue_burst(a, out, 8), 3); /* held item first */
		assert_ptr_equal(out[0], (void *)9);
		assert_int_equal(numaring_dequeue_burst(a, out, 8), 0);

		a->pending[0] = (void *)1001;
		a->pending[1] = NULL;
		a->npending = 2;
		unsigned filled = 0;
		while (numaring_enqueue(b, (void *)(uintptr_t)(filled + 1)) == 0)
			filled++;
		assert_int_equal(filled, 4 * nodes);
		numaring_worker_detach(a); /* no room anywhere: orphans */
		assert_int_equal(atomic_load(&q->orphan_count), 2);
		unsigned total = 0, got1001 = 0, gotnull = 0;
		void *it;
		while (numaring_dequeue(b, &it) == 0) {
			total++;
			got1001 += it == (void *)1001;
			gotnull += it == NULL;
		}
		assert_int_equal(total, filled + 2);
		assert_int_equal(got1001, 1);
		assert_int_equal(gotnull, 1);
		numaring_worker_detach(b);
		numaring_destroy(q);
	}
}

static int fail_at, alloc_calls;
static int fail_nth(size_t size)
{
	(void)size;
	return ++alloc_calls == fail_at;
}

/* Each allocation of create + attach fails in turn: ENOMEM, nothing leaked
 * (the ASan build checks), and production allocates no lab gates. */
static void allocation_failure_returns_enomem(void **state)
{
	(void)state;
	struct numaring_config cfg;
	numaring_config_init(&cfg);
	cfg.topology = topo3;
	int failures = 0;
	nr_test_unpin();
	for (fail_at = 1; fail_at < 50; fail_at++) {
		alloc_calls = 0;
		nr_fault_alloc = fail_nth;
		errno = 0;
		struct numaring *q = numaring_create(&cfg);
		struct numaring_worker *w = q ? numaring_worker_attach(q) : NULL;
		nr_fault_alloc = NULL;
		if (alloc_calls < fail_at) {
			assert_non_null(q);
			assert_non_null(w);
			numaring_worker_detach(w);
			numaring_destroy(q);
			break;
		}
		failures++;
		assert_int_equal(errno, ENOMEM);
		assert_non_null(strstr(numaring_last_error(), "out of memory"));
		if (q)
			numaring_destroy(q);
	}
	assert_true(failures >= 4); /* topology, queue, rings, worker, orphans */
	print_message("allocation failure injected at each of the %d allocations of create + "
		      "attach: ENOMEM every time\n",
		      failures);
}

/* ---- threads: producers and consumers on two nodes, items conserved ---- */

enum { PRODUCERS = 2, CONSUMERS = 2 };

struct run {
	struct numaring *q;
	unsigned per_producer;
	_Atomic unsigned long long sum_in, sum_out;
	_Atomic unsigned consumed, producers_done;
	unsigned total;
};

struct arg {
	struct run *r;
	unsigned id;
};

static void *producer(void *p)
{
	struct arg *a = p;
	struct run *r = a->r;
	struct numaring_worker *w = numaring_worker_attach(r->q);
	unsigned long long sum = 0;
	uintptr_t base = (uintptr_t)a->id * r->per_producer + 1;
	if (nr_test_ncpus() > 1)
		nr_test_pin(nr_test_cpu((int)a->id % nr_test_ncpus()));
	for (unsigned i = 0; i < r->per_producer;) {
		void *items[8];
		unsigned m = (i & 1) ? 8 : 1;
		if (m > r->per_producer - i)
			m = r->per_producer - i;
		for (unsigned k = 0; k < m; k++)
			items[k] = (void *)(base + i + k);
		unsigned done = m == 1 ? (numaring_enqueue(w, items[0]) == 0)
				       : numaring_enqueue_burst(w, items, m);
		for (unsigned k = 0; k < done; k++)
			sum += (uintptr_t)items[k];
		i += done;
		if (done < m)
			sched_yield(); /* full everywhere: let a consumer run */
	}
	atomic_fetch_add(&r->sum_in, sum);
	atomic_fetch_add(&r->producers_done, 1);
	numaring_worker_detach(w);
	return NULL;
}

static void *consumer(void *p)
{
	struct arg *a = p;
	struct run *r = a->r;
	struct numaring_worker *w = numaring_worker_attach(r->q);
	unsigned long long sum = 0;
	unsigned n = 0;
	if (nr_test_ncpus() > 1)
		nr_test_pin(nr_test_cpu((int)a->id % nr_test_ncpus()));
	while (atomic_load(&r->consumed) < r->total) {
		void *items[8];
		unsigned got = (n & 1) ? numaring_dequeue_burst(w, items, 8)
				       : (numaring_dequeue(w, &items[0]) == 0);
		for (unsigned k = 0; k < got; k++)
			sum += (uintptr_t)items[k];
		n++;
		if (got)
			atomic_fetch_add(&r->consumed, got);
		else
			sched_yield();
	}
	atomic_fetch_add(&r->sum_out, sum);
	numaring_worker_detach(w);
	return NULL;
}

static void threads_conserve_items(void **state)
{
	(void)state;
	unsigned per = NR_UNDER_SANITIZER ? 20000 : 100000;
	for (size_t k = 0; k < sizeof lookups / sizeof lookups[0]; k++) {
		if (!lookup_runs_here(lookups[k]))
			continue;
		struct run r = {0};
		r.q = create(16, 4, topo2, lookups[k]);
		r.per_producer = per;
		r.total = PRODUCERS * per;
		pthread_t t[PRODUCERS + CONSUMERS];
		struct arg args[PRODUCERS + CONSUMERS];
		for (unsigned i = 0; i < PRODUCERS + CONSUMERS; i++) {
			args[i].r = &r;
			args[i].id = i;
			assert_int_equal(pthread_create(&t[i], NULL,
							i < PRODUCERS ? producer : consumer,
							&args[i]),
					 0);
		}
		for (unsigned i = 0; i < PRODUCERS + CONSUMERS; i++)
			pthread_join(t[i], NULL);
		unsigned long long want = (unsigned long long)r.total * (r.total + 1) / 2;
		assert_int_equal(atomic_load(&r.consumed), r.total);
		assert_int_equal(atomic_load(&r.sum_in), want);
		assert_int_equal(atomic_load(&r.sum_out), want);
		numaring_destroy(r.q);
		print_message("%s: %u items through %u producers and %u consumers, sums equal\n",
			      lookup_name(lookups[k]), r.total,
			      PRODUCERS, CONSUMERS);
	}
}

int main(void)
{
	nr_test_allowed();
	nr_test_topology(topo2, sizeof topo2, 2, 0);
	nr_test_topology(topo3, sizeof topo3, 2, 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(auto_is_none_on_one_node_else_rseq_or_cached),
	    cmocka_unit_test(items_cross_nodes_and_come_back),
	    cmocka_unit_test(held_items_first_and_never_lost),
	    cmocka_unit_test(allocation_failure_returns_enomem),
	    cmocka_unit_test(threads_conserve_items),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
