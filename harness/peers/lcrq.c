/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lcrq.c - LCRQ, the lock-free unbounded FIFO queue of Adam Morrison and
 * Yehuda Afek, "Fast Concurrent Queues for x86 Processors", PPoPP 2013: a
 * linked list of CRQs (concurrent ring queues), each a ring of R cells that
 * enqueuers and dequeuers reach with fetch-and-add on Tail and Head and
 * change with a double-width compare-and-swap (CAS2, x86's cmpxchg16b). It
 * is the queue SCQ (scq.c) was designed to beat without CAS2. Written here
 * from the paper's pseudocode (its CRQ enqueue, dequeue and fixState, and
 * its LCRQ enqueue and dequeue over the list); no code of the authors' or of
 * any other implementation was used. The paper's text was not at hand while
 * this was written: the steps below are the pseudocode as we know it, and
 * no figure or line numbers are cited for that reason.
 *
 * A cell is 16 bytes, one CAS2 word: (safe, idx, val) in the paper.
 *     val  64 bits  the item (any value: NULL and every bit pattern travel)
 *     ctl  64 bits  bit 63 safe, bit 62 full, bits 61..0 idx
 * The paper marks an empty cell with a reserved value ⊥ in val; here "full"
 * says whether val holds an item, so that every item value travels
 * (queue.h's rule); ⊥ is full = 0. Positions are 62-bit (they do not wrap
 * in a run: 2^62 operations on one CRQ), idx compares as a plain number.
 * A CRQ of R cells starts with Head = Tail = 0 and cell i = (1, i, ⊥).
 *
 *   CRQ dequeue: h = F&A(Head). At cell h mod R, (s, idx, val):
 *     idx > h                      a later position has been here: failed;
 *     full, idx = h                CAS2 to (s, h + R, ⊥) and return val;
 *     full, idx < h                an older lap's item whose dequeuer has not
 *                                  come yet: CAS2 to (0, idx, val), the
 *                                  "unsafe" transition, then failed;
 *     empty (idx <= h)             CAS2 to (s, h + R, ⊥), the "empty"
 *                                  transition: h's enqueuer, if late, finds
 *                                  idx > t and goes on; then failed.
 *     A failed CAS2 looks at the cell again. Failed: if Tail <= h + 1 run
 *     fixState and return EMPTY, else take another h.
 *   CRQ enqueue(x): t = F&A(Tail); if Tail's closed bit was set return
 *     CLOSED. At cell t mod R: if it is empty, idx <= t, and it is safe or
 *     Head <= t (no dequeuer has passed t yet), CAS2 it to (1, t, x) and
 *     return OK. Else, if t - Head >= R (the ring is full) or the enqueuer
 *     is starving, set Tail's closed bit (test-and-set) and return CLOSED;
 *     else take another t.
 *   fixState: when dequeuers have overrun Tail (Head > Tail), CAS Tail up
 *     to Head, so that the next enqueuer does not take positions whose
 *     dequeuers have already gone; a closed Tail is left alone.
 *   LCRQ enqueue(x): crq = Tail (the list's); if crq.next is set, move Tail
 *     on (CAS) and retry; if crq.enqueue(x) is not CLOSED, done; else make a
 *     new CRQ holding x alone, CAS it into crq.next (retry on failure) and
 *     move Tail to it.
 *   LCRQ dequeue: crq = Head (the list's); v = crq.dequeue(); if not EMPTY
 *     return v; if crq.next is null return EMPTY; v = crq.dequeue() again
 *     (an enqueue may have gone in between the EMPTY and the close that
 *     preceded next; once next is set the CRQ is closed, so a second EMPTY
 *     is final); if not EMPTY return v; else move Head to crq.next (CAS).
 *
 * Memory reclamation: hazard pointers, as the paper uses (Michael's). One
 * per thread, in a record the thread's handle points to (thread_init finds a
 * free record or links a new one; records live until destroy). An operation
 * publishes the CRQ it will work on (Head's for a dequeue, Tail's for an
 * enqueue) and reads the list's pointer again; a record keeps its hazard
 * pointer between operations, so that the usual operation, on the CRQ it
 * already protects, pays no store or fence for it. Only the dequeuer whose
 * CAS moves Head past a CRQ retires it, after seeing Tail past it too
 * (it moves Tail itself where it is not: Tail never points to a retired
 * CRQ, so a validated Tail is a live CRQ). It scans every record's hazard
 * pointer and recycles what none protects.
 *
 * Allocation: a CRQ is made when one closes (the paper's slow path: a full
 * ring, or an enqueuer starving), from the queue's pool of recycled CRQs
 * under a mutex, else allocated (hq_node_alloc: --queue-mem places it); its
 * R cells are set to their initial values then. A CRQ that lost the race
 * to be linked stays with its thread for its next close. Neither happens on
 * the fast path: an operation on a CRQ that is not closing takes no lock,
 * makes no system call and allocates nothing. Memory is given back at
 * destroy (hq_node_alloc's chunks are the queue's until then).
 *
 * CAS2. GCC's __atomic_compare_exchange_n on unsigned __int128 is not
 * inlined (GCC 7 on calls libatomic's __atomic_compare_exchange_16, through
 * the PLT, and would need -latomic); __sync_val_compare_and_swap on it is,
 * as lock cmpxchg16b, under -mcx16 (the pragma below, for this file only).
 * It is a full barrier (seq_cst, what lock cmpxchg16b is on x86 anyway),
 * stronger than the acq_rel each CAS2 needs (said at each), and
 * ThreadSanitizer instruments it (__tsan_atomic128_compare_exchange_*), so
 * that it sees the hand-over; no inline asm. A cell is read as two 64-bit
 * atomic loads, as the paper reads the fields: the pair may be torn, which
 * costs at most a failed CAS2 (every change of a cell is a CAS2 of all 128
 * bits, and every decision taken without one only passes a position over,
 * which is always allowed, or reads idx > h, and idx never decreases).
 *
 * Layout. Each cell is padded to HQ_LINE (128 bytes, a line pair: x86's
 * adjacent-line prefetcher moves lines in pairs), so that the neighbouring
 * positions consecutive F&As hand to different threads share no line. The
 * paper pads its cells against that false sharing, as we recall it (to a
 * cache line; not re-checked against its text); the project's unit is the
 * line pair, which is where ours may differ. Head, Tail and next each have a
 * line pair.
 * Cells are thus 16-byte aligned, as cmpxchg16b requires.
 *
 * Ring size. R = LCRQ_RING (4096) cells, 512 KiB a CRQ with its padding:
 * fixed, not a setting, so that every run measures the same queue. It is
 * far above the harness's bound of items in flight for an unbounded queue
 * at its default --capacity (harness/run.c), so a CRQ closes on a starving
 * enqueuer rather than on a full ring; --capacity is not used. The ring
 * size of the paper's evaluation was not checked against its text.
 *
 * Starvation. The paper leaves "starving" to the implementation: here an
 * enqueuer that has failed LCRQ_STARVE attempts in one CRQ closes it
 * (our number). Dequeuers that outrun enqueuers on a near-empty queue make
 * those attempts fail; the bound keeps the enqueue lock-free.
 *
 * Memory order. Head and Tail (a CRQ's), and the list's Head and Tail
 * pointers, are seq_cst: the paper argues (linearizability of EMPTY, the
 * unsafe check "Head <= t") over one order of their F&As, loads and CASes;
 * on x86-64 that costs nothing on the RMWs and loads. The list's pointers
 * and the hazard pointers are seq_cst for the hazard pointer argument (the
 * store of a hazard pointer before the reload of what it protects; the
 * reclaimer's CAS before its reads of the hazard pointers). Cells: see each
 * access.
 *
 * What ours leaves out or changes, against the pseudocode as we know it:
 *   - ⊥ is a "full" bit (above), not a reserved value;
 *   - the cell is read as two 64-bit loads and a failed CAS2's value is
 *     reused as the next read (the paper reads the fields again);
 *   - a record's hazard pointer stays set between operations (above);
 *   - CRQs are recycled through a pool, not freed, after their scan;
 *   - no spin-wait for a late enqueuer before the empty transition, and no
 *     other tuning outside the pseudocode.
 *
 * LCRQ_MUTATION (the tests' build only: harness/harness.mk) puts one bug in:
 *   1  no unsafe transition: a dequeuer that finds an older lap's item in
 *      its cell passes on without clearing "safe", so that h's late
 *      enqueuer, once the old item is gone, fills a cell whose dequeuer has
 *      gone: the item is lost;
 *   2  enqueue's CAS2 at its Tail position without the index (cycle) check
 *      idx <= t: a late enqueuer fills a cell its dequeuer has closed off
 *      (idx = t + R) and gone past: the item is lost;
 *   3  no empty transition: a dequeuer that finds its cell empty passes on
 *      without closing it (idx = h + R), so that h's late enqueuer fills it
 *      behind Head: the item is lost.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lcrq.h"
#include "peers.h"

#pragma GCC target("cx16") /* inline lock cmpxchg16b for __sync on 16 bytes (CAS2, above) */

#ifndef LCRQ_MUTATION
#define LCRQ_MUTATION 0
#endif

#if LCRQ_MUTATION == 0
#define LCRQ_SYM(x) x
#define LCRQ_NAME "lcrq"
#define LCRQ_WHAT NULL
#elif LCRQ_MUTATION == 1
#define LCRQ_SYM(x) x##_m1
#define LCRQ_NAME "lcrq-m1"
#define LCRQ_WHAT "no unsafe transition: a dequeuer passes an older lap's item without clearing safe"
#elif LCRQ_MUTATION == 2
#define LCRQ_SYM(x) x##_m2
#define LCRQ_NAME "lcrq-m2"
#define LCRQ_WHAT "enqueue's CAS2 at its tail position without the index (cycle) check idx <= t"
#elif LCRQ_MUTATION == 3
#define LCRQ_SYM(x) x##_m3
#define LCRQ_NAME "lcrq-m3"
#define LCRQ_WHAT "no empty transition: a dequeuer passes an empty cell without closing it"
#else
#error "LCRQ_MUTATION: 0, 1, 2 or 3"
#endif

#define LCRQ_RING 4096u  /* cells per CRQ (R) */
#define LCRQ_STARVE 256u /* failed attempts in one CRQ after which an enqueuer closes it */

#define CTL_SAFE (UINT64_C(1) << 63)
#define CTL_FULL (UINT64_C(1) << 62)
#define CTL_IDX (CTL_FULL - 1)
#define TAIL_CLOSED (UINT64_C(1) << 63)

typedef unsigned __int128 lcrq_u128;

/* One CAS2 word; val the low half (x86-64 is little-endian). */
union lcrq_word {
	lcrq_u128 all;
	struct {
		uint64_t val;
		uint64_t ctl;
	} f;
};

struct lcrq_cell {
	_Alignas(HQ_LINE) union lcrq_word w; /* padded to a line pair (file comment) */
};
_Static_assert(sizeof(struct lcrq_cell) == HQ_LINE, "a cell is a line pair");

struct lcrq_crq {
	/* written by dequeuers (Head), enqueuers (Tail), the closer (next):
	 * a line pair each */
	_Alignas(HQ_LINE) _Atomic uint64_t head;
	_Alignas(HQ_LINE) _Atomic uint64_t tail; /* bit 63: closed */
	_Alignas(HQ_LINE) _Atomic(struct lcrq_crq *) next;
	struct lcrq_crq *link; /* on a retired list or in the pool: its owner's alone */
	uint64_t ring;         /* R, a power of two */
	struct lcrq_cell cell[];
};

/* A thread's record: its hazard pointer and its retired CRQs. */
struct lcrq_rec {
	_Alignas(HQ_LINE) _Atomic(struct lcrq_crq *) hp; /* read by other threads' scans */
	_Atomic int active;                              /* 1 while a thread holds it */
	struct lcrq_rec *next;                           /* in the queue's list; set before it is linked */
	struct lcrq *q;
	struct lcrq_crq *retired; /* retired here, some hazard pointer still on them */
	struct lcrq_crq *spare;   /* made for a close whose link another thread won */
};

struct lcrq {
	_Alignas(HQ_LINE) _Atomic(struct lcrq_crq *) head; /* dequeuers */
	_Alignas(HQ_LINE) _Atomic(struct lcrq_crq *) tail; /* enqueuers */
	_Alignas(HQ_LINE) _Atomic(struct lcrq_rec *) recs; /* pushed by thread_init, never removed */
	pthread_mutex_t pool_lock;
	struct lcrq_crq *pool; /* recycled CRQs, under pool_lock */
	uint64_t ring;
	_Atomic uint64_t appended, allocated; /* for the tests (lcrq.h) */
};

/* ---- a CRQ ------------------------------------------------------------- */

static inline struct lcrq_cell *cell_of(struct lcrq_crq *c, uint64_t pos)
{
	return &c->cell[pos & (c->ring - 1)];
}

/* The cell's two words, each atomically (the pair may be torn: file
 * comment). Acquire on ctl: pairs with the release half of the CAS2 that
 * wrote it (or a later CAS2, all RMWs on the word: one release sequence).
 * An enqueuer that reads "unsafe" here must then read Head past the
 * dequeuer that cleared safe (its F&A is sequenced before its CAS2); relaxed
 * would let it read an older Head and fill a cell that dequeuer has passed.
 * Acquire on val: the item is handed over by the CAS2s themselves (a
 * dequeuer returns val only from its successful CAS2), so this is for the
 * reads to be no weaker than ctl's; it costs nothing on x86. */
static inline union lcrq_word cell_read(struct lcrq_cell *cell)
{
	union lcrq_word w;
	w.f.ctl = __atomic_load_n(&cell->w.f.ctl, __ATOMIC_ACQUIRE);
	w.f.val = __atomic_load_n(&cell->w.f.val, __ATOMIC_ACQUIRE);
	return w;
}

/* CAS2: 1 if *cell was *expect and is now desired; else 0 and *expect is
 * what the cell held (read atomically, all 128 bits). Full barrier (file
 * comment, CAS2); each caller says which half it needs. */
static inline int cas2(struct lcrq_cell *cell, union lcrq_word *expect, union lcrq_word desired)
{
	lcrq_u128 old = __sync_val_compare_and_swap(&cell->w.all, expect->all, desired.all);
	if (old == expect->all)
		return 1;
	expect->all = old;
	return 0;
}

static inline union lcrq_word word(uint64_t val, uint64_t ctl)
{
	union lcrq_word w;
	w.f.val = val;
	w.f.ctl = ctl;
	return w;
}

/* Cells and positions to the paper's initial state: Head = Tail = 0,
 * cell i = (1, i, ⊥). Called on a CRQ no other thread can reach (a new one,
 * or one from the pool after its scan: relaxed stores; whoever reaches it
 * next does so through the release of the CAS that links it). */
static void crq_reset(struct lcrq_crq *c)
{
	for (uint64_t i = 0; i < c->ring; i++) {
		__atomic_store_n(&c->cell[i].w.f.val, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->cell[i].w.f.ctl, CTL_SAFE | i, __ATOMIC_RELAXED);
	}
	atomic_store_explicit(&c->head, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tail, 0, memory_order_relaxed);
	atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
	c->link = NULL;
}

static size_t crq_size(uint64_t ring)
{
	return sizeof(struct lcrq_crq) + ring * sizeof(struct lcrq_cell);
}

static uint64_t crq_faa_tail(struct lcrq_crq *c)
{
	/* seq_cst: the paper's order of Head and Tail (file comment). Pairs
	 * with a dequeuer's load of Tail after a failed position (EMPTY is
	 * right only if no enqueuer held a position past its h when it looked)
	 * and with fixState's CAS (which must fail once this has moved Tail). */
	return atomic_fetch_add_explicit(&c->tail, 1, memory_order_seq_cst);
}

static uint64_t crq_faa_head(struct lcrq_crq *c)
{
	/* seq_cst: pairs with an enqueuer's load of Head (the unsafe check,
	 * the full check) and fixState's; see crq_faa_tail. That an enqueuer
	 * which sees "unsafe" also sees this increment is carried by the
	 * cell's release/acquire as well (cell_read). */
	return atomic_fetch_add_explicit(&c->head, 1, memory_order_seq_cst);
}

/* One enqueue attempt at position t (from crq_faa_tail, closed bit and all). */
static enum lcrq_enq crq_enqueue_at(struct lcrq_crq *c, uint64_t t, uint64_t x)
{
	if (t & TAIL_CLOSED)
		return LCRQ_ENQ_CLOSED;
	struct lcrq_cell *cell = cell_of(c, t);
	union lcrq_word w = cell_read(cell);
	if (w.f.ctl & CTL_FULL)
		return LCRQ_ENQ_MISSED; /* an item of another position is still there */
#if LCRQ_MUTATION != 2
	if ((w.f.ctl & CTL_IDX) > t)
		return LCRQ_ENQ_MISSED; /* t's dequeuer (or a later one) closed it off */
#endif
	/* seq_cst load: with the F&As on Head (crq_faa_head). Unsafe and Head
	 * past t: t's dequeuer may have passed this cell; do not fill it. */
	if (!(w.f.ctl & CTL_SAFE) && atomic_load_explicit(&c->head, memory_order_seq_cst) > t)
		return LCRQ_ENQ_MISSED;
	/* CAS2, release half: publishes x (and what the producer wrote before,
	 * a message's payload) to the dequeuer whose CAS2 takes it (acquire);
	 * weaker, the consumer could read the payload before the producer's
	 * writes. Its compare of all 128 bits is what makes the checks above,
	 * taken on a read that may be torn, hold at the moment of the write. */
	if (cas2(cell, &w, word(x, CTL_SAFE | CTL_FULL | t)))
		return LCRQ_ENQ_OK;
	return LCRQ_ENQ_MISSED; /* the cell changed: the paper moves on */
}

/* fixState: move Tail up to Head if dequeuers have overrun it. */
static void crq_fix_state(struct lcrq_crq *c)
{
	for (;;) {
		/* seq_cst loads and CAS: with the F&As (crq_faa_tail, _head).
		 * Tail read twice around Head: a snapshot in which Head was
		 * read while Tail held t. The CAS only moves Tail forward and
		 * fails if an enqueuer took a position (or closed it) since. A
		 * closed Tail compares above any Head and is left alone. */
		uint64_t t = atomic_load_explicit(&c->tail, memory_order_seq_cst);
		uint64_t h = atomic_load_explicit(&c->head, memory_order_seq_cst);
		if (atomic_load_explicit(&c->tail, memory_order_seq_cst) != t)
			continue;
		if (h <= t)
			return;
		if (atomic_compare_exchange_strong_explicit(&c->tail, &t, h, memory_order_seq_cst,
							    memory_order_seq_cst))
			return;
	}
}

/* One dequeue attempt at position h (from crq_faa_head). */
static enum lcrq_deq crq_dequeue_at(struct lcrq_crq *c, uint64_t h, uint64_t *x)
{
	struct lcrq_cell *cell = cell_of(c, h);
	union lcrq_word w = cell_read(cell);
	for (;;) {
		uint64_t idx = w.f.ctl & CTL_IDX, safe = w.f.ctl & CTL_SAFE;
		if (idx > h)
			break; /* a later position has been here (idx never decreases) */
		if (w.f.ctl & CTL_FULL) {
			if (idx == h) {
				/* CAS2, acquire half: pairs with the enqueuer's CAS2
				 * (crq_enqueue_at) whose x we return: the caller reads
				 * what the producer wrote. Release half: the empty cell
				 * goes to the next lap's enqueuer, which must not write
				 * over x before we read it (we read it from the CAS2's
				 * own compare, so that is moot; it also carries our F&A
				 * on Head to whoever acquires the cell). Keeps safe. */
				if (cas2(cell, &w, word(0, safe | (h + c->ring)))) {
					*x = w.f.val;
					return LCRQ_DEQ_TAKEN;
				}
				continue;
			}
#if LCRQ_MUTATION == 1
			break;
#else
			/* An older lap's item, its dequeuer not come yet: the
			 * unsafe transition. CAS2, release half: an enqueuer of h
			 * that reads this cell's safe bit clear (acquire, cell_read)
			 * then reads our F&A on Head (sequenced before) and does not
			 * fill a cell we have passed; that holds also when it reads
			 * the take that follows (an RMW: our release sequence goes
			 * on), which is why the CAS2 is made even when safe is
			 * already clear (the same word back). */
			if (cas2(cell, &w, word(w.f.val, w.f.ctl & ~CTL_SAFE)))
				break;
			continue;
#endif
		}
#if LCRQ_MUTATION == 3
		break;
#else
		/* Empty at idx <= h: the empty transition closes h off for its
		 * enqueuer (idx = h + R > h). CAS2, release half: as the unsafe
		 * transition's, for the next lap's enqueuer that reads this
		 * word; acquire half: on failure we look at the new word (an
		 * item, perhaps ours) as at the first read. Keeps safe. */
		if (cas2(cell, &w, word(w.f.val, safe | (h + c->ring))))
			break;
#endif
	}
	/* seq_cst: pairs with crq_faa_tail: Tail <= h + 1 means no enqueuer
	 * holds a position past ours: empty. */
	uint64_t t = atomic_load_explicit(&c->tail, memory_order_seq_cst) & ~TAIL_CLOSED;
	if (t <= h + 1) {
		crq_fix_state(c);
		return LCRQ_DEQ_EMPTY;
	}
	return LCRQ_DEQ_MISSED;
}

static void crq_close(struct lcrq_crq *c)
{
	/* seq_cst: the paper's test-and-set of Tail's closed bit, in the order
	 * of the F&As: every F&A after it returns the bit (CLOSED). */
	atomic_fetch_or_explicit(&c->tail, TAIL_CLOSED, memory_order_seq_cst);
}

/* The paper's CRQ enqueue: 0, or 1 when closed. */
static int crq_enqueue(struct lcrq_crq *c, uint64_t x)
{
	for (unsigned tries = 1;; tries++) {
		uint64_t t = crq_faa_tail(c);
		enum lcrq_enq r = crq_enqueue_at(c, t, x);
		if (r != LCRQ_ENQ_MISSED)
			return r == LCRQ_ENQ_CLOSED;
		/* seq_cst: with the F&As on Head; t - Head >= R: full */
		uint64_t h = atomic_load_explicit(&c->head, memory_order_seq_cst);
		if ((int64_t)(t - h) >= (int64_t)c->ring || tries >= LCRQ_STARVE) {
			crq_close(c);
			return 1;
		}
	}
}

/* The paper's CRQ dequeue: 0 and *x, or 1 when empty. */
static int crq_dequeue(struct lcrq_crq *c, uint64_t *x)
{
	for (;;) {
		switch (crq_dequeue_at(c, crq_faa_head(c), x)) {
		case LCRQ_DEQ_TAKEN:
			return 0;
		case LCRQ_DEQ_EMPTY:
			return 1;
		case LCRQ_DEQ_MISSED:
			break;
		}
	}
}

static int ring_ok(size_t ring)
{
	return ring >= 2 && (ring & (ring - 1)) == 0 && ring <= (UINT64_C(1) << 30);
}

/* A lone CRQ for the tests (lcrq.h), from the harness's allocator. */
static struct lcrq_crq *hook_crq_create(size_t ring)
{
	if (!ring_ok(ring))
		return NULL;
	struct lcrq_crq *c = hq_node_alloc(crq_size(ring), HQ_LINE);
	if (c) {
		c->ring = ring;
		crq_reset(c);
	}
	return c;
}

static void hook_crq_destroy(struct lcrq_crq *c)
{
	hq_node_free(c);
}

/* ---- the list of CRQs, hazard pointers ------------------------------------ */

/* A CRQ to link: the pool's, else a new one; reset. NULL: out of memory. */
static struct lcrq_crq *crq_get(struct lcrq *q)
{
	pthread_mutex_lock(&q->pool_lock);
	struct lcrq_crq *c = q->pool;
	if (c)
		q->pool = c->link;
	pthread_mutex_unlock(&q->pool_lock);
	if (!c) {
		c = hq_node_alloc(crq_size(q->ring), HQ_LINE);
		if (!c)
			return NULL;
		c->ring = q->ring;
		/* relaxed: a count for the tests, read after the threads joined */
		atomic_fetch_add_explicit(&q->allocated, 1, memory_order_relaxed);
	}
	crq_reset(c);
	return c;
}

static void crq_put(struct lcrq *q, struct lcrq_crq *c)
{
	pthread_mutex_lock(&q->pool_lock);
	c->link = q->pool;
	q->pool = c;
	pthread_mutex_unlock(&q->pool_lock);
}

/* *src (the list's Head or Tail), protected by r's hazard pointer. */
static struct lcrq_crq *protect(_Atomic(struct lcrq_crq *) *src, struct lcrq_rec *r)
{
	/* seq_cst load: with the CASes that move the pointer (acquire: what
	 * was written to the CRQ before it was linked is visible) */
	struct lcrq_crq *p = atomic_load_explicit(src, memory_order_seq_cst);
	/* relaxed: our own hazard pointer, written by us alone. If it already
	 * holds p, it has held p since p was validated, so p cannot have been
	 * recycled since: no store, no fence (file comment). */
	if (atomic_load_explicit(&r->hp, memory_order_relaxed) == p)
		return p;
	for (;;) {
		/* seq_cst store, then seq_cst load of the pointer: the store
		 * must be ordered before the reload (x86 makes it an xchg), or
		 * a reclaimer's scan could miss it while we read a pointer it
		 * has already moved past; see retire. */
		atomic_store_explicit(&r->hp, p, memory_order_seq_cst);
		struct lcrq_crq *v = atomic_load_explicit(src, memory_order_seq_cst);
		if (v == p)
			return p;
		p = v;
	}
}

/* Hand every retired CRQ of r that no hazard pointer protects to the pool.
 * r's own hazard pointer is not looked at: r's thread does not touch what
 * it has retired again (lcrq_dequeue protects Head anew; thread_fini has
 * cleared it), and its pointer usually still holds the CRQ it has just
 * retired, which would otherwise wait for its next retire. */
static void scan(struct lcrq *q, struct lcrq_rec *r)
{
	struct lcrq_crq *keep = NULL, *c = r->retired;
	while (c) {
		struct lcrq_crq *next = c->link;
		int held = 0;
		/* acquire: pairs with thread_init's release push, for the
		 * records' fields; seq_cst on each hazard pointer: after our CAS
		 * on the list's Head in the single order (retire), so that a
		 * protector's store either is seen here or came after that CAS,
		 * and then its reload saw Head (and Tail) past c. */
		for (struct lcrq_rec *o = atomic_load_explicit(&q->recs, memory_order_acquire); o;
		     o = o->next)
			if (o != r && atomic_load_explicit(&o->hp, memory_order_seq_cst) == c) {
				held = 1;
				break;
			}
		if (held) {
			c->link = keep;
			keep = c;
		} else {
			crq_put(q, c);
		}
		c = next;
	}
	r->retired = keep;
}

static void retire(struct lcrq *q, struct lcrq_rec *r, struct lcrq_crq *c)
{
	c->link = r->retired;
	r->retired = c;
	scan(q, r);
}

static int lcrq_enqueue(void *h, void *item)
{
	struct lcrq_rec *r = h;
	struct lcrq *q = r->q;
	uint64_t x = (uint64_t)(uintptr_t)item;
	for (;;) {
		struct lcrq_crq *c = protect(&q->tail, r);
		/* acquire: pairs with the release CAS that linked next (its
		 * cells' reset before it) */
		struct lcrq_crq *next = atomic_load_explicit(&c->next, memory_order_acquire);
		if (next) {
			/* seq_cst: the list's pointers (file comment); a failure
			 * means another thread moved Tail on */
			atomic_compare_exchange_strong_explicit(&q->tail, &c, next, memory_order_seq_cst,
								memory_order_seq_cst);
			continue;
		}
		if (crq_enqueue(c, x) == 0)
			return 0;
		/* closed: a new CRQ holding x alone (the slow path) */
		struct lcrq_crq *n = r->spare ? r->spare : crq_get(q);
		if (!n)
			return 1; /* out of memory: fails as a full queue's enqueue would */
		r->spare = NULL;
		/* relaxed: n is ours until the CAS below publishes it */
		__atomic_store_n(&n->cell[0].w.f.val, x, __ATOMIC_RELAXED);
		__atomic_store_n(&n->cell[0].w.f.ctl, CTL_SAFE | CTL_FULL | 0, __ATOMIC_RELAXED);
		atomic_store_explicit(&n->tail, 1, memory_order_relaxed);
		struct lcrq_crq *none = NULL;
		/* seq_cst (release at least): publishes n's cells and x to
		 * whoever reads c->next with acquire */
		if (atomic_compare_exchange_strong_explicit(&c->next, &none, n, memory_order_seq_cst,
							    memory_order_seq_cst)) {
			atomic_fetch_add_explicit(&q->appended, 1, memory_order_relaxed); /* tests' count */
			atomic_compare_exchange_strong_explicit(&q->tail, &c, n, memory_order_seq_cst,
								memory_order_seq_cst);
			return 0;
		}
		/* another close won: n was never seen; undo the seeding (cell 0
		 * and Tail back to the initial state) and keep it */
		__atomic_store_n(&n->cell[0].w.f.val, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&n->cell[0].w.f.ctl, CTL_SAFE | 0, __ATOMIC_RELAXED);
		atomic_store_explicit(&n->tail, 0, memory_order_relaxed);
		r->spare = n;
	}
}

static int lcrq_dequeue(void *h, void **item)
{
	struct lcrq_rec *r = h;
	struct lcrq *q = r->q;
	uint64_t x;
	for (;;) {
		struct lcrq_crq *c = protect(&q->head, r);
		if (crq_dequeue(c, &x) == 0)
			break;
		/* acquire: see lcrq_enqueue */
		struct lcrq_crq *next = atomic_load_explicit(&c->next, memory_order_acquire);
		if (!next)
			return 1; /* empty */
		/* next is set, so c is closed: a second EMPTY is final (file
		 * comment) */
		if (crq_dequeue(c, &x) == 0)
			break;
		/* Tail past c before Head is (Tail never points to a retired
		 * CRQ); seq_cst, the list's pointers */
		struct lcrq_crq *t = c;
		atomic_compare_exchange_strong_explicit(&q->tail, &t, next, memory_order_seq_cst,
							memory_order_seq_cst);
		struct lcrq_crq *hc = c;
		if (atomic_compare_exchange_strong_explicit(&q->head, &hc, next, memory_order_seq_cst,
							    memory_order_seq_cst))
			retire(q, r, c);
	}
	*item = (void *)(uintptr_t)x;
	return 0;
}

/* ---- the queue (harness/queue.h) ------------------------------------------ */

static void free_chain(struct lcrq_crq *c, int by_link)
{
	while (c) {
		struct lcrq_crq *n =
			by_link ? c->link : atomic_load_explicit(&c->next, memory_order_relaxed);
		hq_node_free(c);
		c = n;
	}
}

static void lcrq_destroy(void *qv)
{
	struct lcrq *q = qv;
	/* alone now (queue.h): relaxed. The list from Head holds every linked
	 * CRQ not retired; the records hold the retired and spare ones. */
	free_chain(atomic_load_explicit(&q->head, memory_order_relaxed), 0);
	struct lcrq_rec *r = atomic_load_explicit(&q->recs, memory_order_relaxed);
	while (r) {
		struct lcrq_rec *n = r->next;
		free_chain(r->retired, 1);
		free_chain(r->spare, 1);
		hq_node_free(r);
		r = n;
	}
	free_chain(q->pool, 1);
	pthread_mutex_destroy(&q->pool_lock);
	hq_free(q);
}

static void *lcrq_create_sized(size_t ring, char *err, size_t errlen)
{
	if (!ring_ok(ring)) {
		hb_err(err, errlen, LCRQ_NAME ": ring of %zu cells is not a power of two in 2..2^30",
		       ring);
		return NULL;
	}
	struct lcrq *q = hq_alloc(sizeof *q);
	if (!q) {
		hb_err(err, errlen, LCRQ_NAME ": out of memory");
		return NULL;
	}
	q->ring = ring;
	pthread_mutex_init(&q->pool_lock, NULL);
	struct lcrq_crq *c = crq_get(q);
	if (!c) {
		lcrq_destroy(q);
		hb_err(err, errlen, LCRQ_NAME ": out of memory for a ring of %zu cells", ring);
		return NULL;
	}
	atomic_store_explicit(&q->allocated, 0, memory_order_relaxed); /* counts those after the first */
	/* before any thread sees the queue (create runs alone): relaxed */
	atomic_store_explicit(&q->head, c, memory_order_relaxed);
	atomic_store_explicit(&q->tail, c, memory_order_relaxed);
	return q;
}

static void *lcrq_create(const struct hq_params *p, char *err, size_t errlen)
{
	(void)p; /* unbounded: --capacity does not size it (file comment, Ring size) */
	return lcrq_create_sized(LCRQ_RING, err, errlen);
}

static void *lcrq_thread_init(void *qv, char *err, size_t errlen)
{
	struct lcrq *q = qv;
	/* a record a departed thread left: acquire on the CAS pairs with its
	 * release in thread_fini (its retired list, its cleared pointer) */
	for (struct lcrq_rec *r = atomic_load_explicit(&q->recs, memory_order_acquire); r;
	     r = r->next) {
		int free_ = 0;
		if (atomic_compare_exchange_strong_explicit(&r->active, &free_, 1, memory_order_acquire,
							    memory_order_relaxed))
			return r;
	}
	struct lcrq_rec *r = hq_node_alloc(sizeof *r, HQ_LINE);
	if (!r) {
		hb_err(err, errlen, LCRQ_NAME ": out of memory for a thread's record");
		return NULL;
	}
	atomic_init(&r->hp, NULL);
	atomic_init(&r->active, 1);
	r->q = q;
	r->retired = NULL;
	r->spare = NULL;
	r->next = atomic_load_explicit(&q->recs, memory_order_relaxed);
	/* release: the record's fields before a scan or thread_init that
	 * reads the list (acquire) sees it; relaxed on failure, r->next is
	 * set again from the value read */
	while (!atomic_compare_exchange_weak_explicit(&q->recs, &r->next, r, memory_order_release,
						      memory_order_relaxed))
		;
	return r;
}

static void lcrq_thread_fini(void *qv, void *h)
{
	struct lcrq *q = qv;
	struct lcrq_rec *r = h;
	/* seq_cst: as protect's store; nothing of ours is protected now */
	atomic_store_explicit(&r->hp, NULL, memory_order_seq_cst);
	if (r->spare) {
		crq_put(q, r->spare);
		r->spare = NULL;
	}
	if (r->retired)
		scan(q, r);
	/* release: pairs with thread_init's acquire CAS; the record's lists go
	 * to its next owner */
	atomic_store_explicit(&r->active, 0, memory_order_release);
}

const struct hq_ops LCRQ_SYM(hq_lcrq) = {
	.name = LCRQ_NAME,
	.description = "LCRQ (Morrison-Afek, PPoPP 2013) from the paper: a list of 4096-cell "
		       "rings, F&A on Head/Tail, CAS2 (cmpxchg16b) on the cells, hazard pointers "
		       "(unbounded; no burst)",
	.bounded = 0,
	.moves_data = 1,
	.test_only = LCRQ_MUTATION != 0,
	.ordering = "fifo",
	.capacity_kind = "unbounded",
	.memory = "running",
	.create = lcrq_create,
	.destroy = lcrq_destroy,
	.thread_init = lcrq_thread_init,
	.thread_fini = lcrq_thread_fini,
	.enqueue = lcrq_enqueue,
	.dequeue = lcrq_dequeue,
};

/* ---- the tests' view (lcrq.h) ---------------------------------------------- */

/* The tests' reads: relaxed counts read after the threads joined; the
 * CRQ's words seq_cst, as the CRQ's own accesses to them. */
static uint64_t hook_appended(void *qv)
{
	return atomic_load_explicit(&((struct lcrq *)qv)->appended, memory_order_relaxed);
}

static uint64_t hook_allocated(void *qv)
{
	return atomic_load_explicit(&((struct lcrq *)qv)->allocated, memory_order_relaxed);
}

static uint64_t hook_head(const struct lcrq_crq *c)
{
	return atomic_load_explicit(&((struct lcrq_crq *)c)->head, memory_order_seq_cst);
}

static uint64_t hook_tail(const struct lcrq_crq *c)
{
	return atomic_load_explicit(&((struct lcrq_crq *)c)->tail, memory_order_seq_cst) &
	       ~TAIL_CLOSED;
}

static int hook_closed(const struct lcrq_crq *c)
{
	return (atomic_load_explicit(&((struct lcrq_crq *)c)->tail, memory_order_seq_cst) &
		TAIL_CLOSED) != 0;
}

const struct lcrq_hooks LCRQ_SYM(lcrq_hooks) = {
	.ops = &LCRQ_SYM(hq_lcrq),
	.mutation = LCRQ_WHAT,
	.create_sized = lcrq_create_sized,
	.appended = hook_appended,
	.allocated = hook_allocated,
	.crq_create = hook_crq_create,
	.crq_destroy = hook_crq_destroy,
	.crq_enqueue = crq_enqueue,
	.crq_dequeue = crq_dequeue,
	.faa_tail = crq_faa_tail,
	.enqueue_at = crq_enqueue_at,
	.faa_head = crq_faa_head,
	.dequeue_at = crq_dequeue_at,
	.head = hook_head,
	.tail = hook_tail,
	.closed = hook_closed,
};
