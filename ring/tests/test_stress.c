/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stress.c - exactly-once delivery under concurrency.
 *
 * Producers enqueue the numbers 0..total-1 (0 is NULL), consumers count
 * every number they get; at the end each number must have been seen exactly
 * once, the workers' counters must add up, and so must the paths each
 * dequeue says its items came by (numaring_dequeue_paths). Runs every
 * lookup x gate x backoff combination, emulated 2- and 3-node topologies,
 * capacities down to 2, batch 1 and batch = capacity, single and burst
 * operations mixed, more threads than CPUs, and a thread that keeps moving
 * the workers between CPUs. NUMARING_STRESS_SCALE multiplies the item counts (default 1).
 */
#include "nr_test.h"
#include "nr_backoff.h" /* nr_fault_yields in the fault-injection build */

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#define MAX_THREADS 16
#define BURST 8

struct stress_cfg {
	const char *name;
	const char *topology; /* NULL: the machine's */
	size_t capacity;
	unsigned batch;
	enum numaring_lookup lookup;
	enum numaring_gate gate;
	enum numaring_backoff backoff;
	int producers, consumers;
	uint64_t items_per_producer;
	int burst;   /* 1: mix burst operations with single ones */
	int migrate; /* 1: a thread moves the workers between CPUs; 2: once a third
	                of the items went through, the last allowed CPU is taken
	                out of every thread's allowed set (as taskset or a cpuset
	                change would) for the rest of the run */
	int churn;   /* 1: workers detach and attach again every few hundred operations */
	int abandon; /* 1: consumers but the first exit early without detaching; the
	                main thread detaches their workers (handles handed over) */
	unsigned pause_spin, exp_cap; /* the lab's spin lengths (0: production) */
};

struct run {
	const struct stress_cfg *c;
	struct numaring *q;
	uint64_t total;
	_Atomic uint8_t *seen;
	_Atomic uint64_t consumed;
	_Atomic uint64_t bad;  /* out-of-range or duplicate items */
	_Atomic uint64_t paths[NUMARING_PATH_COUNT_]; /* consumed items by path */
	_Atomic uint64_t path_bad; /* dequeues whose paths were refused or did not add up */
	_Atomic int stop;
	_Atomic int shrunk;    /* migrate 2: the CPU was taken away */
	pthread_mutex_t lock;
	struct numaring_stats sum;
	int next_producer, next_consumer;
	struct numaring_worker *_Atomic abandoned[MAX_THREADS]; /* by consumer index */
};

/* churn: now and then, give the worker back and take a new one */
static struct numaring_worker *maybe_churn(struct run *r, struct numaring_worker *w,
					   unsigned *left, unsigned rnd)
{
	if (!r->c->churn || --*left)
		return w;
	*left = 100 + rnd % 900;
	struct numaring_stats st;
	numaring_worker_stats(w, &st, sizeof st);
	pthread_mutex_lock(&r->lock);
	numaring_stats_add(&r->sum, &st);
	pthread_mutex_unlock(&r->lock);
	numaring_worker_detach(w);
	w = numaring_worker_attach(r->q);
	if (!w)
		abort(); /* out of memory in a test: nothing sensible to do */
	return w;
}

static double scale = 1.0;
static struct {
	uint64_t items, batches, node_changes, failed;
} totals;
static char topo2[256], topo3[256], topo3d[300];

static void add_stats(struct run *r, struct numaring_worker *w)
{
	struct numaring_stats st;
	numaring_worker_stats(w, &st, sizeof st);
	pthread_mutex_lock(&r->lock);
	numaring_stats_add(&r->sum, &st);
	pthread_mutex_unlock(&r->lock);
}

static int take_id(struct run *r, int *counter)
{
	pthread_mutex_lock(&r->lock);
	int id = (*counter)++;
	pthread_mutex_unlock(&r->lock);
	return id;
}

static void *producer(void *arg)
{
	struct run *r = arg;
	const struct stress_cfg *c = r->c;
	struct numaring_worker *w = numaring_worker_attach(r->q);
	if (!w) {
		atomic_fetch_add(&r->bad, 1);
		return NULL;
	}
	uint64_t id = (uint64_t)take_id(r, &r->next_producer), n = c->items_per_producer;
	uint64_t base = id * n, i = 0;
	unsigned rnd = (unsigned)id * 2654435761u + 1, churn_left = 500;
	while (i < n) {
		rnd = rnd * 1103515245u + 12345u;
		w = maybe_churn(r, w, &churn_left, rnd >> 8);
		/* migrate 2: half the items wait until the CPU is gone, so that
		 * it leaves mid-run however fast the first half went */
		while (c->migrate == 2 && i >= n / 2 && !atomic_load(&r->shrunk))
			sched_yield();
		if (c->burst && (rnd >> 16) % 3 == 0) {
			void *items[BURST];
			unsigned k = 1 + (rnd >> 8) % BURST;
			if (k > n - i)
				k = (unsigned)(n - i);
			for (unsigned j = 0; j < k; j++)
				items[j] = (void *)(uintptr_t)(base + i + j);
			unsigned put = numaring_enqueue_burst(w, items, k);
			i += put;
			if (put < k)
				sched_yield();
		} else if (numaring_enqueue(w, (void *)(uintptr_t)(base + i)) == 0) {
			i++;
		} else {
			sched_yield(); /* -ENOBUFS: every ring full, let consumers run */
		}
	}
	add_stats(r, w);
	numaring_worker_detach(w);
	return NULL;
}

static void count_item(struct run *r, void *item)
{
	uintptr_t v = (uintptr_t)item;
	if (v >= r->total || atomic_fetch_add(&r->seen[v], 1) != 0)
		atomic_fetch_add(&r->bad, 1);
	atomic_fetch_add(&r->consumed, 1);
}

/* The paths of the got items of w's last dequeue (numaring_dequeue_paths),
 * added up: they must add up to got, and over the run to every item. */
static void count_paths(struct run *r, struct numaring_worker *w, unsigned got)
{
	struct numaring_paths p;
	unsigned sum = 0;
	if (numaring_dequeue_paths(w, got, &p) != 0) {
		atomic_fetch_add(&r->path_bad, 1);
		return;
	}
	for (int k = 0; k < NUMARING_PATH_COUNT_; k++) {
		sum += p.count[k];
		atomic_fetch_add(&r->paths[k], p.count[k]);
	}
	if (sum != got)
		atomic_fetch_add(&r->path_bad, 1);
}

static void *consumer(void *arg)
{
	struct run *r = arg;
	const struct stress_cfg *c = r->c;
	struct numaring_worker *w = numaring_worker_attach(r->q);
	if (!w) {
		atomic_fetch_add(&r->bad, 1);
		return NULL;
	}
	int me = take_id(r, &r->next_consumer);
	unsigned rnd = (unsigned)me * 7919u + 3, churn_left = 300;
	/* abandon: every consumer but the first stops after a while, as if killed
	 * between operations, keeping its worker (and any items it holds) */
	uint64_t quit_after = c->abandon && me > 0 ? 500 + (uint64_t)me * 777 : UINT64_MAX;
	uint64_t mine = 0;
	while (atomic_load(&r->consumed) < r->total) {
		rnd = rnd * 1103515245u + 12345u;
		w = maybe_churn(r, w, &churn_left, rnd >> 8);
		if (mine >= quit_after) {
			add_stats(r, w);
			atomic_store(&r->abandoned[me], w);
			return NULL;
		}
		if (c->burst && (rnd >> 16) % 3 == 0) {
			void *items[BURST];
			unsigned got = numaring_dequeue_burst(w, items, 1 + (rnd >> 8) % BURST);
			if (got)
				count_paths(r, w, got);
			for (unsigned j = 0; j < got; j++)
				count_item(r, items[j]);
			mine += got;
			if (got == 0)
				sched_yield();
		} else {
			void *item;
			if (numaring_dequeue(w, &item) == 0) {
				count_paths(r, w, 1);
				count_item(r, item);
				mine++;
			} else {
				sched_yield();
			}
		}
	}
	add_stats(r, w);
	numaring_worker_detach(w);
	return NULL;
}

struct migrator_arg {
	struct run *r;
	pthread_t *threads;
	int nthreads;
};

/* Move worker threads between the allowed CPUs, or unpin them, until told
 * to stop. Threads that have finished answer ESRCH, which is fine. */
static void *migrator(void *arg)
{
	struct migrator_arg *m = arg;
	int ncpu = nr_test_ncpus();
	unsigned rnd = 12345;
	if (m->r->c->migrate == 2) {
		/* wait for a third of the run, then remove the last CPU */
		while (!atomic_load(&m->r->stop) &&
		       atomic_load(&m->r->consumed) < m->r->total / 3) {
			struct timespec ts = {0, 200000};
			nanosleep(&ts, NULL);
		}
		cpu_set_t less = *nr_test_allowed();
		CPU_CLR(nr_test_cpu(ncpu - 1), &less);
		for (int t = 0; t < m->nthreads; t++)
			pthread_setaffinity_np(m->threads[t], sizeof less, &less);
		atomic_store(&m->r->shrunk, 1);
		return NULL;
	}
	while (!atomic_load(&m->r->stop)) {
		rnd = rnd * 1103515245u + 12345u;
		int t = (int)((rnd >> 8) % (unsigned)m->nthreads);
		cpu_set_t s;
		CPU_ZERO(&s);
		if ((rnd >> 20) % 4 == 0) {
			s = *nr_test_allowed(); /* unpin */
		} else {
			CPU_SET(nr_test_cpu((int)((rnd >> 12) % (unsigned)ncpu)), &s);
		}
		pthread_setaffinity_np(m->threads[t], sizeof s, &s);
		struct timespec ts = {0, 50000 + (long)((rnd >> 4) % 200000)};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One run of c; *sum (if not NULL) gets the workers' counters added up,
 * *wall_s (if not NULL) how long the threads ran. */
static void stress_stats(const struct stress_cfg *c, struct numaring_stats *sum, double *wall_s)
{
	struct run r;
	pthread_t th[MAX_THREADS], mig;
	struct migrator_arg marg;
	int nth = c->producers + c->consumers;
	assert_true(nth <= MAX_THREADS);

	memset(&r, 0, sizeof r);
	r.c = c;
	pthread_mutex_init(&r.lock, NULL);
	r.total = (uint64_t)((double)c->items_per_producer * scale) * (uint64_t)c->producers;
	struct stress_cfg scaled = *c;
	scaled.items_per_producer = (uint64_t)((double)c->items_per_producer * scale);
	r.c = &scaled;
	r.seen = calloc(r.total, 1);
	assert_non_null(r.seen);
	r.q = nr_test_create_spin(c->capacity, c->batch, c->lookup, c->gate, c->backoff,
				  c->topology, c->pause_spin, c->exp_cap);
	unsigned spin, cap;
	numaring_spin_in_force(r.q, &spin, &cap);
	assert_int_equal(spin, c->pause_spin ? c->pause_spin : NUMARING_PAUSE_SPIN);
	assert_int_equal(cap, c->exp_cap ? c->exp_cap : NUMARING_EXP_MAX_SPIN);

	for (int i = 0; i < nth; i++)
		assert_int_equal(pthread_create(&th[i], NULL,
						i < c->producers ? producer : consumer, &r),
				 0);
	if (c->migrate) {
		marg.r = &r;
		marg.threads = th;
		marg.nthreads = nth;
		assert_int_equal(pthread_create(&mig, NULL, migrator, &marg), 0);
	}
	/* Watchdog: a lost item would leave consumers waiting forever. */
	double t0 = now_s(), limit = 300.0;
	int reaped[MAX_THREADS] = {0};
	while (atomic_load(&r.consumed) < r.total && atomic_load(&r.bad) == 0) {
		for (int k = 0; k < c->consumers; k++) {
			struct numaring_worker *aw = atomic_load(&r.abandoned[k]);
			if (aw && !reaped[k]) { /* its thread is gone: hand the worker over */
				numaring_worker_detach(aw);
				reaped[k] = 1;
			}
		}
		if (now_s() - t0 > limit) {
			fprintf(stderr,
				"stress %s: no progress: %llu of %llu items consumed after %.0f s\n",
				c->name, (unsigned long long)atomic_load(&r.consumed),
				(unsigned long long)r.total, limit);
			abort();
		}
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	atomic_store(&r.stop, 1);
	if (c->migrate)
		pthread_join(mig, NULL);
	if (c->migrate == 2)
		assert_int_equal(atomic_load(&r.shrunk), 1);
	if (atomic_load(&r.bad) != 0) {
		/* consumers may be stuck short of total; report and stop here */
		fprintf(stderr, "stress %s: %llu bad items (duplicate or out of range)\n", c->name,
			(unsigned long long)atomic_load(&r.bad));
		abort();
	}
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (wall_s)
		*wall_s = now_s() - t0;
	for (int k = 0; k < c->consumers; k++) {
		struct numaring_worker *aw = atomic_load(&r.abandoned[k]);
		if (aw && !reaped[k])
			numaring_worker_detach(aw);
	}

	uint64_t missing = 0;
	for (uint64_t v = 0; v < r.total; v++)
		if (atomic_load(&r.seen[v]) != 1)
			missing++;
	if (missing)
		fail_msg("stress %s: %llu items not delivered exactly once", c->name,
			 (unsigned long long)missing);
	assert_int_equal(r.sum.enqueued, r.total);
	assert_int_equal(r.sum.dequeued, r.total);
	assert_int_equal(atomic_load(&r.consumed), r.total);
	/* several rings and rings far smaller than the run: batches must move */
	if (numaring_node_count(r.q) > 1)
		assert_true(r.sum.batches_in + r.sum.batches_out > 0);
	/* every item consumed came by one path; a batch taken in (only consumers
	 * take one) hands at least one item out at once, at most all of it */
	assert_int_equal(atomic_load(&r.path_bad), 0);
	assert_int_equal(atomic_load(&r.paths[NUMARING_PATH_LOCAL]) +
				 atomic_load(&r.paths[NUMARING_PATH_TRANSFER]) +
				 atomic_load(&r.paths[NUMARING_PATH_HELD]),
			 r.total);
	assert_true(atomic_load(&r.paths[NUMARING_PATH_TRANSFER]) >= r.sum.batches_in);
	assert_true(atomic_load(&r.paths[NUMARING_PATH_TRANSFER]) <= r.sum.items_in);
	totals.items += r.total;
	totals.batches += r.sum.batches_in + r.sum.batches_out;
	totals.node_changes += r.sum.node_changes;
	totals.failed += r.sum.failed_attempts;
	if (sum)
		*sum = r.sum;
	numaring_destroy(r.q);
	free(r.seen);
	pthread_mutex_destroy(&r.lock);
}

static void stress(const struct stress_cfg *c)
{
	stress_stats(c, NULL, NULL);
}

/* Every lookup x gate x backoff on two emulated nodes, tiny rings, mixed
 * operations, migrating threads. */
static void every_combination(void **state)
{
	(void)state;
	char name[96];
	int runs = 0;
	for (int l = 0; l < NUMARING_LOOKUP_COUNT_; l++)
		for (int g = 0; g < NUMARING_GATE_COUNT_; g++)
			for (int b = 0; b < NUMARING_BACKOFF_COUNT_; b++) {
				snprintf(name, sizeof name, "%s/%s/%s", numaring_lookup_name(l),
					 numaring_gate_name(g), numaring_backoff_name(b));
				struct stress_cfg c = {
					.name = name, .topology = topo2, .capacity = 4, .batch = 2,
					.lookup = (enum numaring_lookup)l,
					.gate = (enum numaring_gate)g,
					.backoff = (enum numaring_backoff)b, .producers = 2,
					.consumers = 2, .items_per_producer = 5000, .burst = 1,
					.migrate = 1};
				stress(&c);
				runs++;
			}
	print_message("%d combinations, each %d items delivered exactly once\n", runs,
		      (int)(2 * 5000 * scale));
}

static void capacity_two_batch_one_three_nodes(void **state)
{
	(void)state;
	struct stress_cfg c = {"cap2-batch1-3nodes", topo3, 2, 1, NUMARING_LOOKUP_CACHED,
			       NUMARING_GATE_PERWORKER, NUMARING_BACKOFF_NONE, 3, 3, 60000, 0, 1};
	stress(&c);
}

static void batch_equals_capacity(void **state)
{
	(void)state;
	struct stress_cfg c = {"batch=cap", topo2, 8, 8, NUMARING_LOOKUP_TABLE,
			       NUMARING_GATE_PERNODE, NUMARING_BACKOFF_EXP, 2, 2, 60000, 1, 1};
	stress(&c);
	struct stress_cfg c2 = {"batch=cap=2", topo3d, 2, 2, NUMARING_LOOKUP_RSEQ,
				NUMARING_GATE_PERWORKER, NUMARING_BACKOFF_PAUSE, 2, 2, 60000, 1, 1};
	stress(&c2);
}

static void more_threads_than_cpus(void **state)
{
	(void)state;
	struct stress_cfg c = {"4p4c-shared", topo2, 16, 4, NUMARING_LOOKUP_CACHED,
			       NUMARING_GATE_SHARED, NUMARING_BACKOFF_NONE, 4, 4, 30000, 1, 1};
	stress(&c);
	struct stress_cfg c2 = {"6p2c-3nodes", topo3d, 8, 3, NUMARING_LOOKUP_TABLE,
				NUMARING_GATE_PERWORKER, NUMARING_BACKOFF_YIELD, 6, 2, 15000, 1, 1};
	stress(&c2);
	struct stress_cfg c3 = {"1p6c", topo2, 4, 2, NUMARING_LOOKUP_RDPID,
				NUMARING_GATE_PERNODE, NUMARING_BACKOFF_EXP, 1, 6, 90000, 1, 1};
	stress(&c3);
}

static void machine_topology(void **state)
{
	(void)state;
	struct stress_cfg c = {"real-4p4c", NULL, 64, 8, NUMARING_LOOKUP_CACHED,
			       NUMARING_GATE_PERWORKER, NUMARING_BACKOFF_NONE, 4, 4, 60000, 1, 1};
	stress(&c);
	struct stress_cfg c2 = {"real-2p2c-libnuma", NULL, 2, 1, NUMARING_LOOKUP_LIBNUMA,
				NUMARING_GATE_SHARED, NUMARING_BACKOFF_PAUSE, 2, 2, 30000, 1, 0};
	stress(&c2);
}

/* A CPU leaves the allowed set mid-run: its workers are moved to the
 * remaining CPUs (another node when emulated nodes have one CPU each); every
 * item is still delivered once, and the workers re-route. */
static void cpu_removed_from_the_allowed_set_while_running(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	static const enum numaring_lookup lookups[] = {NUMARING_LOOKUP_CACHED,
						       NUMARING_LOOKUP_RSEQ,
						       NUMARING_LOOKUP_SYSCALL};
	for (unsigned k = 0; k < sizeof lookups / sizeof lookups[0]; k++) {
		char name[64];
		snprintf(name, sizeof name, "cpu-removed/%s", numaring_lookup_name(lookups[k]));
		struct stress_cfg c = {name, topo2, 8, 4, lookups[k], NUMARING_GATE_PERNODE,
				       NUMARING_BACKOFF_NONE, 2, 2, 60000, 1, 2};
		stress(&c);
	}
}

static void workers_detach_and_attach_while_others_run(void **state)
{
	(void)state;
	struct stress_cfg c = {"churn-2nodes", topo2, 8, 4, NUMARING_LOOKUP_CACHED,
			       NUMARING_GATE_PERWORKER, NUMARING_BACKOFF_NONE, 3, 3, 30000, 1, 1, 1, 0};
	stress(&c);
	struct stress_cfg c2 = {"churn-3nodes-shared", topo3d, 4, 2, NUMARING_LOOKUP_RSEQ,
				NUMARING_GATE_SHARED, NUMARING_BACKOFF_EXP, 2, 4, 30000, 1, 1, 1, 0};
	stress(&c2);
}

static void consumers_that_vanish_leave_no_item_behind(void **state)
{
	(void)state;
	struct stress_cfg c = {"abandon", topo3d, 4, 4, NUMARING_LOOKUP_TABLE,
			       NUMARING_GATE_PERNODE, NUMARING_BACKOFF_NONE, 2, 4, 20000, 1, 1, 0, 1};
	stress(&c);
}

/* The shortest spins the lab allows: a cap of one PAUSE and a fixed spin of
 * one still deliver every item exactly once (the backoff only delays). */
static void tiny_spins_deliver_exactly(void **state)
{
	(void)state;
	struct stress_cfg c = {"exp-cap1", topo2, 4, 2, NUMARING_LOOKUP_CACHED,
			       NUMARING_GATE_SHARED, NUMARING_BACKOFF_EXP, 2, 2, 30000, 1, 1};
	c.exp_cap = 1;
	stress(&c);
	struct stress_cfg c2 = {"pause-spin1-exp-cap2", topo3d, 4, 2, NUMARING_LOOKUP_RSEQ,
				NUMARING_GATE_PERNODE, NUMARING_BACKOFF_PAUSE, 2, 2, 30000, 1, 1};
	c2.pause_spin = 1;
	c2.exp_cap = 2;
	stress(&c2);
}

/*
 * The backoff's counters count (issue 21): with EXP, 4 threads on 2
 * emulated nodes, rings of 4 and one gate for all, workers lose races and
 * find the gate held; every gate wait runs at least one backoff before its
 * spinning budget, and one backoff in 16 is timed, so rounds run until 400
 * of each were seen ((15/16)^400 < 10^-11: some were timed), for at most a
 * minute. The time is
 * positive and below 16 times the threads' running time (a timed backoff
 * lies within its thread's run, and counts 16 times). With NONE, nothing is
 * run, counted as a gate backoff or timed, whatever races and waits occur.
 */
static void backoff_counters_count(void **state)
{
	(void)state;
	enum { NEED = 400 };
	const double limit_s = 60.0; /* rounds until then (NUMARING_STRESS_SCALE sizes each) */
	if (nr_test_ncpus() < 2)
		skip(); /* one node: no gate to wait for */
	struct stress_cfg c = {"exp-counters", topo2, 4, 2, NUMARING_LOOKUP_CACHED,
			       NUMARING_GATE_SHARED, NUMARING_BACKOFF_EXP, 2, 2, 20000, 1, 1};
	struct numaring_stats all, st;
	double wall = 0, w, t0 = now_s();
	int rounds = 0;
	memset(&all, 0, sizeof all);
	while ((all.failed_attempts < NEED || all.gate_waits < NEED) && now_s() - t0 < limit_s) {
		stress_stats(&c, &st, &w);
		assert_true(st.gate_backoffs >= st.gate_waits);
		numaring_stats_add(&all, &st);
		wall += w;
		rounds++;
	}
	print_message("exp: %d rounds, %llu lost races (%.0f ns of backoff each), %llu gate waits, "
		      "%llu gate backoffs (%.0f ns each)\n",
		      rounds, (unsigned long long)all.failed_attempts,
		      (double)all.backoff_ns_race / (double)(all.failed_attempts + !all.failed_attempts),
		      (unsigned long long)all.gate_waits, (unsigned long long)all.gate_backoffs,
		      (double)all.backoff_ns_gate / (double)(all.gate_backoffs + !all.gate_backoffs));
	if (all.failed_attempts < NEED || all.gate_waits < NEED)
		fail_msg("after %d rounds: %llu lost races, %llu gate waits (want %d of each): "
			 "the counters were not exercised",
			 rounds, (unsigned long long)all.failed_attempts,
			 (unsigned long long)all.gate_waits, NEED);
	assert_true(all.gate_backoffs >= all.gate_waits);
	assert_true(all.backoff_ns_race > 0);
	assert_true(all.backoff_ns_gate > 0);
	double bound = 16.0 * (c.producers + c.consumers) * wall * 1e9;
	assert_true((double)(all.backoff_ns_race + all.backoff_ns_gate) <= bound);

	c.name = "none-counters";
	c.backoff = NUMARING_BACKOFF_NONE;
	memset(&all, 0, sizeof all);
	for (rounds = 0; rounds < 4; rounds++) {
		stress_stats(&c, &st, NULL);
		numaring_stats_add(&all, &st);
	}
	print_message("none: %llu lost races, %llu gate waits, no backoff run or timed\n",
		      (unsigned long long)all.failed_attempts,
		      (unsigned long long)all.gate_waits);
	assert_int_equal(all.gate_backoffs, 0);
	assert_int_equal(all.backoff_ns_race, 0);
	assert_int_equal(all.backoff_ns_gate, 0);
}

int main(void)
{
	const char *s = getenv("NUMARING_STRESS_SCALE");
	if (s && *s) {
		char *end;
		scale = strtod(s, &end);
		if (*end || !(scale > 0) || scale > 1e6) {
			fprintf(stderr, "NUMARING_STRESS_SCALE=\"%s\": expected a number above 0\n", s);
			return 2;
		}
	}
	nr_test_allowed();
	nr_test_topology(topo2, sizeof topo2, 2, 0);
	nr_test_topology(topo3, sizeof topo3, 2, 1);
	snprintf(topo3d, sizeof topo3d, "%s|10,22,16,22,10,16,16,16,10", topo3);
	if (strchr(topo2, ';') == NULL) /* one CPU: the 3-node one cannot have a matrix for 2 */
		snprintf(topo3d, sizeof topo3d, "%s", topo3);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_combination),
		cmocka_unit_test(capacity_two_batch_one_three_nodes),
		cmocka_unit_test(batch_equals_capacity),
		cmocka_unit_test(more_threads_than_cpus),
		cmocka_unit_test(machine_topology),
		cmocka_unit_test(cpu_removed_from_the_allowed_set_while_running),
		cmocka_unit_test(workers_detach_and_attach_while_others_run),
		cmocka_unit_test(consumers_that_vanish_leave_no_item_behind),
		cmocka_unit_test(tiny_spins_deliver_exactly),
		cmocka_unit_test(backoff_counters_count),
	};
	int rc = cmocka_run_group_tests_name("stress", tests, NULL, NULL);
	printf("stress totals: %llu items delivered exactly once, %llu cross-node batches, "
	       "%llu node changes seen, %llu failed attempts retried\n",
	       (unsigned long long)totals.items, (unsigned long long)totals.batches,
	       (unsigned long long)totals.node_changes, (unsigned long long)totals.failed);
#ifdef NR_FAULT_INJECT
	printf("fault injection: %lu preemptions (sched_yield) injected at the fault points\n",
	       (unsigned long)atomic_load(&nr_fault_yields));
#endif
	return rc;
}
