/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_peers.c - every adapter of harness/peers/ (hq_all[]) against the
 * contract of harness/queue.h:
 *
 *   registry    hq_all[] lists the adapters in order (the fault adapters of
 *               test_bench.c last, and not run here); hq_find finds each.
 *   single/X    one thread: a bounded queue holds exactly its capacity (ck:
 *               capacity - 1, see peers/ck.c; numaring: split among its rings), a
 *               further enqueue fails, a burst into the last 3 free slots
 *               takes 3, items come out once each and in FIFO order (when
 *               there is one ring; a k-relaxed queue's fewer than k places
 *               from it), NULL travels, dequeue on empty returns
 *               nonzero. An unbounded queue takes 16 x capacity. faa: every
 *               operation succeeds and dequeue gives NULL. A queue that
 *               takes message items only runs with --item message's
 *               params and pointer-like values (non-NULL, below 2^47): its
 *               enqueue refuses NULL and a value with bit 63 or bit 47 set
 *               as a failed operation (no C++ exception escapes), and its
 *               create refuses inline items.
 *   2p2c/X      producers send N distinct items each (plus NULL once, but
 *               to a queue that takes message items only),
 *   4p4c/X      mixing single and burst operations where the adapter has
 *               bursts; consumers count every item in seen[]; each item sent
 *               must arrive exactly once and no other. 4p4c has more threads
  *               than this machine's 2 CPUs (see SEND_S for ck and rte). faa:
 *               the operation counts are checked instead.
 *   test_numaring_2node  single and 2p2c through numaring and sharded with
 *               an emulated two-node topology (the adapters pass it through).
 *   test_capacity_is_the_whole_queue  --capacity is every queue's total
 *               (numaring's rounding and --capacity-per-node included).
 *   scq/edges, scq/stress, scq/threshold  SCQ's own (peers/scq.c): the
 *               full and empty edges, round after round; exactly once and each
 *               producer's order with capacity 2, 4 and 8 and up to 8 threads;
 *               the threshold below zero after dequeues of an empty queue
 *               from 4 threads, Head left alone then, 3n - 1 after an enqueue.
 *   scq/mutant-threshold, scq/mutant-cycle  SCQ with one bug put in
 *               (scq.c built with -DSCQ_MUTATION=1, 2; harness/harness.mk):
 *               a script of steps that real threads can interleave, run on
 *               SCQ and on the mutant: the mutant reports empty with an
 *               item inside (1) or loses an item (2); SCQ does neither.
 *   lcrq/crq, lcrq/list, lcrq/stress  LCRQ's own (peers/lcrq.c): one CRQ's
 *               full edge (it closes) and empty edge, lap after lap; the
 *               list of CRQs of 2 cells from one thread (FIFO across CRQs,
 *               NULL and all-ones items, drained CRQs recycled, not
 *               allocated); exactly once and each producer's order with
 *               rings of 2, 4 and 8 cells (CRQs close, link, retire and
 *               recycle under hazard pointers) and up to 8 threads.
 *   lcrq/mutant-unsafe, lcrq/mutant-cycle, lcrq/mutant-empty  LCRQ with one
 *               bug put in (lcrq.c built with -DLCRQ_MUTATION=1, 2, 3): a
 *               script of steps on one CRQ, run on LCRQ and on the mutants:
 *               each mutant loses an item its script delivers on LCRQ.
 *
 * Worker threads never call cmocka (it is not thread-safe); they count what
 * went wrong and the main thread asserts after joining them.
 * PEERS_FILTER=<cmocka pattern> runs a subset, e.g. PEERS_FILTER=2p2c/urcu,
 * PEERS_FILTER='*scq*' every test of SCQ, PEERS_FILTER='*lcrq*' LCRQ's.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "item.h"
#include "item_sum.h"
#include "lcrq.h"
#include "queue.h"
#include "scq.h"
#include "xenium_shim.h" /* XN_KFIFO_K: the k of the k-relaxed queue */

#define N_ITEMS 200000u /* per producer */
#define CAPACITY 64u
#define BATCH 8u

static const char *const expected_order[] = {
	"numaring", "flat", "ck", "rte", "moodycamel", "boost", "tbb", "scq", "lcrq", "xenium-ms",
	"xenium-ramalhete", "xenium-kfifo", "sharded", "urcu", "mutex", "faa", "null", "fault-drop",
	"fault-dup", "fault-corrupt", "fault-reorder"};

/* How many items the adapter holds when created with capacity cap. */
static size_t holds(const struct hq_ops *o, void *q, size_t cap)
{
	size_t n = o->holds ? o->holds(q) : cap;
	if (strcmp(o->name, "ck") == 0)
		assert_int_equal(n, cap - 1); /* ck keeps one slot empty */
	return n;
}

/* o's params: inline items, or message ones where o takes only those (the
 * values these tests send, small whole numbers, are pointer-like). */
static void params_init(struct hq_params *p, const struct hq_ops *o, unsigned threads)
{
	memset(p, 0, sizeof *p);
	p->item = o->message_only ? HB_ITEM_MESSAGE : HB_ITEM_INLINE;
	p->sample = 64;
	p->capacity = CAPACITY;
	p->batch = BATCH;
	p->threads = threads;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- registry --------------------------------------------------------- */

/* The checksum telescopes (item.h): the items of a run, one by one, add
 * what its two ends add, wrap-around of the sum and of the 48-bit sequence
 * included; losing an item, or receiving another in its place, moves it. */
static void test_checksum_telescopes(void **state)
{
	const uint64_t starts[] = {0, 1, 977, HB_ITEM_LOW_MASK - 40};
	(void)state;
	for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
		for (uint64_t p = 0; p < 3; p++) {
			uint64_t a = starts[k], sum = 0;
			for (uint64_t s = a; s < a + 100; s++)
				sum += hb_item_check(p, s);
			assert_true(sum == hb_item_check_run(p, a, a + 100));
			assert_true(hb_item_check_run(p, a, a) == 0);
			/* one lost, one replaced by its neighbour, one of another producer */
			assert_false(sum - hb_item_check(p, a + 7) == hb_item_check_run(p, a, a + 99));
			assert_false(sum - hb_item_check(p, a + 7) + hb_item_check(p, a + 8) == sum);
			assert_false(sum - hb_item_check(p, a + 7) + hb_item_check(p + 1, a + 7) == sum);
		}
	/* the tally's open run is read back folded in */
	struct hb_tally t = {.count = 3, .sum = 11, .next = 50, .run = 40};
	assert_int_equal(hb_tally_count(&t), 13);
	assert_true(hb_tally_sum(&t, 2) == 11 + hb_item_check_run(2, 40, 50));
}

/* The inline pass (the loops' own) and every called width give the
 * reference's word (the OR of each value's difference from its place in the
 * run), for every length (0 included: 0) and every start (the vector widths
 * load unaligned runs); a run of one producer's consecutive sequences, timed
 * or not, has no bit but the timed one; a swap, a repeat, a step back, a
 * gap or another producer at any place of a burst of 37 sets another. */
static void sums_of(enum hb_accounting w, void *const *vals, unsigned n, struct hb_item_sums *s)
{
	hb_item_sum_fn *fn = hb_item_sum_select(w);
	if (fn)
		fn(vals, n, s);
	else
		hb_item_sums_inline(vals, n, s);
}

static void test_item_sum_widths_agree(void **state)
{
	enum { N = 80 };
	void *vals[N], *seqs[N];
	uint64_t x = 0x13198a2e03707344u;
	(void)state;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		vals[i] = (void *)(uintptr_t)(i % 4 ? x : hb_item_untimed(3, (uint64_t)i));
		seqs[i] = (void *)(uintptr_t)hb_item_value(5, 1000 + (uint64_t)i, 7);
	}
	enum hb_accounting widths[] = {HB_ACCOUNT_SCALAR, HB_ACCOUNT_VECTOR, HB_ACCOUNT_AVX2,
				       HB_ACCOUNT_INLINE, HB_ACCOUNT_AUTO};
	int ran = 0;
	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		if (!hb_accounting_available(widths[w])) { /* avx2 alone, where the CPU lacks it */
			assert_int_equal(widths[w], HB_ACCOUNT_AVX2);
			assert_null(hb_item_sum_select(widths[w]));
			continue;
		}
		ran++;
		for (unsigned start = 0; start < 4; start++)
			for (unsigned n = 0; start + n <= N; n++) {
				uint64_t off = 0, base = 0;
				for (unsigned i = start; i < start + n; i++) {
					uint64_t v = (uint64_t)(uintptr_t)vals[i];
					if (i == start)
						base = v & ~HB_ITEM_TIMED;
					off |= v ^ (base + (i - start));
				}
				struct hb_item_sums s;
				sums_of(widths[w], vals + start, n, &s);
				assert_true(s.off == off);
				sums_of(widths[w], seqs + start, n, &s);
				assert_true((s.off & ~HB_ITEM_TIMED) == 0); /* one run, timed or not */
				int timed = 0; /* seqs: sequence 1000 + i, timed at multiples of 8 */
				for (unsigned i = start; i < start + n; i++)
					timed |= (1000 + i) % 8 == 0;
				assert_int_equal(!!(s.off & HB_ITEM_TIMED), timed);
			}
		/* out of the run at every place of a burst of 37 */
		struct hb_item_sums b;
		for (unsigned i = 1; i < 37; i++) {
			void *prev = seqs[i - 1], *cur = seqs[i];
			uint64_t c = (uint64_t)(uintptr_t)cur;
			void *bad[5] = {
			    prev, /* a repeat */
			    (void *)(uintptr_t)hb_item_untimed(5, hb_item_seq(c) - 2), /* a step back */
			    (void *)(uintptr_t)hb_item_untimed(5, hb_item_seq(c) + 1), /* a gap */
			    (void *)(uintptr_t)hb_item_untimed(6, hb_item_seq(c)), /* another producer */
			    (void *)(uintptr_t)(c ^ 1), /* a bit flipped */
			};
			for (unsigned k = 0; k < 5; k++) {
				seqs[i] = bad[k];
				sums_of(widths[w], seqs, 37, &b);
				assert_true(b.off & ~HB_ITEM_TIMED);
			}
			seqs[i - 1] = cur, seqs[i] = prev; /* a swap */
			sums_of(widths[w], seqs, 37, &b);
			assert_true(b.off & ~HB_ITEM_TIMED);
			seqs[i - 1] = prev, seqs[i] = cur;
		}
	}
	/* the symmetric loops' pass, 2 at a time, gives the inline pass's word */
	for (unsigned start = 0; start < 4; start++)
		for (unsigned n = 0; start + n <= N; n++) {
			struct hb_item_sums a, b;
			hb_item_sums_inline(vals + start, n, &a);
			hb_item_sums_inline2(vals + start, n, &b);
			assert_true(a.off == b.off);
			hb_item_sums_inline(seqs + start, n, &a);
			hb_item_sums_inline2(seqs + start, n, &b);
			assert_true(a.off == b.off);
		}
	assert_true(ran >= 4); /* scalar, vector, inline and auto at least */
	assert_int_equal(hb_accounting_resolve(HB_ACCOUNT_AUTO), HB_ACCOUNT_INLINE);
	assert_null(hb_item_sum_select(HB_ACCOUNT_AUTO)); /* the loops' own pass */
	enum hb_accounting parsed;
	for (int a = 0; a < HB_ACCOUNT_COUNT_; a++) {
		assert_int_equal(hb_accounting_parse(hb_accounting_name((enum hb_accounting)a), &parsed), 0);
		assert_int_equal(parsed, a);
	}
	assert_int_equal(hb_accounting_parse("avx512", &parsed), -1);
	assert_string_equal(hb_accounting_name(HB_ACCOUNT_COUNT_), "?");
}

static void test_registry(void **state)
{
	size_t n = sizeof expected_order / sizeof expected_order[0];
	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_non_null(hq_all[i]);
		assert_string_equal(hq_all[i]->name, expected_order[i]);
		assert_ptr_equal(hq_find(expected_order[i]), hq_all[i]);
		assert_non_null(hq_all[i]->description);
		assert_true(strlen(hq_all[i]->description) > 0);
		assert_non_null(hq_all[i]->create);
		assert_non_null(hq_all[i]->enqueue);
		assert_non_null(hq_all[i]->dequeue);
		/* bursts come in pairs (the fault adapters enqueue one by one) */
		if (!hq_all[i]->test_only)
			assert_true(!hq_all[i]->enqueue_burst == !hq_all[i]->dequeue_burst);
		/* counters a queue does not report are not claimed */
		assert_true(!hq_all[i]->stats_mask || hq_all[i]->thread_stats);
		/* the stated order and capacity come from queue.h's words, and agree
		 * with what the queue is: only queues that move nothing have no
		 * order; only unbounded ones say unbounded */
		const struct hq_ops *o = hq_all[i];
		assert_non_null(o->ordering);
		assert_non_null(o->capacity_kind);
		assert_true(strcmp(o->ordering, "fifo") == 0 || strcmp(o->ordering, "per-producer") == 0 ||
			    strcmp(o->ordering, "per-node") == 0 ||
			    strcmp(o->ordering, "k-relaxed") == 0 || strcmp(o->ordering, "n/a") == 0);
		assert_int_equal(strcmp(o->ordering, "n/a") == 0, !o->moves_data);
		/* only a queue that moves items can refuse some, and it says why */
		if (o->message_only) {
			assert_true(o->moves_data && !o->fabricates);
			assert_true(strlen(o->message_only) > 0);
		}
		assert_true(strcmp(o->capacity_kind, "exact") == 0 ||
			    strcmp(o->capacity_kind, "one-less") == 0 ||
			    strcmp(o->capacity_kind, "split") == 0 ||
			    strcmp(o->capacity_kind, "unbounded") == 0);
		assert_int_equal(strcmp(o->capacity_kind, "unbounded") == 0, !o->bounded);
	}
	assert_null(hq_all[n]);
	assert_null(hq_find("nosuchqueue"));
}

/* ---- one thread --------------------------------------------------------- */

static void *make(const struct hq_ops *o, const struct hq_params *p, void **h)
{
	char err[256] = "";
	void *q = o->create(p, err, sizeof err);
	if (!q)
		print_error("%s: create failed: %s\n", o->name, err);
	assert_non_null(q);
	*h = o->thread_init(q, err, sizeof err);
	if (!*h)
		print_error("%s: thread_init failed: %s\n", o->name, err);
	assert_non_null(*h);
	return q;
}

/* What the tests add to their values 1, 2, ... for a queue that takes
 * message items only, so that they look like the heap pointers it gets in a
 * run (xenium's k-FIFO asserts that no value is 0x100; the adapters refuse
 * the first page); 0 for the others. */
static uintptr_t item_offset(const struct hq_ops *o)
{
	return o->message_only ? (uintptr_t)1 << 32 : 0;
}

/* How many places a queue's items may be out of FIFO order, plus one: its
 * k where it is k-relaxed (queue.h), else 1. */
static size_t relaxed_k(const struct hq_ops *o)
{
	if (strcmp(o->ordering, "k-relaxed") != 0)
		return 1;
	assert_string_equal(o->name, "xenium-kfifo"); /* the one k-relaxed queue: its k */
	return XN_KFIFO_K;
}

static void single(const struct hq_ops *o, const struct hq_params *p)
{
	void *h, *q, *item;
	size_t n, i = 0, k_places = relaxed_k(o);
	const uintptr_t off = item_offset(o);
	int fifo;
	uint8_t *seen;

	if (o->message_only) { /* inline items are refused by name, nothing made */
		struct hq_params inl = *p;
		char err[256] = "";
		inl.item = HB_ITEM_INLINE;
		assert_null(o->create(&inl, err, sizeof err));
		assert_non_null(strstr(err, "takes message items only"));
	}
	q = make(o, p, &h);
	if (!o->moves_data) { /* faa, null: nothing can fail, nothing travels */
		for (i = 0; i < 4 * CAPACITY; i++) {
			item = &item;
			assert_int_equal(o->enqueue(h, (void *)(uintptr_t)(i + 1)), 0);
			assert_int_equal(o->dequeue(h, &item), 0);
			if (o->fabricates) /* made up: producer 0, sequence i (timed 1 in 64) */
				assert_int_equal(hb_item_producer((uintptr_t)item), 0);
			else
				assert_null(item);
		}
		goto out;
	}

	/* fill: a bounded queue must hold exactly holds() items; the last three
	 * go by a burst of BATCH where there is one, which must be partial */
	n = o->bounded ? holds(o, q, p->capacity) : 16 * p->capacity;
	/* several numaring nodes (an emulated topology): batches move between
	 * rings, order is per ring */
	fifo = ((strcmp(o->name, "numaring") != 0 && strcmp(o->name, "sharded") != 0) ||
		p->nsettings == 0) &&
	       k_places == 1;
	while (i < n) {
		if (o->enqueue_burst && n - i == 3) {
			void *b[BATCH];
			for (unsigned j = 0; j < BATCH; j++)
				b[j] = (void *)(off + i + j + 1);
			unsigned k = o->enqueue_burst(h, b, BATCH);
			assert_int_equal(k, o->bounded ? 3 : BATCH);
			i += k;
			n = i;
		} else {
			assert_int_equal(o->enqueue(h, (void *)(off + i + 1)), 0);
			i++;
		}
	}
	if (o->bounded) {
		assert_int_not_equal(o->enqueue(h, (void *)1), 0);
		if (o->enqueue_burst) {
			void *b[2] = {(void *)1, (void *)2};
			assert_int_equal(o->enqueue_burst(h, b, 2), 0);
		}
	}
	/* drain, bursts and singles alternating: each item once, in order */
	seen = calloc(n + 1, 1);
	assert_non_null(seen);
	for (i = 0; i < n;) {
		void *b[BATCH];
		unsigned k;
		if (o->dequeue_burst && (i / BATCH) % 2) {
			k = o->dequeue_burst(h, b, BATCH);
			assert_true(k >= 1 && k <= BATCH);
		} else {
			assert_int_equal(o->dequeue(h, &b[0]), 0);
			k = 1;
		}
		for (unsigned j = 0; j < k; j++, i++) {
			uintptr_t v = (uintptr_t)b[j] - off;
			assert_true(v >= 1 && v <= n);
			assert_int_equal(seen[v]++, 0);
			if (fifo)
				assert_int_equal(v, i + 1);
			/* one thread fills a k-FIFO's segments of k in turn and
			 * empties them in turn, each in any order */
			if (k_places > 1)
				assert_true(v > i ? v - (i + 1) < k_places : (i + 1) - v < k_places);
		}
	}
	free(seen);
	assert_int_not_equal(o->dequeue(h, &item), 0);
	if (o->dequeue_burst)
		assert_int_equal(o->dequeue_burst(h, &item, 1), 0);
	if (o->message_only) {
		/* what no message pointer is fails, without an exception
		 * escaping: NULL, the first page, the inline items' timed
		 * bit, 2^47 */
		assert_int_not_equal(o->enqueue(h, NULL), 0);
		assert_int_not_equal(o->enqueue(h, (void *)0x100), 0);
		assert_int_not_equal(o->enqueue(h, (void *)(uintptr_t)HB_ITEM_TIMED), 0);
		assert_int_not_equal(o->enqueue(h, (void *)(uintptr_t)hb_item_timed(3, 5)), 0);
		assert_int_not_equal(o->enqueue(h, (void *)(UINT64_C(1) << 47)), 0);
		assert_int_not_equal(o->dequeue(h, &item), 0);
		goto out;
	}
	/* NULL is an item like any other */
	item = &item;
	assert_int_equal(o->enqueue(h, NULL), 0);
	assert_int_equal(o->dequeue(h, &item), 0);
	assert_null(item);
	assert_int_not_equal(o->dequeue(h, &item), 0);
out:
	o->thread_fini(q, h);
	o->destroy(q);
}

static void test_single(void **state)
{
	struct hq_params p;
	params_init(&p, *state, 1);
	single(*state, &p);
}

/* ---- producers and consumers -------------------------------------------- */

/*
 * Spinning MP rings (ck, rte) are not preemption-tolerant: a producer that
 * has claimed a position and is preempted before publishing it makes every
 * later producer spin until it runs again. With more spinning threads than
 * CPUs they fall into a convoy of about one hand-over per scheduler slice
 * (measured here: a few hundred items per second). So producers stop sending
 * after SEND_S seconds; every item sent must still arrive exactly once, and
 * adapters that do not spin on other threads must have sent everything.
 */
#ifdef __SANITIZE_THREAD__
#define SEND_S 60
#else
#define SEND_S 5
#endif
#define DEADLINE_S (SEND_S + 60) /* a run that has not finished by then has lost items */

/* 1 if producer 0 sends NULL once: every queue that moves items and takes
 * any value (not one that takes message items only). */
static int sends_null(const struct hq_ops *o)
{
	return o->moves_data && !o->message_only;
}

static int spins_on_peers(const struct hq_ops *o)
{
	/* tbb: concurrent_bounded_queue waits for its ticket's turn (not
	 * lock-free: a preempted pusher stalls the poppers behind it) */
	return strcmp(o->name, "ck") == 0 || strcmp(o->name, "rte") == 0 ||
	       strcmp(o->name, "tbb") == 0;
}

struct run {
	const struct hq_ops *o;
	void *q;
	uintptr_t offset;            /* item_offset(o): item v travels as offset + v */
	unsigned producers, consumers;
	_Atomic uint32_t *seen;      /* seen[v] for item v in 1..P*N; seen[0]: NULL */
	uint64_t *sent;              /* sent[p]: producer p sent items base+1..base+sent[p] */
	_Atomic uint64_t sent_total; /* all producers' items (NULL included), once done */
	_Atomic unsigned producers_done;
	_Atomic uint64_t consumed;   /* items consumers took out */
	_Atomic uint64_t bad;        /* items out of range */
	_Atomic uint64_t failures;   /* faa: operations that did not succeed */
	_Atomic uint64_t init_failed;
	_Atomic int timed_out;
	double send_until, deadline;
	pthread_barrier_t start;
	pthread_mutex_t stats_lock;
	struct hq_stats stats;       /* summed thread_stats */
};

struct worker {
	struct run *r;
	unsigned index; /* producer or consumer number */
};

/* After a failed attempt: let a preempted peer run; give up at the deadline. */
static void wait_more(struct run *r, unsigned *fails)
{
	if (++*fails % 256 == 0 && now_s() > r->deadline)
		atomic_store(&r->timed_out, 1);
	sched_yield();
}

static int timed_out(struct run *r)
{
	return atomic_load_explicit(&r->timed_out, memory_order_relaxed);
}

static void *attach(struct run *r)
{
	char err[256];
	void *h = r->o->thread_init(r->q, err, sizeof err);
	if (!h) {
		fprintf(stderr, "%s: thread_init: %s\n", r->o->name, err);
		atomic_fetch_add(&r->init_failed, 1);
	}
	pthread_barrier_wait(&r->start);
	return h;
}

static void detach(struct run *r, void *h)
{
	if (!h)
		return;
	if (r->o->thread_stats) {
		struct hq_stats s;
		memset(&s, 0, sizeof s);
		r->o->thread_stats(h, &s);
		pthread_mutex_lock(&r->stats_lock);
		for (int k = 0; k < HQ_STAT_COUNT_; k++)
			r->stats.v[k] += s.v[k];
		pthread_mutex_unlock(&r->stats_lock);
	}
	r->o->thread_fini(r->q, h);
}

static void *producer(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	const struct hq_ops *o = r->o;
	uint64_t base = (uint64_t)w->index * N_ITEMS, i = 1, extra = 0;
	unsigned fails = 0, round = 0, iter = 0;
	void *h = attach(r);

	if (h && sends_null(o) && w->index == 0) {
		while (o->enqueue(h, NULL) != 0 && !timed_out(r))
			wait_more(r, &fails);
		extra = 1;
	}
	while (h && i <= N_ITEMS && !timed_out(r)) {
		unsigned want = 1, k;
		if (++iter % 256 == 0 && now_s() > r->send_until)
			break;
		if (o->enqueue_burst && (round++ & 1)) {
			void *b[BATCH];
			want = N_ITEMS - i + 1 < BATCH ? (unsigned)(N_ITEMS - i + 1) : BATCH;
			for (unsigned j = 0; j < want; j++)
				b[j] = (void *)(r->offset + base + i + j);
			k = o->enqueue_burst(h, b, want);
		} else {
			k = o->enqueue(h, (void *)(r->offset + base + i)) == 0;
		}
		i += k;
		if (k < want && !o->moves_data) /* faa never fails */
			atomic_fetch_add(&r->failures, want - k);
		if (k == 0)
			wait_more(r, &fails);
	}
	r->sent[w->index] = i - 1;
	atomic_fetch_add(&r->sent_total, i - 1 + extra);
	atomic_fetch_add(&r->producers_done, 1); /* after sent_total: consumers read in reverse */
	detach(r, h);
	return NULL;
}

static void record(struct run *r, void *item)
{
	uintptr_t v = (uintptr_t)item - r->offset;
	if (!r->o->moves_data) {
		if (r->o->fabricates ? hb_item_producer(v) != 0 : item != NULL)
			atomic_fetch_add(&r->bad, 1);
	} else if (v > (uintptr_t)r->producers * N_ITEMS) {
		atomic_fetch_add(&r->bad, 1);
	} else {
		atomic_fetch_add_explicit(&r->seen[v], 1, memory_order_relaxed);
	}
}

/* Everything sent has been consumed (or more: duplicates, caught later). */
static int all_consumed(struct run *r)
{
	return atomic_load(&r->producers_done) == r->producers &&
	       atomic_load(&r->consumed) >= atomic_load(&r->sent_total);
}

static void *consumer(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	const struct hq_ops *o = r->o;
	unsigned fails = 0, round = 0;
	/* faa: each consumer makes exactly its share of the P * N dequeues */
	uint64_t total = (uint64_t)r->producers * N_ITEMS;
	uint64_t share = total / r->consumers + (w->index == 0 ? total % r->consumers : 0);
	uint64_t mine = 0;
	void *h = attach(r);

	while (h && !timed_out(r)) {
		void *b[BATCH];
		unsigned want = BATCH, k;
		if (o->moves_data ? all_consumed(r) : mine >= share)
			break;
		if (!o->moves_data && share - mine < want)
			want = (unsigned)(share - mine);
		if (o->dequeue_burst && (round++ & 1)) {
			k = o->dequeue_burst(h, b, want);
		} else {
			want = 1;
			k = o->dequeue(h, &b[0]) == 0;
		}
		if (!o->moves_data && k < want)
			atomic_fetch_add(&r->failures, want - k);
		if (k == 0) {
			wait_more(r, &fails);
			continue;
		}
		for (unsigned j = 0; j < k; j++)
			record(r, b[j]);
		mine += k;
		atomic_fetch_add(&r->consumed, k);
	}
	detach(r, h);
	return NULL;
}

static void run_pc(const struct hq_ops *o, const struct hq_params *p, unsigned np, unsigned nc)
{
	struct run r;
	unsigned nt = np + nc;
	pthread_t tid[nt];
	struct worker wk[nt];
	uint64_t missing = 0, dup = 0, full = (uint64_t)np * N_ITEMS + (uint64_t)sends_null(o);
	char err[256] = "";
	double t0 = now_s();

	memset(&r, 0, sizeof r);
	r.o = o;
	r.offset = item_offset(o);
	r.producers = np;
	r.consumers = nc;
	r.seen = calloc((size_t)np * N_ITEMS + 1, sizeof *r.seen);
	r.sent = calloc(np, sizeof *r.sent);
	assert_non_null(r.seen);
	assert_non_null(r.sent);
	r.send_until = t0 + SEND_S;
	r.deadline = t0 + DEADLINE_S;
	r.q = o->create(p, err, sizeof err);
	if (!r.q)
		print_error("%s: create failed: %s\n", o->name, err);
	assert_non_null(r.q);
	pthread_barrier_init(&r.start, NULL, nt);
	pthread_mutex_init(&r.stats_lock, NULL);

	for (unsigned i = 0; i < nt; i++) {
		wk[i].r = &r;
		wk[i].index = i < np ? i : i - np;
		assert_int_equal(pthread_create(&tid[i], NULL, i < np ? producer : consumer, &wk[i]), 0);
	}
	for (unsigned i = 0; i < nt; i++)
		pthread_join(tid[i], NULL);

	assert_int_equal(atomic_load(&r.init_failed), 0);
	if (atomic_load(&r.timed_out))
		print_error("%s %uP%uC: not finished after %d s: %llu of %llu items consumed\n", o->name,
			    np, nc, DEADLINE_S, (unsigned long long)atomic_load(&r.consumed),
			    (unsigned long long)atomic_load(&r.sent_total));
	assert_false(atomic_load(&r.timed_out));
	assert_int_equal(atomic_load(&r.bad), 0);
	if (o->moves_data) {
		/* item v of producer p: once if sent, never otherwise; NULL once
		 * where it was sent */
		for (uint64_t v = 0; v <= (uint64_t)np * N_ITEMS; v++) {
			uint32_t s = atomic_load_explicit(&r.seen[v], memory_order_relaxed);
			uint32_t want = v == 0 ? (uint32_t)sends_null(o)
					       : (v - 1) % N_ITEMS < r.sent[(v - 1) / N_ITEMS];
			if (s < want)
				missing++;
			else if (s > want)
				dup += s - want;
			if (s != want && missing + dup <= 5)
				print_error("%s: item %llu seen %u times, sent %u\n", o->name,
					    (unsigned long long)v, s, want);
		}
		assert_int_equal(missing, 0);
		assert_int_equal(dup, 0);
		assert_int_equal(atomic_load(&r.consumed), atomic_load(&r.sent_total));
		/* nothing left over */
		{
			void *h = o->thread_init(r.q, err, sizeof err), *item;
			assert_non_null(h);
			assert_int_not_equal(o->dequeue(h, &item), 0);
			o->thread_fini(r.q, h);
		}
	} else {
		/* faa: every op succeeded, exactly P * N of each were made */
		assert_int_equal(atomic_load(&r.failures), 0);
		assert_int_equal(atomic_load(&r.consumed), full);
	}
	if (strcmp(o->name, "numaring") == 0) /* every item went through some node's ring */
		assert_true(r.stats.v[HQ_STAT_local_ops] + r.stats.v[HQ_STAT_items_in] > 0);
	print_message("    %s %uP%uC: %llu of %llu items in %.2f s%s\n", o->name, np, nc,
		      (unsigned long long)atomic_load(&r.sent_total), (unsigned long long)full,
		      now_s() - t0,
		      atomic_load(&r.sent_total) < full ? " (sending stopped after SEND_S: convoy)" : "");
	/* only rings that spin on other threads' progress may fall short */
	if (!spins_on_peers(o))
		assert_int_equal(atomic_load(&r.sent_total), full);

	o->destroy(r.q);
	pthread_barrier_destroy(&r.start);
	pthread_mutex_destroy(&r.stats_lock);
	free(r.seen);
	free(r.sent);
}

static void test_2p2c(void **state)
{
	struct hq_params p;
	params_init(&p, *state, 4);
	run_pc(*state, &p, 2, 2);
}

static void test_4p4c(void **state)
{
	struct hq_params p;
	params_init(&p, *state, 8);
	run_pc(*state, &p, 4, 4);
}

/* The allowed CPUs split in two emulated nodes (then `tail`: ";-" adds a
 * memory-only one) into topo; 0, or -1 below 2 CPUs. */
static int two_nodes(char *topo, const char *tail)
{
	cpu_set_t set;
	unsigned n, i = 0;
	assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
	if ((n = (unsigned)CPU_COUNT(&set)) < 2)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		topo += sprintf(topo, "%s%d", i == 0 ? "" : i == n / 2 ? ";" : ",", c);
		i++;
	}
	strcpy(topo, tail);
	return 0;
}

/* numaring and sharded with two emulated nodes: the allowed CPUs split in
 * two halves, a ring each. */
static void test_numaring_2node(void **state)
{
	struct hq_params p;
	char topo[4096];
	(void)state;

	if (two_nodes(topo, "") < 0)
		skip();
	params_init(&p, hq_find("numaring"), 4);
	struct hq_setting topology = {"topology", topo};
	p.settings = &topology;
	p.nsettings = 1;
	print_message("    topology \"%s\"\n", topo);
	for (const char *const *q = (const char *const[]){"numaring", "sharded", NULL}; *q; q++) {
		single(hq_find(*q), &p);
		run_pc(hq_find(*q), &p, 2, 2);
	}
}

/* What a queue made with p holds (queue.h's holds; 0: unbounded). */
static size_t held(const struct hq_ops *o, const struct hq_params *p)
{
	void *h, *q = make(o, p, &h);
	size_t n = !o->bounded ? 0 : o->holds ? o->holds(q) : p->capacity;
	o->thread_fini(q, h);
	o->destroy(q);
	return n;
}

/*
 * --capacity is the whole queue's for every queue: each bounded one holds
 * exactly it (ck: one less); numaring splits it among its rings, a share
 * that is not a power of two rounded down (two emulated nodes and a
 * memory-only one: 3 rings, 64 / 3 -> 16 each, 48 in all), and
 * capacity_per_node gives each ring the capacity. single/X fills each to
 * what it says it holds.
 */
static void test_capacity_is_the_whole_queue(void **state)
{
	struct hq_params p;
	char topo[4096];
	(void)state;

	for (const struct hq_ops *const *o = hq_all; *o; o++) {
		if ((*o)->test_only)
			continue;
		params_init(&p, *o, 1);
		size_t want = !(*o)->bounded ? 0 : strcmp((*o)->name, "ck") == 0 ? CAPACITY - 1
										   : CAPACITY;
		print_message("    %s holds %zu of %u\n", (*o)->name, held(*o, &p), CAPACITY);
		assert_int_equal(held(*o, &p), want);
	}
	if (two_nodes(topo, "") < 0)
		skip();
	const struct hq_ops *nr = hq_find("numaring");
	params_init(&p, nr, 1);
	struct hq_setting topology = {"topology", topo};
	p.settings = &topology;
	p.nsettings = 1;
	assert_int_equal(held(nr, &p), CAPACITY);
	p.capacity_per_node = 1;
	assert_int_equal(held(nr, &p), 2 * CAPACITY);
	strcat(topo, ";-");
	assert_int_equal(held(nr, &p), 3 * CAPACITY);
	p.capacity_per_node = 0;
	assert_int_equal(held(nr, &p), 3 * (CAPACITY / 4));
	single(nr, &p);
	/* sharded splits the same way among the nodes with CPUs (a memory-only
	 * node gets no ring of its own) */
	const struct hq_ops *sh = hq_find("sharded");
	assert_int_equal(held(sh, &p), CAPACITY);
	p.capacity_per_node = 1;
	assert_int_equal(held(sh, &p), 2 * CAPACITY);
	p.capacity_per_node = 0;
	/* a batch larger than the share is refused by name, not by the ring */
	char err[256] = "";
	p.batch = CAPACITY / 2;
	assert_null(nr->create(&p, err, sizeof err));
	assert_non_null(strstr(err, "slots per ring"));
}

/* ---- SCQ (peers/scq.c): its edges, its threshold, its mutants ----------- */

/*
 * The adapter holds exactly n = --capacity items: n enqueues succeed and the
 * next fail, without using up a slot; the n come out in order; a dequeue of
 * the empty queue fails, again and again past the threshold (3n - 1), and
 * leaves the queue as it was: the next round fills it to n again. Rounds go
 * round the rings several laps; partial fills in between move the positions
 * off the laps' starts. Threads: capacity of them are admitted (the queue
 * above runs with that many declared), one more is refused by name: the
 * paper's k <= n (scq.c, "Threads"; this used to admit 2 x capacity).
 */
static void test_scq_edges(void **state)
{
	const struct hq_ops *o = hq_find("scq");
	(void)state;
	assert_non_null(o);
	for (size_t cap = 2; cap <= 64; cap *= 2) {
		struct hq_params p;
		void *h, *q, *item;
		uintptr_t next = 1, want = 1;
		params_init(&p, hq_find("scq"), (unsigned)cap);
		p.capacity = cap;
		q = make(o, &p, &h);
		struct scq_ring *aq = scq_hooks.ring_of(q, 0);
		size_t inside = 0;
		for (int round = 0; round < 12; round++) {
			if (round % 3 == 2) { /* half + 1 in, half out: one stays, mid-lap */
				for (size_t i = 0; i < cap / 2 + 1; i++, inside++)
					assert_int_equal(o->enqueue(h, (void *)next++), 0);
				for (size_t i = 0; i < cap / 2; i++, inside--) {
					assert_int_equal(o->dequeue(h, &item), 0);
					assert_int_equal((uintptr_t)item, want++);
				}
				continue;
			}
			for (; inside < cap; inside++)
				assert_int_equal(o->enqueue(h, (void *)next++), 0);
			/* the full edge: n fit, the n+1-th fails */
			for (int k = 0; k < 3; k++)
				assert_int_not_equal(o->enqueue(h, (void *)~(uintptr_t)0), 0);
			for (; inside > 0; inside--) {
				assert_int_equal(o->dequeue(h, &item), 0);
				assert_int_equal((uintptr_t)item, want++);
			}
			/* the empty edge, past the threshold */
			for (size_t k = 0; k < 4 * cap + 3; k++)
				assert_int_not_equal(o->dequeue(h, &item), 0);
			assert_true(scq_hooks.threshold(aq) < 0);
			uint64_t head = scq_hooks.head(aq);
			assert_int_not_equal(o->dequeue(h, &item), 0);
			assert_int_equal(scq_hooks.head(aq), head); /* returned at once */
		}
		for (; inside > 0; inside--) { /* the last round's one */
			assert_int_equal(o->dequeue(h, &item), 0);
			assert_int_equal((uintptr_t)item, want++);
		}
		assert_int_equal(want, next);
		assert_int_not_equal(o->dequeue(h, &item), 0);
		o->thread_fini(q, h);
		o->destroy(q);

		char err[256] = "";
		p.threads = (unsigned)cap + 1; /* one past k <= n */
		assert_null(o->create(&p, err, sizeof err));
		assert_non_null(strstr(err, "threads"));
		char named[64]; /* the capacity it names fits the threads */
		snprintf(named, sizeof named, "--capacity %zu or more", 2 * cap);
		assert_non_null(strstr(err, named));
	}
}

/* Stress with a tiny capacity: producers send (producer, sequence) items,
 * consumers check that each producer's items reach them in the order sent
 * (FIFO: a linearizable queue keeps it for every consumer) and count each
 * item; every item must arrive exactly once. Then every slot is free again:
 * exactly n enqueues succeed (no index lost or doubled in the rings). */
#ifdef __SANITIZE_THREAD__
#define SCQ_ITEMS 10000u
#else
#define SCQ_ITEMS 30000u
#endif

struct scq_run {
	const struct hq_ops *o;
	void *q;
	unsigned np;
	uint64_t total;
	_Atomic uint32_t *seen; /* [producer * SCQ_ITEMS + seq - 1] */
	_Atomic uint64_t consumed, bad, out_of_order;
	_Atomic int timed_out;
	double deadline;
	pthread_barrier_t start;
};

struct scq_worker {
	struct scq_run *r;
	unsigned index;
};

static void scq_wait(struct scq_run *r, unsigned *fails)
{
	if (++*fails % 256 == 0 && now_s() > r->deadline)
		atomic_store(&r->timed_out, 1);
	sched_yield();
}

static void *scq_producer(void *arg)
{
	struct scq_worker *w = arg;
	struct scq_run *r = w->r;
	unsigned fails = 0;
	pthread_barrier_wait(&r->start);
	for (uint64_t seq = 1; seq <= SCQ_ITEMS && !atomic_load(&r->timed_out);) {
		uintptr_t v = (uintptr_t)(((uint64_t)w->index + 1) << 32 | seq);
		if (r->o->enqueue(r->q, (void *)v) == 0)
			seq++;
		else
			scq_wait(r, &fails);
	}
	return NULL;
}

static void *scq_consumer(void *arg)
{
	struct scq_worker *w = arg;
	struct scq_run *r = w->r;
	unsigned fails = 0;
	uint64_t last[8] = {0};
	pthread_barrier_wait(&r->start);
	while (atomic_load(&r->consumed) < r->total && !atomic_load(&r->timed_out)) {
		void *item;
		if (r->o->dequeue(r->q, &item) != 0) {
			scq_wait(r, &fails);
			continue;
		}
		uint64_t v = (uintptr_t)item, pr = (v >> 32) - 1, seq = v & 0xffffffffu;
		if (pr >= r->np || seq < 1 || seq > SCQ_ITEMS) {
			atomic_fetch_add(&r->bad, 1);
		} else {
			if (seq <= last[pr])
				atomic_fetch_add(&r->out_of_order, 1);
			last[pr] = seq;
			atomic_fetch_add_explicit(&r->seen[pr * SCQ_ITEMS + seq - 1], 1,
						  memory_order_relaxed);
		}
		atomic_fetch_add(&r->consumed, 1);
	}
	return NULL;
}

static void scq_stress(size_t cap, unsigned np, unsigned nc)
{
	struct scq_run r;
	struct hq_params p;
	char err[256] = "";
	unsigned nt = np + nc;
	pthread_t tid[nt];
	struct scq_worker wk[nt];
	double t0 = now_s();

	assert_true(np <= 8);
	memset(&r, 0, sizeof r);
	params_init(&p, hq_find("scq"), nt);
	p.capacity = cap;
	r.o = hq_find("scq");
	r.np = np;
	r.total = (uint64_t)np * SCQ_ITEMS;
	r.seen = calloc(r.total, sizeof *r.seen);
	assert_non_null(r.seen);
	r.deadline = t0 + DEADLINE_S;
	r.q = r.o->create(&p, err, sizeof err);
	if (!r.q)
		print_error("scq: create failed: %s\n", err);
	assert_non_null(r.q);
	pthread_barrier_init(&r.start, NULL, nt);
	for (unsigned i = 0; i < nt; i++) {
		wk[i].r = &r;
		wk[i].index = i < np ? i : i - np;
		assert_int_equal(pthread_create(&tid[i], NULL, i < np ? scq_producer : scq_consumer,
						&wk[i]), 0);
	}
	for (unsigned i = 0; i < nt; i++)
		pthread_join(tid[i], NULL);
	print_message("    scq capacity %zu %uP%uC: %llu items in %.2f s\n", cap, np, nc,
		      (unsigned long long)atomic_load(&r.consumed), now_s() - t0);
	assert_false(atomic_load(&r.timed_out));
	assert_int_equal(atomic_load(&r.bad), 0);
	assert_int_equal(atomic_load(&r.out_of_order), 0);
	uint64_t wrong = 0;
	for (uint64_t v = 0; v < r.total; v++) {
		uint32_t s = atomic_load_explicit(&r.seen[v], memory_order_relaxed);
		if (s != 1 && wrong++ < 5)
			print_error("scq: item %llu of producer %llu seen %u times\n",
				    (unsigned long long)(v % SCQ_ITEMS + 1),
				    (unsigned long long)(v / SCQ_ITEMS), s);
	}
	assert_int_equal(wrong, 0);
	/* empty, and every slot free again */
	void *item;
	assert_int_not_equal(r.o->dequeue(r.q, &item), 0);
	for (size_t i = 0; i < cap; i++)
		assert_int_equal(r.o->enqueue(r.q, (void *)(uintptr_t)i), 0);
	assert_int_not_equal(r.o->enqueue(r.q, NULL), 0);
	for (size_t i = 0; i < cap; i++) {
		assert_int_equal(r.o->dequeue(r.q, &item), 0);
		assert_int_equal((uintptr_t)item, i);
	}
	r.o->destroy(r.q);
	pthread_barrier_destroy(&r.start);
	free(r.seen);
}

static void test_scq_stress(void **state)
{
	(void)state;
	/* each at the smallest capacity that admits its threads (k <= n,
	 * scq.c "Threads"), where the rings wrap most often */
	scq_stress(2, 1, 1);
	scq_stress(4, 2, 2);
	scq_stress(4, 1, 3);
	scq_stress(8, 3, 3);
	scq_stress(8, 4, 4);
	scq_stress(8, 5, 2);
}

/* Dequeues hammer an empty queue from several threads. */
struct scq_drain {
	const struct hq_ops *o;
	void *q;
	_Atomic uint64_t got; /* items taken: must stay 0 */
	pthread_barrier_t start;
};

static void *scq_drainer(void *arg)
{
	struct scq_drain *d = arg;
	void *item;
	pthread_barrier_wait(&d->start);
	for (int k = 0; k < 2000; k++)
		if (d->o->dequeue(d->q, &item) == 0)
			atomic_fetch_add(&d->got, 1);
	return NULL;
}

/*
 * The threshold under contention. A new queue's aq starts below zero: a
 * dequeue returns at once, Head untouched. An enqueue sets it to 3n - 1.
 * Then 4 threads make 2000 dequeues each on the empty queue: the threshold
 * ends below zero, and the dequeuers' FAAs on Head are bounded by it, not by
 * the 8000 dequeues: each FAA is followed by one decrement; at most 3n - 1
 * decrements see a positive value and let their dequeuer try again, and only
 * dequeues that found it at 0 or more (3n of them, plus one in flight per
 * thread) start at all. A dequeue now returns at once; an enqueue restores
 * 3n - 1 and its item comes out.
 */
static void test_scq_threshold(void **state)
{
	const struct hq_ops *o = hq_find("scq");
	struct hq_params p;
	void *h, *q, *item;
	enum { THREADS = 4 };
	pthread_t tid[THREADS];
	struct scq_drain d;
	(void)state;

	params_init(&p, hq_find("scq"), THREADS);
	p.capacity = 4;
	q = make(o, &p, &h);
	struct scq_ring *aq = scq_hooks.ring_of(q, 0);
	int64_t reset = scq_hooks.threshold_reset(aq);
	assert_int_equal(reset, 3 * 4 - 1);
	assert_true(scq_hooks.threshold(aq) < 0);
	uint64_t head = scq_hooks.head(aq);
	assert_int_not_equal(o->dequeue(h, &item), 0);
	assert_int_equal(scq_hooks.head(aq), head);

	assert_int_equal(o->enqueue(h, (void *)1), 0);
	assert_int_equal(scq_hooks.threshold(aq), reset);
	assert_int_equal(o->dequeue(h, &item), 0);
	assert_ptr_equal(item, (void *)1);
	assert_int_equal(scq_hooks.threshold(aq), reset);

	memset(&d, 0, sizeof d);
	d.o = o;
	d.q = q;
	pthread_barrier_init(&d.start, NULL, THREADS);
	head = scq_hooks.head(aq);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&tid[i], NULL, scq_drainer, &d), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&d.start);
	uint64_t faas = scq_hooks.head(aq) - head;
	print_message("    scq: %d dequeues of an empty queue made %llu FAAs on Head, threshold %lld\n",
		      THREADS * 2000, (unsigned long long)faas,
		      (long long)scq_hooks.threshold(aq));
	assert_int_equal(atomic_load(&d.got), 0);
	assert_true(scq_hooks.threshold(aq) < 0);
	assert_true(faas >= (uint64_t)reset && faas <= (uint64_t)(2 * reset + 1 + THREADS));

	head = scq_hooks.head(aq);
	assert_int_not_equal(o->dequeue(h, &item), 0);
	assert_int_equal(scq_hooks.head(aq), head); /* at once */
	assert_int_equal(o->enqueue(h, (void *)2), 0);
	assert_int_equal(scq_hooks.threshold(aq), reset);
	assert_int_equal(o->dequeue(h, &item), 0);
	assert_ptr_equal(item, (void *)2);
	assert_int_not_equal(o->dequeue(h, &item), 0);
	o->thread_fini(q, h);
	o->destroy(q);
}

/*
 * A script of steps (scq.h) is an interleaving real threads can produce;
 * the tests below run one on the real SCQ and on a mutant, on an index ring
 * of n indices, and the mutant must fail where SCQ does not.
 *
 * stale_dequeuers: `stale` dequeuers each pass the threshold check, take a
 * position with FAA on Head, find the ring empty, catch Tail up, and stop
 * just before their decrement. An enqueue of index 0 then runs alone and
 * returns (it finds the threshold already at its reset value). The stale
 * dequeuers decrement and return empty (they saw an empty ring: right). A
 * new dequeue follows: index 0 is inside, and no other dequeue is running,
 * so it must be returned. Returns 0 if it was, 1 if the dequeue reported
 * empty with index 0 inside (shown: a later enqueue lets it out first).
 */
static int stale_dequeuers(const struct scq_hooks *k, size_t n, unsigned stale)
{
	struct scq_ring *r = k->ring_create(n);
	unsigned idx = 99, dummy;
	int failed = 0;
	assert_non_null(r);
	k->enqueue(r, 0); /* the threshold is set, index 0 comes back */
	assert_int_equal(k->dequeue(r, &idx), 0);
	assert_int_equal(idx, 0);
	for (unsigned i = 0; i < stale; i++) {
		assert_true(k->threshold(r) >= 0); /* each passed the check */
		assert_int_equal(k->dequeue_at(r, k->faa_head(r), &dummy), SCQ_CAUGHT_UP);
	}
	k->enqueue(r, 0);
	for (unsigned i = 0; i < stale; i++)
		k->threshold_dec(r);
	if (k->dequeue(r, &idx) != 0) {
		failed = 1;
		k->enqueue(r, 1);
		assert_int_equal(k->dequeue(r, &idx), 0);
		assert_int_equal(idx, 0); /* it was there all along */
		assert_int_equal(k->dequeue(r, &idx), 0);
		assert_int_equal(idx, 1);
	} else {
		assert_int_equal(idx, 0);
	}
	assert_int_not_equal(k->dequeue(r, &idx), 0);
	k->ring_destroy(r);
	return failed;
}

/*
 * late_enqueuer: the ring is in use (the threshold set). An enqueuer takes
 * position t with FAA on Tail and stops there. A dequeuer takes the same
 * position t with FAA on Head, finds the entry still of the lap before,
 * closes it (its cycle set to t's), catches Tail up and returns empty. The
 * enqueuer goes on at t: it must pass t over (its dequeuer has gone) and
 * take the next position. Returns 0 if index 0 then comes out, 1 if it is
 * lost: 4n + 4 dequeues all report empty after its enqueue returned.
 */
static int late_enqueuer(const struct scq_hooks *k, size_t n)
{
	struct scq_ring *r = k->ring_create(n);
	unsigned idx = 99;
	int lost = 1;
	assert_non_null(r);
	k->enqueue(r, 1);
	assert_int_equal(k->dequeue(r, &idx), 0);
	assert_int_equal(idx, 1);
	uint64_t t = k->faa_tail(r);
	assert_int_not_equal(k->dequeue(r, &idx), 0); /* took position t */
	assert_int_equal(k->head(r), t + 1);
	if (!k->enqueue_at(r, t, 0))
		k->enqueue(r, 0); /* passed over: the enqueue goes on */
	for (size_t i = 0; i < 4 * n + 4 && lost; i++)
		if (k->dequeue(r, &idx) == 0) {
			assert_int_equal(idx, 0);
			lost = 0;
		}
	k->ring_destroy(r);
	return lost;
}

/*
 * Mutant 1, "wrong threshold: 2n-1 instead of 3n-1" (scq_hooks_m1). With 2n
 * stale dequeuers (2n + 1 threads) the real threshold ends at n - 1 and the
 * new dequeue finds index 0; the mutant's ends at -1 and the dequeue reports
 * empty with index 0 inside, within 4n + 3 steps. Mutant 2 passes (the
 * script tests the threshold alone). And the limit: with 3n stale dequeuers
 * (3n + 1 threads) the real SCQ fails the same way; create admits at most n
 * threads, the paper's bound (scq.c, "Threads"). The scripts run beyond it
 * on purpose: they show where the threshold's margin ends.
 */
static void test_scq_mutant_threshold(void **state)
{
	(void)state;
	assert_non_null(scq_hooks_m1.mutation);
	print_message("    mutant 1: %s\n", scq_hooks_m1.mutation);
	for (size_t n = 2; n <= 8; n *= 2) {
		assert_int_equal(stale_dequeuers(&scq_hooks, n, 2 * (unsigned)n), 0);
		assert_int_equal(stale_dequeuers(&scq_hooks_m2, n, 2 * (unsigned)n), 0);
		assert_int_equal(stale_dequeuers(&scq_hooks_m1, n, 2 * (unsigned)n), 1);
		assert_int_equal(stale_dequeuers(&scq_hooks, n, 3 * (unsigned)n), 1);
	}
}

/*
 * Mutant 2, "wrong cycle comparison: enqueue takes Cycle(entry) <= Cycle(T),
 * not <" (scq_hooks_m2). The comparison the paper's safety rests on: a
 * dequeuer that found position t empty sets the entry's cycle to t's, and the
 * strict < is what then keeps the late enqueuer of t out. The mutant fills
 * t anyway, behind Head: its item is lost (late_enqueuer returns 1). The
 * real SCQ and mutant 1 deliver it.
 */
static void test_scq_mutant_cycle(void **state)
{
	(void)state;
	assert_non_null(scq_hooks_m2.mutation);
	print_message("    mutant 2: %s\n", scq_hooks_m2.mutation);
	for (size_t n = 1; n <= 8; n *= 2) {
		assert_int_equal(late_enqueuer(&scq_hooks, n), 0);
		assert_int_equal(late_enqueuer(&scq_hooks_m1, n), 0);
		assert_int_equal(late_enqueuer(&scq_hooks_m2, n), 1);
	}
}

/* ---- LCRQ (peers/lcrq.c): its CRQ, its list, its mutants ------------------ */

/*
 * One CRQ of R cells, one thread, lap after lap: R enqueues fit, the next
 * finds the ring full (t - Head >= R) and closes it, and every enqueue after
 * that returns closed (Tail's closed bit), without taking a cell; the R
 * items come out in order, then empty, again and again (fixState keeps Tail
 * up with Head). Rounds of partial fills first move the positions off the
 * laps' starts.
 */
static void test_lcrq_crq(void **state)
{
	(void)state;
	for (size_t R = 2; R <= 16; R *= 2) {
		const struct lcrq_hooks *k = &lcrq_hooks;
		struct lcrq_crq *c = k->crq_create(R);
		uint64_t x, next = 1, want = 1;
		assert_non_null(c);
		for (int round = 0; round < 3 * (int)R + 1; round++) { /* partial: 1..R-1 in, all out */
			size_t in = (size_t)round % (R - 1) + 1;
			for (size_t i = 0; i < in; i++)
				assert_int_equal(k->crq_enqueue(c, next++), 0);
			for (size_t i = 0; i < in; i++) {
				assert_int_equal(k->crq_dequeue(c, &x), 0);
				assert_int_equal(x, want++);
			}
			for (int e = 0; e < 3; e++) /* empty, and Tail kept up with Head */
				assert_int_not_equal(k->crq_dequeue(c, &x), 0);
			assert_true(k->tail(c) >= k->head(c));
		}
		for (size_t i = 0; i < R; i++)
			assert_int_equal(k->crq_enqueue(c, next++), 0);
		assert_false(k->closed(c));
		assert_int_not_equal(k->crq_enqueue(c, 0), 0); /* full: closes */
		assert_true(k->closed(c));
		assert_int_equal(k->enqueue_at(c, k->faa_tail(c), 0), LCRQ_ENQ_CLOSED);
		for (size_t i = 0; i < R; i++) {
			assert_int_equal(k->crq_dequeue(c, &x), 0);
			assert_int_equal(x, want++);
		}
		assert_int_not_equal(k->crq_dequeue(c, &x), 0);
		assert_int_not_equal(k->crq_enqueue(c, 1), 0); /* closed for good */
		k->crq_destroy(c);
	}
}

/*
 * The list, one thread, CRQs of 2 cells: every third enqueue closes the
 * tail CRQ and links a new one; items come out in FIFO order across them,
 * NULL and all-ones included; a drained CRQ is retired when Head moves past
 * it and recycled (its own thread's hazard pointer does not hold it): 200
 * rounds link about 200 CRQs and allocate one, the others come from the
 * pool. A second handle (a departed thread's record reused) works the same.
 */
static void test_lcrq_list(void **state)
{
	const struct hq_ops *o = lcrq_hooks.ops;
	char err[256] = "";
	(void)state;
	void *q = lcrq_hooks.create_sized(2, err, sizeof err);
	assert_non_null(q);
	assert_null(lcrq_hooks.create_sized(3, err, sizeof err));
	assert_non_null(strstr(err, "power of two"));
	uintptr_t next = 1, want = 1;
	for (int round = 0; round < 200; round++) {
		void *h = o->thread_init(q, err, sizeof err), *item;
		assert_non_null(h);
		for (int i = 0; i < 3; i++)
			assert_int_equal(o->enqueue(h, (void *)next++), 0);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(o->dequeue(h, &item), 0);
			assert_int_equal((uintptr_t)item, want++);
		}
		assert_int_not_equal(o->dequeue(h, &item), 0);
		if (round % 50 == 0) { /* values the full bit must not be confused by */
			assert_int_equal(o->enqueue(h, NULL), 0);
			assert_int_equal(o->enqueue(h, (void *)~(uintptr_t)0), 0);
			assert_int_equal(o->dequeue(h, &item), 0);
			assert_null(item);
			assert_int_equal(o->dequeue(h, &item), 0);
			assert_ptr_equal(item, (void *)~(uintptr_t)0);
		}
		o->thread_fini(q, h);
	}
	print_message("    lcrq ring 2: %llu CRQs linked, %llu allocated\n",
		      (unsigned long long)lcrq_hooks.appended(q),
		      (unsigned long long)lcrq_hooks.allocated(q));
	assert_true(lcrq_hooks.appended(q) >= 200);
	assert_true(lcrq_hooks.allocated(q) <= 2);
	o->destroy(q);
}

/* Stress with tiny rings: CRQs close (full, starving) and are linked,
 * retired and recycled under the threads' hazard pointers. Producers send
 * (producer, sequence) items, consumers check each producer's order (FIFO)
 * and count each item: every item exactly once. */
#ifdef __SANITIZE_THREAD__
#define LCRQ_ITEMS 20000u
#else
#define LCRQ_ITEMS 100000u
#endif

struct lcrq_run {
	void *q;
	unsigned np;
	uint64_t total;
	_Atomic uint32_t *seen;
	_Atomic uint64_t consumed, bad, out_of_order;
	_Atomic int timed_out, init_failed;
	double deadline;
	pthread_barrier_t start;
};

struct lcrq_worker {
	struct lcrq_run *r;
	unsigned index;
};

static void *lcrq_attach(struct lcrq_run *r)
{
	char err[256];
	void *h = lcrq_hooks.ops->thread_init(r->q, err, sizeof err);
	if (!h)
		atomic_store(&r->init_failed, 1);
	pthread_barrier_wait(&r->start);
	return h;
}

static void lcrq_wait(struct lcrq_run *r, unsigned *fails)
{
	if (++*fails % 256 == 0 && now_s() > r->deadline)
		atomic_store(&r->timed_out, 1);
	sched_yield();
}

static void *lcrq_producer(void *arg)
{
	struct lcrq_worker *w = arg;
	struct lcrq_run *r = w->r;
	unsigned fails = 0;
	void *h = lcrq_attach(r);
	for (uint64_t seq = 1; h && seq <= LCRQ_ITEMS && !atomic_load(&r->timed_out);) {
		uintptr_t v = (uintptr_t)(((uint64_t)w->index + 1) << 32 | seq);
		if (lcrq_hooks.ops->enqueue(h, (void *)v) == 0)
			seq++;
		else
			lcrq_wait(r, &fails); /* out of memory only */
	}
	if (h)
		lcrq_hooks.ops->thread_fini(r->q, h);
	return NULL;
}

static void *lcrq_consumer(void *arg)
{
	struct lcrq_worker *w = arg;
	struct lcrq_run *r = w->r;
	unsigned fails = 0;
	uint64_t last[8] = {0};
	void *h = lcrq_attach(r);
	while (h && atomic_load(&r->consumed) < r->total && !atomic_load(&r->timed_out)) {
		void *item;
		if (lcrq_hooks.ops->dequeue(h, &item) != 0) {
			lcrq_wait(r, &fails);
			continue;
		}
		uint64_t v = (uintptr_t)item, pr = (v >> 32) - 1, seq = v & 0xffffffffu;
		if (pr >= r->np || seq < 1 || seq > LCRQ_ITEMS) {
			atomic_fetch_add(&r->bad, 1);
		} else {
			if (seq <= last[pr])
				atomic_fetch_add(&r->out_of_order, 1);
			last[pr] = seq;
			atomic_fetch_add_explicit(&r->seen[pr * LCRQ_ITEMS + seq - 1], 1,
						  memory_order_relaxed);
		}
		atomic_fetch_add(&r->consumed, 1);
	}
	if (h)
		lcrq_hooks.ops->thread_fini(r->q, h);
	return NULL;
}

static uint64_t lcrq_stress(size_t ring, unsigned np, unsigned nc)
{
	struct lcrq_run r;
	char err[256] = "";
	unsigned nt = np + nc;
	pthread_t tid[nt];
	struct lcrq_worker wk[nt];
	double t0 = now_s();

	assert_true(np <= 8);
	memset(&r, 0, sizeof r);
	r.np = np;
	r.total = (uint64_t)np * LCRQ_ITEMS;
	r.seen = calloc(r.total, sizeof *r.seen);
	assert_non_null(r.seen);
	r.deadline = t0 + DEADLINE_S;
	r.q = lcrq_hooks.create_sized(ring, err, sizeof err);
	if (!r.q)
		print_error("lcrq: create failed: %s\n", err);
	assert_non_null(r.q);
	pthread_barrier_init(&r.start, NULL, nt);
	for (unsigned i = 0; i < nt; i++) {
		wk[i].r = &r;
		wk[i].index = i < np ? i : i - np;
		assert_int_equal(pthread_create(&tid[i], NULL, i < np ? lcrq_producer : lcrq_consumer,
						&wk[i]), 0);
	}
	for (unsigned i = 0; i < nt; i++)
		pthread_join(tid[i], NULL);
	uint64_t appended = lcrq_hooks.appended(r.q);
	print_message("    lcrq ring %zu %uP%uC: %llu items in %.2f s, %llu CRQs linked, %llu allocated\n",
		      ring, np, nc, (unsigned long long)atomic_load(&r.consumed), now_s() - t0,
		      (unsigned long long)appended, (unsigned long long)lcrq_hooks.allocated(r.q));
	assert_int_equal(atomic_load(&r.init_failed), 0);
	assert_false(atomic_load(&r.timed_out));
	assert_int_equal(atomic_load(&r.bad), 0);
	assert_int_equal(atomic_load(&r.out_of_order), 0);
	uint64_t wrong = 0;
	for (uint64_t v = 0; v < r.total; v++) {
		uint32_t s = atomic_load_explicit(&r.seen[v], memory_order_relaxed);
		if (s != 1 && wrong++ < 5)
			print_error("lcrq: item %llu of producer %llu seen %u times\n",
				    (unsigned long long)(v % LCRQ_ITEMS + 1),
				    (unsigned long long)(v / LCRQ_ITEMS), s);
	}
	assert_int_equal(wrong, 0);
	assert_true(lcrq_hooks.allocated(r.q) <= appended);
	/* empty, and still a queue */
	void *h = lcrq_hooks.ops->thread_init(r.q, err, sizeof err), *item;
	assert_non_null(h);
	assert_int_not_equal(lcrq_hooks.ops->dequeue(h, &item), 0);
	assert_int_equal(lcrq_hooks.ops->enqueue(h, (void *)7), 0);
	assert_int_equal(lcrq_hooks.ops->dequeue(h, &item), 0);
	assert_ptr_equal(item, (void *)7);
	lcrq_hooks.ops->thread_fini(r.q, h);
	lcrq_hooks.ops->destroy(r.q);
	pthread_barrier_destroy(&r.start);
	free(r.seen);
	return appended;
}

static void test_lcrq_stress(void **state)
{
	uint64_t appended = 0;
	(void)state;
	appended += lcrq_stress(2, 1, 1);
	appended += lcrq_stress(2, 2, 2);
	appended += lcrq_stress(4, 1, 3);
	appended += lcrq_stress(4, 3, 1);
	appended += lcrq_stress(8, 4, 4);
	appended += lcrq_stress(2, 5, 2);
	assert_true(appended > 0); /* the list's path ran: CRQs closed and were linked */
}

/*
 * Scripts of steps (lcrq.h) on one CRQ of R cells, each an interleaving
 * real threads can produce, run on LCRQ and on its mutants.
 *
 * unsafe_passed: item A goes in at position 0 and its dequeuer D1 takes
 * position 0 with F&A on Head and stops. Dequeues of the empty positions 1
 * .. R-1 return empty. An enqueuer E takes position R (the same cell, the
 * next lap) and stops. A dequeuer D2 takes position R, finds A there (an
 * older lap's item): the unsafe transition, and returns empty (E has not
 * finished: right). D1 goes on and takes A: the cell is empty, its idx R.
 * E goes on at R: the cell is empty at its idx but unsafe and Head is past
 * R: its dequeuer has gone, it must pass R over and take the next position.
 * Returns 0 if E's item then comes out, 1 if it is lost: 4R + 4 dequeues
 * all report empty after its enqueue returned.
 */
static int unsafe_passed(const struct lcrq_hooks *k, size_t R)
{
	struct lcrq_crq *c = k->crq_create(R);
	uint64_t x = 0;
	int lost = 1;
	assert_non_null(c);
	assert_int_equal(k->crq_enqueue(c, 100), 0);
	uint64_t h0 = k->faa_head(c); /* D1 */
	assert_int_equal(h0, 0);
	for (size_t i = 1; i < R; i++)
		assert_int_not_equal(k->crq_dequeue(c, &x), 0);
	uint64_t t = k->faa_tail(c); /* E */
	assert_int_equal(t, R);
	assert_int_not_equal(k->crq_dequeue(c, &x), 0); /* D2 at R */
	assert_int_equal(k->dequeue_at(c, h0, &x), LCRQ_DEQ_TAKEN);
	assert_int_equal(x, 100);
	if (k->enqueue_at(c, t, 200) != LCRQ_ENQ_OK)
		assert_int_equal(k->crq_enqueue(c, 200), 0); /* passed over: E goes on */
	for (size_t i = 0; i < 4 * R + 4 && lost; i++)
		if (k->crq_dequeue(c, &x) == 0) {
			assert_int_equal(x, 200);
			lost = 0;
		}
	k->crq_destroy(c);
	return lost;
}

/*
 * late_enqueuer: the CRQ is in use (one item in and out). An enqueuer E
 * takes position t with F&A on Tail and stops. A dequeuer takes the same
 * position, finds the cell empty, closes it (the empty transition: its idx
 * t + R), runs fixState and returns empty. E goes on at t: the cell's idx is
 * past t, so it must pass t over and take the next position. Returns 0 if
 * E's item then comes out, 1 if it is lost (4R + 4 empty dequeues).
 */
static int late_enqueuer_crq(const struct lcrq_hooks *k, size_t R)
{
	struct lcrq_crq *c = k->crq_create(R);
	uint64_t x = 0;
	int lost = 1;
	assert_non_null(c);
	assert_int_equal(k->crq_enqueue(c, 1), 0);
	assert_int_equal(k->crq_dequeue(c, &x), 0);
	assert_int_equal(x, 1);
	uint64_t t = k->faa_tail(c);
	assert_int_not_equal(k->crq_dequeue(c, &x), 0); /* took position t */
	assert_int_equal(k->head(c), t + 1);
	if (k->enqueue_at(c, t, 200) != LCRQ_ENQ_OK)
		assert_int_equal(k->crq_enqueue(c, 200), 0);
	for (size_t i = 0; i < 4 * R + 4 && lost; i++)
		if (k->crq_dequeue(c, &x) == 0) {
			assert_int_equal(x, 200);
			lost = 0;
		}
	k->crq_destroy(c);
	return lost;
}

/*
 * Mutant 1, "no unsafe transition" (lcrq_hooks_m1): D2 passes A without
 * clearing safe, so E, once D1 has taken A, finds a safe empty cell at its
 * idx and fills it behind Head: its item is lost. LCRQ and mutants 2 and 3
 * deliver it (the script turns on the unsafe bit alone).
 */
static void test_lcrq_mutant_unsafe(void **state)
{
	(void)state;
	assert_non_null(lcrq_hooks_m1.mutation);
	print_message("    mutant 1: %s\n", lcrq_hooks_m1.mutation);
	for (size_t R = 2; R <= 16; R *= 2) {
		assert_int_equal(unsafe_passed(&lcrq_hooks, R), 0);
		assert_int_equal(unsafe_passed(&lcrq_hooks_m2, R), 0);
		assert_int_equal(unsafe_passed(&lcrq_hooks_m3, R), 0);
		assert_int_equal(unsafe_passed(&lcrq_hooks_m1, R), 1);
	}
}

/*
 * Mutant 2, "enqueue's CAS2 at its tail position without the index (cycle)
 * check" (lcrq_hooks_m2): the late enqueuer fills the cell its dequeuer
 * closed off (idx t + R), behind Head: lost. LCRQ and mutant 1 deliver.
 */
static void test_lcrq_mutant_cycle(void **state)
{
	(void)state;
	assert_non_null(lcrq_hooks_m2.mutation);
	print_message("    mutant 2: %s\n", lcrq_hooks_m2.mutation);
	for (size_t R = 2; R <= 16; R *= 2) {
		assert_int_equal(late_enqueuer_crq(&lcrq_hooks, R), 0);
		assert_int_equal(late_enqueuer_crq(&lcrq_hooks_m1, R), 0);
		assert_int_equal(late_enqueuer_crq(&lcrq_hooks_m2, R), 1);
	}
}

/*
 * Mutant 3, "no empty transition" (lcrq_hooks_m3): the dequeuer leaves t's
 * empty cell as it was, and the late enqueuer fills it behind Head: lost.
 */
static void test_lcrq_mutant_empty(void **state)
{
	(void)state;
	assert_non_null(lcrq_hooks_m3.mutation);
	print_message("    mutant 3: %s\n", lcrq_hooks_m3.mutation);
	for (size_t R = 2; R <= 16; R *= 2) {
		assert_int_equal(late_enqueuer_crq(&lcrq_hooks, R), 0);
		assert_int_equal(late_enqueuer_crq(&lcrq_hooks_m3, R), 1);
	}
}

/* ---- main: one test per (case, adapter) ----------------------------------- */

int main(void)
{
	static struct CMUnitTest tests[96];
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
	} cases[] = {{"single", test_single}, {"2p2c", test_2p2c}, {"4p4c", test_4p4c}};
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_registry);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_checksum_telescopes);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_item_sum_widths_agree);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (const struct hq_ops *const *o = hq_all; *o; o++) {
			char *name;
			if ((*o)->test_only) /* broken on purpose: test_bench.c catches them */
				continue;
			if (asprintf(&name, "%s/%s", cases[c].name, (*o)->name) < 0)
				return 2;
			tests[n++] = (struct CMUnitTest){name, cases[c].fn, NULL, NULL, (void *)*o};
		}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_numaring_2node);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_capacity_is_the_whole_queue);
	tests[n++] = (struct CMUnitTest){"scq/edges", test_scq_edges, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"scq/stress", test_scq_stress, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"scq/threshold", test_scq_threshold, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"scq/mutant-threshold", test_scq_mutant_threshold, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"scq/mutant-cycle", test_scq_mutant_cycle, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"lcrq/crq", test_lcrq_crq, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"lcrq/list", test_lcrq_list, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"lcrq/stress", test_lcrq_stress, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"lcrq/mutant-unsafe", test_lcrq_mutant_unsafe, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"lcrq/mutant-cycle", test_lcrq_mutant_cycle, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"lcrq/mutant-empty", test_lcrq_mutant_empty, NULL, NULL, NULL};
	if (getenv("PEERS_FILTER"))
		cmocka_set_test_filter(getenv("PEERS_FILTER"));
	return _cmocka_run_group_tests("peers", tests, n, NULL, NULL);
}
