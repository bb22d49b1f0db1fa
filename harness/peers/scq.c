/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scq.c - SCQ, the lock-free bounded FIFO queue of Ruslan Nikolaev, "A
 * Scalable, Portable, and Memory-Efficient Lock-Free FIFO Queue", DISC 2019
 * (LIPIcs 146, 28:1-28:16; full version arXiv:1908.04511). Written here from
 * the paper's pseudocode (its SCQ enqueue, dequeue and catchup, and its
 * indirection through two index rings for pointer-sized data); no code of the
 * authors' or of any other implementation was used.
 *
 * The index ring. For n indices (0..n-1) it has 2n entries and two
 * free-running 64-bit positions, Head and Tail, that dequeuers and
 * enqueuers advance with fetch-and-add: position p is entry remap(p mod 2n)
 * in lap ("cycle") p / 2n. Each entry is one 64-bit word that packs
 *
 *     bits 63..b+1  Cycle    the lap of the position that last wrote it
 *     bit  b        IsSafe   0: a dequeuer passed this entry while an older
 *                            lap's index still sat in it (see enqueue_at)
 *     bits b-1..0   Index    0..n-1, or BOT = 2n - 1 (all ones): none
 *
 * with b = log2(2n). No double-width CAS: SCQ needs none (only LSCQ's
 * linking and SCQ2's pointer entries do). The positions start at 2n (lap 1)
 * with every entry {Cycle 0, IsSafe 1, BOT}; a 64-bit position does not wrap
 * in the life of a run (2^63 operations), so cycles compare as plain
 * unsigned numbers and fit their 63 - b bits.
 *
 *   enqueue(idx): T = FAA(Tail); the entry takes {Cycle(T), 1, idx} by CAS if
 *     its Cycle is older than T's, it holds BOT, and it is safe or Head has
 *     not passed T yet; else take another T. Then Threshold = 3n - 1.
 *   dequeue: if Threshold < 0 return empty at once. H = FAA(Head); if the
 *     entry's Cycle is H's, take its index (OR in BOT). Else, if its Cycle
 *     is older, CAS it to {Cycle(H), IsSafe, BOT} when it holds BOT (the
 *     enqueuer of H, if late, must not use it) or clear its IsSafe when it
 *     holds an older lap's index (kept for its own dequeuer). Then if
 *     Tail <= H + 1, catch Tail up to H + 1, decrement Threshold and return
 *     empty; else decrement Threshold and return empty if it was <= 0,
 *     otherwise try the next H.
 *
 * Threshold bounds the dequeuers' failed attempts so that they cannot
 * livelock on an empty queue: a dequeuer that finds it below zero returns
 * empty without touching Head; every enqueue sets it back to 3n - 1, which
 * the paper shows is enough for a dequeuer to reach the item just
 * enqueued. Catchup moves Tail forward to Head after dequeuers overran an
 * empty queue, so that the next enqueuer does not try the positions they
 * already closed one by one.
 *
 * The queue of pointers: a data array of n slots and two index rings, aq
 * (allocated: indices of slots that hold an item, in FIFO order; starts
 * empty) and fq (free: indices of free slots; starts with all n).
 * enqueue(ptr): i = fq.dequeue, empty means full; data[i] = ptr;
 * aq.enqueue(i). dequeue: i = aq.dequeue, empty means empty; ptr =
 * data[i]; fq.enqueue(i). An index ring never fills: only n indices exist.
 * --capacity N is n (a power of two >= 2) and the queue holds exactly N.
 * No allocation, system call or lock on enqueue or dequeue.
 *
 * Memory order. Head, Tail and Threshold are seq_cst: the paper argues
 * (linearizability of "empty", the 3n - 1 bound) over one order of their
 * FAAs, loads and stores, and keeping them in C11's single total order lets
 * that argument stand unchanged; on x86-64 it costs nothing on the FAAs and
 * loads, and only Threshold's store (when it is not already 3n - 1) becomes
 * an xchg. The entries, which carry the indices (and so the data slots), use
 * acquire/release; each access says what it pairs with.
 *
 * Threads. create refuses more threads than n (--capacity): k <= n is the
 * bound under which the paper argues that 3n - 1 failed attempts are enough
 * for a dequeuer to reach the last enqueued item (its lock-freedom argument
 * for the threshold, as we recall it: the text was not at hand for this
 * check, see below); the reference code checks nothing and leaves the bound
 * to its caller. This file used to admit 2n threads on a count of our own
 * (at most one stale decrement per other thread plus at most n - 1
 * positions left empty before the item: (2n - 1) + (n - 1) < 3n) that is
 * not a proof: the n - 1 is not shown for positions that enqueuers (each
 * holding one index) are passed over at while Tail runs ahead of Head, and
 * a peer in a benchmark should run where its algorithm is proven. Above the
 * bound the threshold can run out with an item inside: every dequeue then
 * returns empty until the next enqueue (a linearizability failure; no item
 * is lost); test_peers' scq/mutant-threshold shows it with 3n stale
 * dequeuers (3n + 1 threads), which needs no empty position at all. So we
 * keep to k <= n; scq/edges checks that n + 1 threads are refused.
 *
 * Checked, step by step, against the paper's SCQ pseudocode (its enqueue,
 * dequeue and catchup, and its data-array queue over aq/fq) and against the
 * author's reference code (github.com/rusnikola/lfqueue, lfring_cas1.h:
 * lfring_enqueue, lfring_dequeue, __lfring_catchup; read, not copied):
 *   entry encoding: Cycle above IsSafe above an Index field of log2(2n)
 *     bits, BOT = 2n - 1 (all ones), so that OR-ing BOT in consumes an
 *     entry and keeps Cycle and IsSafe: the same;
 *   initial state: Head = Tail = 2n, entries {0, 1, BOT}, Threshold -1 (the
 *     paper's; the reference starts the positions at 0 with all-ones
 *     entries, lap -1 under its signed compare): the same behaviour;
 *   enqueue: Cycle(E) < Cycle(T), Index(E) = BOT, and IsSafe(E) or
 *     Head <= T; CAS failure re-reads the same entry; then the threshold
 *     load and, if it is not 3n - 1, the store: the same;
 *   dequeue: Threshold < 0 returns empty before any FAA; Cycle(E) =
 *     Cycle(H) takes the index by OR; an older Cycle is CASed to {Cycle(H),
 *     IsSafe(E), BOT} (no index) or {Cycle(E), 0, Index(E)} (an index of an
 *     older lap); a newer Cycle is left alone; then Tail <= H + 1 catches
 *     up, decrements and returns empty, else empty if the decrement saw
 *     <= 0: the same;
 *   catchup: CAS Tail from tail to head, on failure re-read Head and Tail
 *     and stop once Tail >= Head: the same (a strong CAS where the
 *     reference's is weak: a spurious failure there only re-reads);
 *   the data-array queue: fq starts with all n indices and Threshold 3n - 1
 *     (the reference's "full" ring), enqueue = fq.dequeue, write the slot,
 *     aq.enqueue; dequeue = aq.dequeue, read the slot, fq.enqueue: the same.
 * What ours leaves out or changes:
 *   - cycles compare as plain unsigned numbers, not by the signed
 *     difference that makes the reference wrap-safe: our positions are
 *     64-bit and start at 2n, and wrap only after 2^63 operations on one
 *     ring (about 290 years at 10^9 a second); the entry keeps 63 - b bits
 *     of cycle, enough below that;
 *   - the reference's dequeuer re-reads an entry up to 10000 times, hoping
 *     for a late enqueuer, before it closes it: a tuning outside the
 *     paper's pseudocode, left out (it changes only how often an entry is
 *     closed under a slow enqueuer, not what any step does);
 *   - a dequeuer that finds an older lap's index with IsSafe already clear
 *     CASes the same word back where the reference skips the CAS: no state
 *     changes, one RMW more on that rare path;
 *   - no finalize (LSCQ's, for linking rings: SCQ alone has none) and no
 *     "nonempty" shortcut (the reference's option to skip the threshold on
 *     a ring known never to be empty);
 *   - memory orders: ours are at least as strong as the reference's
 *     (seq_cst on Head, Tail and Threshold, see "Memory order"), except the
 *     consuming OR, relaxed where the reference's is acq_rel: nothing is
 *     published through it, and an enqueuer that reads it still
 *     synchronizes with the CAS that cleared IsSafe (ring_dequeue_at);
 *   - threads: k <= n enforced by create (above).
 * The paper's own text was not at hand for this check beyond its abstract
 * (no figure or line numbers are cited for that reason); the steps above
 * were checked against the reference code, which implements the paper's
 * SCQ ring.
 *
 * SCQ_MUTATION (the tests' build only: harness/harness.mk) puts one bug in:
 *   1  Threshold reset to 2n - 1 instead of 3n - 1;
 *   2  enqueue's cycle test Cycle(entry) <= Cycle(T) instead of <: an
 *      enqueuer fills a position whose dequeuer has already passed it.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "peers.h"
#include "scq.h"

#ifndef SCQ_MUTATION
#define SCQ_MUTATION 0
#endif

#if SCQ_MUTATION == 0
#define SCQ_SYM(x) x
#define SCQ_NAME "scq"
#define SCQ_WHAT NULL
#elif SCQ_MUTATION == 1
#define SCQ_SYM(x) x##_m1
#define SCQ_NAME "scq-m1"
#define SCQ_WHAT "wrong threshold: reset to 2n-1 instead of 3n-1"
#elif SCQ_MUTATION == 2
#define SCQ_SYM(x) x##_m2
#define SCQ_NAME "scq-m2"
#define SCQ_WHAT "wrong cycle comparison: enqueue takes Cycle(entry) <= Cycle(T), not <"
#else
#error "SCQ_MUTATION: 0, 1 or 2"
#endif

/* log2 of the entries in HQ_LINE bytes: the remap's stride */
#define SCQ_LINE_SHIFT 4
_Static_assert((8u << SCQ_LINE_SHIFT) == HQ_LINE, "HQ_LINE holds 16 entries");

struct scq_ring {
	/* written by enqueuers (Tail), dequeuers (Head), both (Threshold):
	 * a line pair each */
	_Alignas(HQ_LINE) _Atomic uint64_t tail;
	_Alignas(HQ_LINE) _Atomic uint64_t head;
	_Alignas(HQ_LINE) _Atomic int64_t threshold;
	/* read-only after create */
	_Alignas(HQ_LINE) unsigned bits; /* b = log2(2n) */
	uint64_t bot;                    /* 2n - 1: the Index field's mask, and BOT */
	int64_t reset;                   /* 3n - 1 */
	_Atomic uint64_t *entry;         /* 2n words */
};

struct scq {
	struct scq_ring *aq, *fq;
	void **data; /* n slots, plain: each is handed over through the rings */
	size_t n;
};

/* ---- the index ring ------------------------------------------------------ */

static inline uint64_t cycle_of(const struct scq_ring *r, uint64_t pos)
{
	return pos >> r->bits;
}

static inline uint64_t entry_cycle(const struct scq_ring *r, uint64_t e)
{
	return e >> (r->bits + 1);
}

static inline uint64_t safe_bit(const struct scq_ring *r)
{
	return UINT64_C(1) << r->bits;
}

static inline uint64_t pack(const struct scq_ring *r, uint64_t cycle, uint64_t safe, uint64_t idx)
{
	return cycle << (r->bits + 1) | safe << r->bits | idx;
}

/* The paper's Cache_Remap: consecutive positions land 2n/16 entries apart,
 * on different line pairs once 2n >= 256 (closer in smaller rings; identity
 * below 32 entries). Any permutation of the entries keeps the algorithm:
 * position p and p + 2n still share one entry. */
static inline _Atomic uint64_t *slot_of(const struct scq_ring *r, uint64_t pos)
{
	uint64_t j = pos & r->bot;
	if (r->bits > SCQ_LINE_SHIFT)
		j = (j & ((UINT64_C(1) << SCQ_LINE_SHIFT) - 1)) << (r->bits - SCQ_LINE_SHIFT) |
		    j >> SCQ_LINE_SHIFT;
	return &r->entry[j];
}

static uint64_t ring_faa_tail(struct scq_ring *r)
{
	/* seq_cst: the paper's order of Head/Tail/Threshold (file comment).
	 * Pairs with a dequeuer's load of Tail in dequeue_at (an empty answer
	 * is right only if no enqueuer had a position past its H when it
	 * looked) and with catchup's CAS (which must fail once this has moved
	 * Tail). */
	return atomic_fetch_add_explicit(&r->tail, 1, memory_order_seq_cst);
}

static uint64_t ring_faa_head(struct scq_ring *r)
{
	/* seq_cst: pairs with an enqueuer's load of Head in enqueue_at and
	 * catchup's load of Head; see ring_faa_tail. (That an enqueuer which
	 * sees an IsSafe cleared at H also sees this increment is carried by
	 * the entry's release/acquire chain as well, enqueue_at.) */
	return atomic_fetch_add_explicit(&r->head, 1, memory_order_seq_cst);
}

static int64_t ring_threshold_dec(struct scq_ring *r)
{
	/* seq_cst: the 3n - 1 bound counts these decrements against the
	 * enqueuers' resets and the FAAs on Head in one order (file comment). */
	return atomic_fetch_sub_explicit(&r->threshold, 1, memory_order_seq_cst);
}

/* One enqueue attempt at position t (from ring_faa_tail): 1 if idx went in,
 * 0 if the enqueue must take another position. */
static int ring_enqueue_at(struct scq_ring *r, uint64_t t, unsigned idx)
{
	_Atomic uint64_t *slot = slot_of(r, t);
	uint64_t cyc = cycle_of(r, t);
	/* acquire: pairs with the release of the last RMW on this entry. When
	 * we act on what we read here it is (a) a dequeuer's CAS that cleared
	 * IsSafe at some H, or an OR that took the older index after it (an RMW
	 * continues that CAS's release sequence): acquiring it makes that
	 * dequeuer's FAA on Head visible to our load of Head below, so we cannot
	 * read Head <= t after the dequeuer of t itself has passed the entry
	 * (relaxed could, and we would fill a position nobody will dequeue); or
	 * (b) an entry that we overwrite by the CAS below, which compares the
	 * whole word anyway. */
	uint64_t e = atomic_load_explicit(slot, memory_order_acquire);
	for (;;) {
#if SCQ_MUTATION == 2
		if (entry_cycle(r, e) > cyc || (e & r->bot) != r->bot)
#else
		if (entry_cycle(r, e) >= cyc || (e & r->bot) != r->bot)
#endif
			return 0; /* a dequeuer of this lap passed it, or an index is still there */
		/* seq_cst load: see ring_faa_head. Head > t: the dequeuer of t has
		 * its position already and an unsafe entry may have been passed
		 * by it: do not fill it. */
		if (!(e & safe_bit(r)) && atomic_load_explicit(&r->head, memory_order_seq_cst) > t)
			return 0;
		/* success acq_rel: release publishes idx (and the data slot the
		 * caller wrote before aq.enqueue, or read before fq.enqueue) to
		 * the dequeuer that loads this word with acquire; a weaker order
		 * would let it read the slot before our write (or the next
		 * producer overwrite it before the consumer read it). Its acquire
		 * half is unused, there so that success is not weaker than
		 * failure. failure acquire: the new word is re-examined as the
		 * first load was (same reasons). */
		if (atomic_compare_exchange_weak_explicit(slot, &e, pack(r, cyc, 1, idx),
							  memory_order_acq_rel, memory_order_acquire))
			break;
	}
	/* seq_cst load and store: the reset, in the order of the decrements
	 * (ring_threshold_dec); the load spares the store (an xchg on x86)
	 * when it is already in force. */
#if SCQ_MUTATION == 1
	int64_t reset = (int64_t)r->bot; /* 2n - 1 */
#else
	int64_t reset = r->reset;
#endif
	if (atomic_load_explicit(&r->threshold, memory_order_seq_cst) != reset)
		atomic_store_explicit(&r->threshold, reset, memory_order_seq_cst);
	return 1;
}

static void ring_enqueue(struct scq_ring *r, unsigned idx)
{
	while (!ring_enqueue_at(r, ring_faa_tail(r), idx))
		;
}

/* Move Tail up to head (H + 1) if dequeuers have overrun it; the paper's
 * catchup. */
static void ring_catchup(struct scq_ring *r, uint64_t tail, uint64_t head)
{
	/* seq_cst CAS and loads: with ring_faa_tail and ring_faa_head. The CAS
	 * only moves Tail forward: it fails if an enqueuer has taken a position
	 * since we read Tail, and then we stop once Tail has reached Head. */
	while (!atomic_compare_exchange_strong_explicit(&r->tail, &tail, head, memory_order_seq_cst,
							 memory_order_seq_cst)) {
		head = atomic_load_explicit(&r->head, memory_order_seq_cst);
		tail = atomic_load_explicit(&r->tail, memory_order_seq_cst);
		if (tail >= head)
			break;
	}
}

/* One dequeue attempt at position h (from ring_faa_head). */
static enum scq_at ring_dequeue_at(struct scq_ring *r, uint64_t h, unsigned *idx)
{
	_Atomic uint64_t *slot = slot_of(r, h);
	uint64_t cyc = cycle_of(r, h);
	/* acquire: pairs with the enqueuer's release CAS in enqueue_at (or a
	 * later RMW in its release sequence, a CAS that cleared IsSafe): the
	 * index we return, and the data slot it names, must be the ones it
	 * published. Relaxed would hand the caller a slot it may read before
	 * the producer's write. */
	uint64_t e = atomic_load_explicit(slot, memory_order_acquire);
	for (;;) {
		uint64_t ec = entry_cycle(r, e);
		if (ec == cyc) {
			/* relaxed OR: only this dequeuer takes position h (the FAA
			 * gave it to us alone), the index was acquired above, and
			 * nobody reads data through this BOT: the next enqueuer of
			 * the entry brings its own index, and an enqueuer that
			 * checks IsSafe/Head is covered by the CAS that cleared it
			 * (this OR continues its release sequence). It keeps
			 * Cycle and IsSafe: a later lap may have cleared IsSafe. */
			atomic_fetch_or_explicit(slot, r->bot, memory_order_relaxed);
			*idx = (unsigned)(e & r->bot);
			return SCQ_TAKEN;
		}
		if (ec > cyc)
			break; /* a later lap has been here: nothing to close */
		uint64_t nw = (e & r->bot) == r->bot ? pack(r, cyc, (e >> r->bits) & 1, r->bot)
						     : e & ~safe_bit(r);
		/* success acq_rel: release so that an enqueuer that acquires this
		 * word (or the OR after it) sees our FAA on Head (enqueue_at,
		 * IsSafe); acquire, with failure acquire, because on failure we
		 * look again and may take the index an enqueuer has just put
		 * there (as the first load). */
		if (atomic_compare_exchange_weak_explicit(slot, &e, nw, memory_order_acq_rel,
							  memory_order_acquire))
			break;
	}
	/* seq_cst: pairs with ring_faa_tail: Tail <= H + 1 means no enqueuer
	 * holds a position past ours. */
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_seq_cst);
	if (t <= h + 1) {
		ring_catchup(r, t, h + 1);
		return SCQ_CAUGHT_UP;
	}
	return SCQ_MISSED;
}

static int ring_dequeue(struct scq_ring *r, unsigned *idx)
{
	/* seq_cst: with the enqueuers' reset (enqueue_at) and the decrements */
	if (atomic_load_explicit(&r->threshold, memory_order_seq_cst) < 0)
		return 1;
	for (;;) {
		switch (ring_dequeue_at(r, ring_faa_head(r), idx)) {
		case SCQ_TAKEN:
			return 0;
		case SCQ_CAUGHT_UP:
			ring_threshold_dec(r);
			return 1;
		case SCQ_MISSED:
			if (ring_threshold_dec(r) <= 0)
				return 1;
			break;
		}
	}
}

static void ring_destroy(struct scq_ring *r)
{
	if (r)
		hq_free(r->entry);
	hq_free(r);
}

/* An empty ring for n indices (a power of two >= 1). */
static struct scq_ring *ring_create(size_t n)
{
	struct scq_ring *r;
	if (n == 0 || (n & (n - 1)) || n > (SIZE_MAX >> 5))
		return NULL;
	r = hq_alloc(sizeof *r);
	if (!r)
		return NULL;
	r->entry = hq_alloc(2 * n * sizeof *r->entry);
	if (!r->entry)
		return ring_destroy(r), NULL;
	r->bits = (unsigned)__builtin_ctzll(2 * (unsigned long long)n);
	r->bot = 2 * (uint64_t)n - 1;
	r->reset = 3 * (int64_t)n - 1;
	/* before any thread sees the ring (create runs alone): relaxed */
	for (size_t j = 0; j < 2 * n; j++)
		atomic_init(&r->entry[j], pack(r, 0, 1, r->bot));
	atomic_init(&r->head, 2 * (uint64_t)n);
	atomic_init(&r->tail, 2 * (uint64_t)n);
	atomic_init(&r->threshold, -1);
	return r;
}

/* ---- the queue of pointers (harness/queue.h) ------------------------------- */

static void scq_destroy(void *qv)
{
	struct scq *q = qv;
	ring_destroy(q->aq);
	ring_destroy(q->fq);
	hq_free(q->data);
	hq_free(q);
}

static void *scq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct scq *q;

	if (!hq_pow2(p->capacity) || p->capacity > (UINT32_C(1) << 30)) {
		hb_err(err, errlen, SCQ_NAME ": capacity %zu is not a power of two in 2..2^30",
		       p->capacity);
		return NULL;
	}
	/* The paper's bound, k <= n ("Threads" above); this used to admit 2n,
	 * on an argument of our own that is not a proof. */
	if (p->threads > p->capacity) {
		size_t enough = 2;
		while (enough < p->threads)
			enough *= 2;
		hb_err(err, errlen,
		       SCQ_NAME ": %u threads for capacity %zu: SCQ's threshold (3n-1) holds for at "
				"most capacity threads (the paper's k <= n); give --capacity %zu or more",
		       p->threads, p->capacity, enough);
		return NULL;
	}
	q = hq_alloc(sizeof *q);
	if (q) {
		q->n = p->capacity;
		q->aq = ring_create(q->n);
		q->fq = ring_create(q->n);
		q->data = hq_alloc(q->n * sizeof *q->data);
	}
	if (!q || !q->aq || !q->fq || !q->data) {
		if (q)
			scq_destroy(q);
		hb_err(err, errlen, SCQ_NAME ": out of memory for %zu slots", p->capacity);
		return NULL;
	}
	/* fq holds every index: n enqueues on the empty ring, the state the
	 * paper's algorithm itself reaches (create runs alone) */
	for (size_t i = 0; i < q->n; i++)
		ring_enqueue(q->fq, (unsigned)i);
	return q;
}

static int scq_enqueue(void *h, void *item)
{
	struct scq *q = h;
	unsigned i;
	if (ring_dequeue(q->fq, &i))
		return 1; /* no free slot: full */
	q->data[i] = item; /* published by aq's release CAS (enqueue_at) */
	ring_enqueue(q->aq, i);
	return 0;
}

static int scq_dequeue(void *h, void **item)
{
	struct scq *q = h;
	unsigned i;
	if (ring_dequeue(q->aq, &i))
		return 1; /* empty */
	*item = q->data[i]; /* acquired with i (dequeue_at) */
	ring_enqueue(q->fq, i); /* released before the slot's next producer writes it */
	return 0;
}

const struct hq_ops SCQ_SYM(hq_scq) = {
	.name = SCQ_NAME,
	.description = "SCQ (Nikolaev, DISC 2019) from the paper: FAA on Head/Tail over 2n "
		       "entries, data through two index rings (lock-free; no bursts)",
	.bounded = 1,
	.moves_data = 1,
	.test_only = SCQ_MUTATION != 0,
	.ordering = "fifo",
	.capacity_kind = "exact",
	.memory = "creation",
	.create = scq_create,
	.destroy = scq_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = scq_enqueue,
	.dequeue = scq_dequeue,
};

/* ---- the tests' view (scq.h) ---------------------------------------------- */

static struct scq_ring *hook_ring_of(void *qv, int free_ring)
{
	struct scq *q = qv;
	return free_ring ? q->fq : q->aq;
}

/* The tests' reads (scq.h): seq_cst, as the ring's own accesses to these
 * words, so that a script of steps reads them in the one order the steps
 * made them (the tests run the steps on one thread anyway). */
static int64_t hook_threshold(const struct scq_ring *r)
{
	return atomic_load_explicit(&r->threshold, memory_order_seq_cst);
}

static int64_t hook_threshold_reset(const struct scq_ring *r)
{
	return r->reset;
}

static uint64_t hook_head(const struct scq_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_seq_cst);
}

static uint64_t hook_tail(const struct scq_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_seq_cst);
}

const struct scq_hooks SCQ_SYM(scq_hooks) = {
	.ops = &SCQ_SYM(hq_scq),
	.mutation = SCQ_WHAT,
	.ring_of = hook_ring_of,
	.ring_create = ring_create,
	.ring_destroy = ring_destroy,
	.enqueue = ring_enqueue,
	.dequeue = ring_dequeue,
	.faa_tail = ring_faa_tail,
	.enqueue_at = ring_enqueue_at,
	.faa_head = ring_faa_head,
	.dequeue_at = ring_dequeue_at,
	.threshold_dec = ring_threshold_dec,
	.threshold = hook_threshold,
	.threshold_reset = hook_threshold_reset,
	.head = hook_head,
	.tail = hook_tail,
};
