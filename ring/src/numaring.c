/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numaring.c - the NUMA-local queue: routing, cross-node batch transfers,
 * gates, create/destroy/attach/detach, and the lab's flat ring.
 *
 * Fast path (numaring_enqueue / numaring_dequeue and the bursts): route to
 * the worker's node, one operation on that node's ring. It is compiled once
 * per lookup mode ("variants" below) with the mode a constant, and a worker
 * jumps to its variant's functions (chosen at attach): no mode is tested
 * per operation, and an operation that wins its race runs no backoff code.
 * Everything else goes through one slow path per direction (transfers,
 * gates, held items, orphans), out of line: a single operation is a burst
 * of one there.
 */
#define _GNU_SOURCE
#include "nr_abi.h"
#include "nr_internal.h"
#include "nr_lookup.h"
#include "numaring_lab.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define NR_NOINLINE __attribute__((noinline))
#define NR_INLINE inline __attribute__((always_inline))

/* ------------------------------------------------------------------ */
/* errors                                                               */

static __thread char nr_errbuf[NR_ERRLEN];

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(nr_errbuf, sizeof nr_errbuf, fmt, ap);
	va_end(ap);
}

const char *numaring_last_error(void)
{
	return nr_errbuf;
}

/* ------------------------------------------------------------------ */
/* allocation (hookable for fault injection)                            */

#ifdef NR_TEST_HOOKS
int (*nr_fault_alloc)(size_t size);
#define NR_ALLOC_FAILS(size) (nr_fault_alloc && nr_fault_alloc(size))
#else
#define NR_ALLOC_FAILS(size) 0
#endif

/* Every allocation of the library goes through here (free() releases it). */
static void *nr_alloc(size_t size)
{
	void *p = NULL;
	if (NR_ALLOC_FAILS(size))
		return NULL;
	if (posix_memalign(&p, NR_DESTRUCTIVE, size) != 0)
		return NULL;
	return p;
}

#ifdef NR_FAULT_INJECT
/* How many preemptions were injected (the tests report it). */
_Atomic unsigned long nr_fault_yields;

/* Yield at about one fault point in eight (per-thread xorshift). */
void nr_fault_point(void)
{
	static __thread uint32_t x;
	if (x == 0)
		x = (uint32_t)(uintptr_t)&x | 1u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	if ((x & 7) == 0) {
		/* relaxed: a statistic, read once every thread has been joined */
		atomic_fetch_add_explicit(&nr_fault_yields, 1, memory_order_relaxed);
		sched_yield();
	}
}
#endif

/* ------------------------------------------------------------------ */
/* support probes                                                       */

int numaring_rseq_node_supported(void)
{
	/* node_id exists when the kernel's rseq feature size covers it (>= 24
	 * bytes, Linux 6.3) and glibc registered an area for this thread.
	 * __rseq_size is not the test for node_id: glibc 2.40 reports 20 even
	 * where the kernel fills node_id. */
	return getauxval(AT_RSEQ_FEATURE_SIZE) >= 24 && __rseq_size > 0;
}

int numaring_rdpid_supported(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	if (!(c & (1u << 22))) /* CPUID.(EAX=7,ECX=0):ECX.RDPID[bit 22] */
		return 0;
	/* Linux keeps (node << 12) | cpu in TSC_AUX; check the CPU part
	 * against sched_getcpu (a few tries, in case we migrate in between). */
	for (int i = 0; i < 8; i++) {
		int cpu = sched_getcpu();
		uint64_t aux = nr_rdpid();
		if (cpu >= 0 && (int)(aux & 0xfff) == cpu)
			return 1;
	}
	return 0;
#else
	return 0;
#endif
}

/* ------------------------------------------------------------------ */
/* routing                                                              */

/*
 * Routing. Each look-up produces a raw key: a CPU number or a kernel node
 * number, depending on the mode and on whether the topology is emulated
 * (emulated nodes are not the kernel's, so they are found from the CPU).
 * The worker remembers the last key; only a different key is mapped to a
 * queue node (out of line), so the fast path of an exact mode is the
 * look-up itself, one compare and one counter increment.
 */
enum nr_key {
	NR_KEY_CPU, /* key is a CPU number: map through cpu_node[] */
	NR_KEY_OS,  /* key is a kernel node number: map through os_node_idx[] */
};

static unsigned key_kind(const struct numaring *q)
{
	return q->topo.emulated || !q->topo.numa_available ? NR_KEY_CPU : NR_KEY_OS;
}

/* The raw key of the calling thread by `mode`; UINT32_MAX if unknown.
 * With mode a constant (the variants), it folds to the one look-up. */
static NR_INLINE uint32_t lookup_key(const struct numaring_worker *w, const struct numaring *q,
				     enum numaring_lookup mode)
{
	unsigned kind = w->key_kind;
	unsigned cpu, os;
	switch (mode) {
	case NUMARING_LOOKUP_LIBNUMA: {
		int c = sched_getcpu();
		int n = numa_node_of_cpu(c);
		/* Emulated: the call is still made (its cost is what this mode
		 * measures), then the CPU decides. Real nodes: a CPU libnuma does
		 * not know (onlined after libnuma read the node maps) is an unknown
		 * key, never a CPU number read as a node number. */
		if (kind == NR_KEY_CPU)
			return (uint32_t)c;
		return n < 0 ? UINT32_MAX : (uint32_t)n;
	}
	case NUMARING_LOOKUP_SYSCALL:
		if (nr_getcpu_syscall(&cpu, &os) < 0)
			return UINT32_MAX;
		return kind == NR_KEY_CPU ? cpu : os;
	case NUMARING_LOOKUP_RSEQ:
		/* cpu_id or node_id, chosen at attach: no test here */
		return nr_rseq_load(w->rseq_off);
	case NUMARING_LOOKUP_RDPID:
		/* (node << 12) | cpu: node or CPU by shift and mask from attach */
		return (uint32_t)(nr_rdpid() >> w->key_shift) & w->key_mask;
	case NUMARING_LOOKUP_TABLE:
	case NUMARING_LOOKUP_CACHED:
	case NUMARING_LOOKUP_NONE:
	case NUMARING_LOOKUP_AUTO:
	case NUMARING_LOOKUP_COUNT_:
	default: {
		int c = sched_getcpu();
		if (kind == NR_KEY_CPU)
			return (uint32_t)c;
		/* TABLE with real nodes: the CPU still decides (that is the
		 * table); map it to the kernel node here. */
		if (c < 0 || c >= NR_MAX_CPUS || q->cpu_node[c] < 0)
			return UINT32_MAX;
		return (uint32_t)q->topo.os_node[q->cpu_node[c]];
	}
	}
}

/* Queue node of a key; -1 if it maps to none (a CPU outside the topology). */
static int node_of_key(const struct numaring *q, unsigned kind, uint32_t key)
{
	if (kind == NR_KEY_CPU)
		return key < NR_MAX_CPUS ? q->cpu_node[key] : -1;
	return key < NR_MAX_NODES * 4 ? q->os_node_idx[key] : -1;
}

/* A new key: map it and switch the local ring if the node changed. A key
 * that maps to no node keeps the old node: a stale node costs locality,
 * never correctness. */
static NR_NOINLINE void rekey(struct numaring_worker *w, uint32_t key)
{
	struct numaring *q = w->q;
	int n = node_of_key(q, w->key_kind, key);
	w->key = key;
	if (n < 0 || (unsigned)n == w->node)
		return;
	w->st.node_changes++;
	w->node = (unsigned)n;
	w->local = q->rings[n];
}

/* A look-up through the table or a system call: counted (stats.lookups). */
static NR_NOINLINE void relookup_table(struct numaring_worker *w)
{
	uint32_t key = lookup_key(w, w->q, NUMARING_LOOKUP_TABLE);
	w->st.lookups++;
	if (unlikely(key != w->key))
		rekey(w, key);
}

/* CACHED: the periodic re-check. */
static NR_NOINLINE void recheck_now(struct numaring_worker *w)
{
	w->recheck_left = w->q->lab.recheck;
	relookup_table(w);
}

/* Route the worker before an operation. mode is a constant in each variant,
 * so this is one case: nothing for NONE, a countdown for CACHED, one load
 * and compare for RSEQ and RDPID, the look-up and a counter for the others. */
static NR_INLINE void route(struct numaring_worker *w, enum numaring_lookup mode)
{
	uint32_t key;
	switch (mode) {
	case NUMARING_LOOKUP_NONE:
		return;
	case NUMARING_LOOKUP_CACHED:
		if (likely(--w->recheck_left != 0))
			return;
		recheck_now(w);
		return;
	case NUMARING_LOOKUP_RSEQ:
	case NUMARING_LOOKUP_RDPID:
		key = lookup_key(w, w->q, mode);
		break;
	default:
		key = lookup_key(w, w->q, mode);
		w->st.lookups++;
		break;
	}
	if (unlikely(key != w->key))
		rekey(w, key);
}

/* The local ring was full or empty: with CACHED, check the node before going
 * remote (the other modes have just looked). Returns 1 if the node changed. */
static int recheck_on_slow_path(struct numaring_worker *w)
{
	unsigned before = w->node;
	if (w->q->lookup != NUMARING_LOOKUP_CACHED)
		return 0;
	recheck_now(w);
	return w->node != before;
}

/* ------------------------------------------------------------------ */
/* gates                                                                */

static struct nr_gate *gate_of(struct numaring_worker *w)
{
	switch (w->q->lab.gate) {
	case NUMARING_GATE_SHARED:
		return &w->q->shared_gate;
	case NUMARING_GATE_PERNODE:
		return &w->q->node_gates[w->node];
	case NUMARING_GATE_PERWORKER:
	default:
		return &w->own_gate;
	}
}

/* Take the gate for a cross-node transfer. */
static void gate_enter(struct numaring_worker *w, struct nr_gate *g)
{
	/* G1: acquire exchange; pairs with the release in gate_exit (G2) of the
	 * holder before us, so our transfer starts after its transfer ended.
	 * The relaxed load first keeps waiters reading a shared line instead
	 * of writing it. */
	if (atomic_exchange_explicit(&g->held, 1, memory_order_acquire) != 0) {
		struct nr_wait wt = NR_WAIT_INIT;
		unsigned attempt = 0;
		w->st.gate_waits++;
		do {
			/* the configured backoff between polls, until the wait
			 * has spun its budget: then the holder may be preempted,
			 * and spinning would keep it from the CPU */
			if (!nr_wait_spent(&wt))
				nr_backoff_gate(&w->bo, attempt++);
			nr_wait_poll(&wt);
		} while (atomic_load_explicit(&g->held, memory_order_relaxed) != 0 ||
			 atomic_exchange_explicit(&g->held, 1, memory_order_acquire) != 0);
	}
	NR_FAULT_POINT(); /* holding the gate */
}

static void gate_exit(struct nr_gate *g)
{
	/* G2: release; pairs with G1 of the next holder. Only the holder
	 * writes 0, so a store suffices. */
	atomic_store_explicit(&g->held, 0, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* held items and orphans                                               */

/* Put as many of items[0..n) as fit into the rings of w's node's others,
 * from the `from`-th nearest on, then into the local ring. Returns how many
 * were placed (a prefix); *local (if not NULL) gets how many of them went
 * into the local ring. */
static unsigned place(struct numaring_worker *w, void *const *items, unsigned n, unsigned from,
		      unsigned *local)
{
	struct numaring *q = w->q;
	unsigned done = 0, here;
	for (unsigned i = from; done < n && i + 1 < q->nnodes; i++)
		done += nr_ring_enqueue_burst(q->rings[q->order[w->node][i]], items + done, n - done,
					      &w->bo);
	here = done < n ? nr_ring_enqueue_burst(w->local, items + done, n - done, &w->bo) : 0;
	if (local)
		*local = here;
	return done + here;
}

/* Put as many of items[0..n) as fit anywhere, local ring first, then other
 * nodes nearest first. Returns how many (a prefix); *local as place(). */
static unsigned place_anywhere(struct numaring_worker *w, void *const *items, unsigned n,
			       unsigned *local)
{
	unsigned done = nr_ring_enqueue_burst(w->local, items, n, &w->bo);
	if (local)
		*local = done;
	if (done < n)
		done += place(w, items + done, n - done, 0, NULL) /* local is full: others */;
	return done;
}

/* Items of a transfer that found no room: place them (other nodes from the
 * `from`-th nearest, then the local ring), and hold what fits nowhere; this
 * worker hands held items out first (dequeue) or puts them back first
 * (enqueue, detach). Never drops one. Callers hold only while npending == 0
 * and n <= batch, so pending[] has room. Returns how many were placed in
 * rings; *local as place(). */
static unsigned place_or_hold(struct numaring_worker *w, void *const *items, unsigned n,
			      unsigned from, unsigned *local)
{
	unsigned done = place(w, items, n, from, local);
	memcpy(w->pending + w->npending, items + done, (n - done) * sizeof(void *));
	w->npending += n - done;
	return done;
}

/* Move held items back into rings; keeps those that fit nowhere. */
static void flush_pending(struct numaring_worker *w)
{
	unsigned done = place_anywhere(w, w->pending, w->npending, NULL);
	if (done == 0)
		return;
	memmove(w->pending, w->pending + done, (w->npending - done) * sizeof(void *));
	w->npending -= done;
}

/* Hand out up to n held items (newest first); counted as dequeued, not local. */
static NR_NOINLINE unsigned pop_pending(struct numaring_worker *w, void **items, unsigned n)
{
	unsigned got = 0;
	while (w->npending && got < n)
		items[got++] = w->pending[--w->npending];
	w->st.dequeued += got;
	w->nonlocal += got;
	return got;
}

static int take_orphan(struct numaring *q, void **item)
{
	int got = 0;
	pthread_mutex_lock(&q->lock);
	size_t n = atomic_load_explicit(&q->orphan_count, memory_order_relaxed);
	if (n > 0) {
		*item = q->orphans[n - 1];
		/* Relaxed: the lock orders orphans[]; the count read without the
		 * lock is only a hint to come and look. */
		atomic_store_explicit(&q->orphan_count, n - 1, memory_order_relaxed);
		got = 1;
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

/* ------------------------------------------------------------------ */
/* cross-node transfers (slow path)                                     */

/* Local ring full: move a batch of its oldest items to the nearest node
 * that has room. Returns the number of items moved off the node; *any_room
 * says whether any other ring showed room at all (if none did, the caller
 * need not look at their index lines again: each look takes the line from
 * the consumers that are busy with it). */
static NR_NOINLINE unsigned push_batch(struct numaring_worker *w, int *any_room)
{
	struct numaring *q = w->q;
	struct nr_gate *g = gate_of(w);
	unsigned moved = 0;
	gate_enter(w, g);
	*any_room = 0;
	for (unsigned i = 0; i + 1 < q->nnodes; i++) {
		struct nr_ring *dst = q->rings[q->order[w->node][i]];
		/* the cells dst can take now, not its index room: a cell whose
		 * consumer has not finished would send the batch straight back */
		unsigned want = (unsigned)nr_ring_free_ready(dst, q->cfg.batch);
		if (want == 0)
			continue;
		*any_room = 1;
		unsigned n = nr_ring_dequeue_burst(w->local, w->xfer, want, &w->bo);
		if (n == 0)
			break; /* consumers emptied the local ring meanwhile */
		NR_FAULT_POINT(); /* items in flight between two rings */
		moved = nr_ring_enqueue_burst(dst, w->xfer, n, &w->bo);
		/* dst filled up meanwhile: the rest goes to the next nodes, back
		 * to the local ring, or is held by this worker; never dropped.
		 * Counted as moved: only what went back to the local ring is not. */
		if (moved < n) {
			unsigned back;
			moved += place_or_hold(w, w->xfer + moved, n - moved, i + 1, &back) - back;
		}
		if (moved) {
			w->st.batches_out++;
			w->st.items_out += moved;
		}
		break;
	}
	gate_exit(g);
	return moved;
}

/* linger: 1 if the worker should take only full batches now (see
 * numaring_lab.linger_us): it has not yet looked in vain for that long. */
static int lingering(struct numaring_worker *w)
{
	uint64_t now = nr_now_ns();
	/* a new episode of empty dequeues: the first, or one since which a
	 * dequeue succeeded (counted, so the fast path stores nothing more) */
	if (w->empty_since_ns == 0 || w->empty_mark != w->st.dequeued) {
		w->empty_since_ns = now;
		w->empty_mark = w->st.dequeued;
	}
	return now - w->empty_since_ns < (uint64_t)w->q->lab.linger_us * 1000u;
}

/* Local ring empty: take a batch from the nearest non-empty node. The
 * first `want` items go to out[], the rest into the local ring (held if it
 * filled up meanwhile). Returns the number given to out[]. With linger, a
 * node with fewer than a batch is passed over until the worker has found
 * nothing for linger_us (then it takes what there is: nothing waits longer). */
static NR_NOINLINE unsigned pull_batch(struct numaring_worker *w, void **out, unsigned want)
{
	struct numaring *q = w->q;
	struct nr_gate *g = gate_of(w);
	unsigned given = 0;
	uint64_t least = 1;
	if (q->lab.linger_us && lingering(w)) {
		least = q->cfg.batch;
		/* not a full batch anywhere: do not even take the gate */
		unsigned i = 0;
		for (; i + 1 < q->nnodes; i++)
			if (nr_ring_count(q->rings[q->order[w->node][i]]) >= least)
				break;
		if (i + 1 >= q->nnodes)
			return 0;
	}
	gate_enter(w, g);
	for (unsigned i = 0; i + 1 < q->nnodes; i++) {
		struct nr_ring *src = q->rings[q->order[w->node][i]];
		if (nr_ring_count(src) < least)
			continue;
		unsigned n = nr_ring_dequeue_burst(src, w->xfer, q->cfg.batch, &w->bo);
		if (n == 0)
			continue;
		NR_FAULT_POINT(); /* items in flight between two rings */
		given = n < want ? n : want;
		memcpy(out, w->xfer, given * sizeof(void *));
		/* the rest: the local ring, else held (not back to other nodes) */
		(void)place_or_hold(w, w->xfer + given, n - given, q->nnodes, NULL);
		w->st.batches_in++;
		w->st.items_in += n;
		break;
	}
	gate_exit(g);
	return given;
}

/* ------------------------------------------------------------------ */
/* the slow paths: one per direction, for single operations and bursts  */

/* Put items[0..n) into the local ring, counting what went in. */
static unsigned put_local(struct numaring_worker *w, void *const *items, unsigned n)
{
	return nr_ring_enqueue_burst(w->local, items, n, &w->bo);
}

/*
 * The rest of an enqueue: items[done..n) found the local ring full (or this
 * worker holds items, which go back first). Re-check the node, move batches
 * off the node while that makes room, and at last put items in any ring
 * with a free slot. Counts every item it places; returns the new `done`.
 */
static NR_NOINLINE unsigned enqueue_slow(struct numaring_worker *w, void *const *items, unsigned n,
					 unsigned done)
{
	struct numaring *q = w->q;
	unsigned start = done, local;
	int any_room = 1;
	if (w->npending) { /* held items go back first; then ours may fit */
		flush_pending(w);
		if (w->npending == 0)
			done += put_local(w, items + done, n - done);
	}
	if (done < n && recheck_on_slow_path(w) && w->npending == 0)
		done += put_local(w, items + done, n - done);
	while (done < n && w->npending == 0 && q->nnodes > 1) {
		unsigned moved = push_batch(w, &any_room);
		if (w->npending)
			break;
		done += put_local(w, items + done, n - done);
		if (moved == 0)
			break;
	}
	/* One ring, or every other ring just showed no room, and the local
	 * ring was retried above: nothing has room. Else any free slot
	 * anywhere, local first. */
	if (done < n && ((q->nnodes > 1 && any_room) || w->npending)) {
		unsigned k = place_anywhere(w, items + done, n - done, &local);
		done += k;
		w->nonlocal += k - local;
	}
	w->st.enqueued += done - start;
	return done;
}

/*
 * The rest of a dequeue that found the local ring empty (and held nothing):
 * re-check the node, take a batch from another node, then orphans. Counts
 * what it returns; returns how many of items[0..n) it filled.
 */
static NR_NOINLINE unsigned dequeue_slow(struct numaring_worker *w, void **items, unsigned n)
{
	struct numaring *q = w->q;
	unsigned got = 0;
	if (recheck_on_slow_path(w)) {
		got = nr_ring_dequeue_burst(w->local, items, n, &w->bo);
		if (got > 0) {
			w->st.dequeued += got;
			return got;
		}
	}
	if (q->nnodes > 1)
		got = pull_batch(w, items, n);
	/* Relaxed: a hint only; take_orphan reads under the lock. */
	while (got < n && atomic_load_explicit(&q->orphan_count, memory_order_relaxed) > 0 &&
	       take_orphan(q, &items[got]))
		got++;
	w->st.dequeued += got;
	w->nonlocal += got;
	return got;
}

/* A single item's enqueue_slow, taking the item by value so that the fast
 * path keeps it in a register (its address would make every enqueue store it). */
static NR_NOINLINE int enqueue_slow_one(struct numaring_worker *w, void *item)
{
	return enqueue_slow(w, &item, 1, 0) == 1 ? 0 : -ENOBUFS;
}

/* ------------------------------------------------------------------ */
/* the fast paths, and their variants                                   */

/*
 * One core per operation, always inlined with `mode` a constant. Enqueue
 * and dequeue of one item keep Vyukov's per-cell operation (one CAS, no
 * look at the other index); bursts claim a range. Either way, a ring that
 * is full or empty (or held items) sends the operation to its direction's
 * one slow path.
 */
static NR_INLINE int enqueue_core(struct numaring_worker *w, void *item, enum numaring_lookup mode)
{
	route(w, mode);
	if (likely(w->npending == 0) && likely(nr_ring_enqueue(w->local, item, &w->bo))) {
		w->st.enqueued++;
		return 0;
	}
	return enqueue_slow_one(w, item);
}

static NR_INLINE int dequeue_core(struct numaring_worker *w, void **item, enum numaring_lookup mode)
{
	if (unlikely(w->npending))
		return pop_pending(w, item, 1) == 1 ? 0 : -ENOENT;
	route(w, mode);
	if (likely(nr_ring_dequeue(w->local, item, &w->bo))) {
		w->st.dequeued++;
		return 0;
	}
	return dequeue_slow(w, item, 1) == 1 ? 0 : -ENOENT;
}

static NR_INLINE unsigned enqueue_burst_core(struct numaring_worker *w, void *const *items,
					     unsigned n, enum numaring_lookup mode)
{
	unsigned done = 0;
	route(w, mode);
	if (likely(w->npending == 0)) {
		done = nr_ring_enqueue_burst(w->local, items, n, &w->bo);
		w->st.enqueued += done;
		if (likely(done == n))
			return done;
	}
	return enqueue_slow(w, items, n, done);
}

static NR_INLINE unsigned dequeue_burst_core(struct numaring_worker *w, void **items, unsigned n,
					     enum numaring_lookup mode)
{
	unsigned got = 0, k;
	if (unlikely(w->npending)) {
		got = pop_pending(w, items, n);
		if (got == n)
			return got;
	}
	route(w, mode);
	k = nr_ring_dequeue_burst(w->local, items + got, n - got, &w->bo);
	w->st.dequeued += k;
	got += k;
	if (likely(got > 0))
		return got;
	return dequeue_slow(w, items, n);
}

/*
 * The variants: the four operations compiled for one lookup mode each
 * (DPDK's constant-flag pattern). numaring_worker_attach points a worker at
 * its queue's set. The production sets are rseq and cached; `make
 * test-ring` disassembles them (scripts/check_fastpath.sh): no look-up
 * call, no backoff, no jump table.
 */
#define NR_VARIANT(name, MODE)                                                              \
	static int nr_enqueue_##name(struct numaring_worker *w, void *item)                 \
	{                                                                                   \
		return enqueue_core(w, item, MODE);                                         \
	}                                                                                   \
	static int nr_dequeue_##name(struct numaring_worker *w, void **item)                \
	{                                                                                   \
		return dequeue_core(w, item, MODE);                                         \
	}                                                                                   \
	static unsigned nr_enqueue_burst_##name(struct numaring_worker *w, void *const *items, \
						unsigned n)                                 \
	{                                                                                   \
		return enqueue_burst_core(w, items, n, MODE);                               \
	}                                                                                   \
	static unsigned nr_dequeue_burst_##name(struct numaring_worker *w, void **items,     \
						unsigned n)                                 \
	{                                                                                   \
		return dequeue_burst_core(w, items, n, MODE);                               \
	}

NR_VARIANT(libnuma, NUMARING_LOOKUP_LIBNUMA)
NR_VARIANT(syscall, NUMARING_LOOKUP_SYSCALL)
NR_VARIANT(table, NUMARING_LOOKUP_TABLE)
NR_VARIANT(cached, NUMARING_LOOKUP_CACHED)
NR_VARIANT(rseq, NUMARING_LOOKUP_RSEQ)
NR_VARIANT(rdpid, NUMARING_LOOKUP_RDPID)
NR_VARIANT(none, NUMARING_LOOKUP_NONE)

/* Point w at the variant of `mode` (a lookup in force: never AUTO). */
static void choose_variant(struct numaring_worker *w, enum numaring_lookup mode)
{
#define NR_CHOOSE(name)                                                                     \
	do {                                                                                \
		w->enq = nr_enqueue_##name;                                                 \
		w->deq = nr_dequeue_##name;                                                 \
		w->enq_burst = nr_enqueue_burst_##name;                                     \
		w->deq_burst = nr_dequeue_burst_##name;                                     \
	} while (0)
	switch (mode) {
	case NUMARING_LOOKUP_LIBNUMA: NR_CHOOSE(libnuma); break;
	case NUMARING_LOOKUP_SYSCALL: NR_CHOOSE(syscall); break;
	case NUMARING_LOOKUP_TABLE: NR_CHOOSE(table); break;
	case NUMARING_LOOKUP_RSEQ: NR_CHOOSE(rseq); break;
	case NUMARING_LOOKUP_RDPID: NR_CHOOSE(rdpid); break;
	case NUMARING_LOOKUP_NONE: NR_CHOOSE(none); break;
	case NUMARING_LOOKUP_CACHED:
	case NUMARING_LOOKUP_AUTO:
	case NUMARING_LOOKUP_COUNT_:
	default: NR_CHOOSE(cached); break;
	}
#undef NR_CHOOSE
}

/* The public operations: a jump to the worker's variant. */
int numaring_enqueue(struct numaring_worker *w, void *item)
{
	return w->enq(w, item);
}

int numaring_dequeue(struct numaring_worker *w, void **item)
{
	return w->deq(w, item);
}

unsigned numaring_enqueue_burst(struct numaring_worker *w, void *const *items, unsigned n)
{
	return w->enq_burst(w, items, n);
}

unsigned numaring_dequeue_burst(struct numaring_worker *w, void **items, unsigned n)
{
	return w->deq_burst(w, items, n);
}

/* ------------------------------------------------------------------ */
/* configuration and names                                              */

void numaring_config_init(struct numaring_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->size = sizeof *cfg;
	cfg->capacity = 1024;
	cfg->batch = 32;
	cfg->backoff = NUMARING_BACKOFF_NONE;
	cfg->topology = NULL;
}

void numaring_lab_init(struct numaring_lab *lab)
{
	memset(lab, 0, sizeof *lab);
	lab->size = sizeof *lab;
	lab->lookup = NUMARING_LOOKUP_AUTO;
	lab->recheck = 256;
	lab->gate = NUMARING_GATE_PERWORKER;
	lab->linger_us = 0;
	lab->pause_spin = 0; /* NUMARING_PAUSE_SPIN */
	lab->exp_cap = 0;    /* NUMARING_EXP_MAX_SPIN */
}

/*
 * Copy a caller's struct that says its size into ours, which starts with
 * the defaults: a smaller (older) struct leaves the fields it lacks at
 * their defaults. Refuses a size not set (the caller skipped *_init), below
 * the first release's, or above ours (a newer caller: fields we would
 * silently ignore).
 */
static int take_sized(void *ours, size_t ours_size, const void *theirs, size_t min_size,
		      const char *what)
{
	size_t size = *(const size_t *)theirs;
	if (size == 0) {
		set_error("the %s's size is 0: start from %s_init()", what, what);
		return -EINVAL;
	}
	if (size < min_size || size > ours_size) {
		set_error("the %s's size %zu is not one this library knows (%zu..%zu): "
			  "start from %s_init() and rebuild against this numaring.h",
			  what, size, min_size, ours_size, what);
		return -EINVAL;
	}
	memcpy(ours, theirs, size);
	*(size_t *)ours = ours_size;
	return 0;
}

/* The first release's sizes, the smallest structs a caller may pass, are
 * the numbers 0.1 shipped with (nr_abi.h: NR_CONFIG_SIZE_0_1,
 * NR_LAB_SIZE_0_1), never today's sizeof: a field added to a struct must
 * not refuse the older callers. */

/* Step 1 of create: validation. Fills q->cfg and q->lab (defaults first). */
static int create_validate(struct numaring *q, const struct numaring_config *cfg,
			   const struct numaring_lab *lab)
{
	if (!cfg) {
		set_error("no config given");
		return -EINVAL;
	}
	numaring_config_init(&q->cfg);
	numaring_lab_init(&q->lab);
	if (take_sized(&q->cfg, sizeof q->cfg, cfg, NR_CONFIG_SIZE_0_1, "numaring_config") < 0)
		return -EINVAL;
	if (lab && take_sized(&q->lab, sizeof q->lab, lab, NR_LAB_SIZE_0_1, "numaring_lab") < 0)
		return -EINVAL;
	cfg = &q->cfg;
	lab = &q->lab;
	if (cfg->capacity < 2 || (cfg->capacity & (cfg->capacity - 1)) != 0 ||
	    cfg->capacity > ((size_t)1 << 40)) {
		set_error("capacity %zu is not a power of two between 2 and 2^40", cfg->capacity);
		return -EINVAL;
	}
	if (cfg->batch == 0 || cfg->batch > cfg->capacity) {
		set_error("batch %u is not between 1 and the capacity (%zu)", cfg->batch,
			  cfg->capacity);
		return -EINVAL;
	}
	if ((unsigned)cfg->backoff >= NUMARING_BACKOFF_COUNT_) {
		set_error("unknown backoff mode %d", (int)cfg->backoff);
		return -EINVAL;
	}
	if ((unsigned)lab->lookup >= NUMARING_LOOKUP_COUNT_) {
		set_error("unknown lookup mode %d", (int)lab->lookup);
		return -EINVAL;
	}
	if ((unsigned)lab->gate >= NUMARING_GATE_COUNT_) {
		set_error("unknown gate mode %d", (int)lab->gate);
		return -EINVAL;
	}
	if (lab->linger_us > 1000000u) {
		set_error("linger_us %u is above 1000000", lab->linger_us);
		return -EINVAL;
	}
	if (lab->pause_spin > NUMARING_LAB_SPIN_MAX) {
		set_error("pause_spin %u is above %u PAUSEs", lab->pause_spin,
			  NUMARING_LAB_SPIN_MAX);
		return -EINVAL;
	}
	if (lab->exp_cap > NUMARING_LAB_SPIN_MAX || (lab->exp_cap & (lab->exp_cap - 1)) != 0) {
		set_error("exp_cap %u is not a power of two between 1 and %u PAUSEs", lab->exp_cap,
			  NUMARING_LAB_SPIN_MAX);
		return -EINVAL;
	}
	/* 0: the production constants; in force from here on */
	if (q->lab.pause_spin == 0)
		q->lab.pause_spin = NUMARING_PAUSE_SPIN;
	if (q->lab.exp_cap == 0)
		q->lab.exp_cap = NUMARING_EXP_MAX_SPIN;
	if ((lab->lookup == NUMARING_LOOKUP_CACHED || lab->lookup == NUMARING_LOOKUP_AUTO) &&
	    lab->recheck == 0) {
		set_error("lookup %s needs recheck >= 1", numaring_lookup_name(lab->lookup));
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* create / destroy                                                     */

static void free_ring(struct numaring *q, unsigned i)
{
	if (q->rings[i])
		munmap(q->rings[i], q->ring_bytes);
	q->rings[i] = NULL;
}

/* Step 2 of create: the topology (spec, else NUMARING_TOPOLOGY, else the
 * machine), the CPU and OS-node tables, each node's others nearest first,
 * and the lookup in force. */
static int create_topology(struct numaring *q, const char *spec)
{
	char err[NR_ERRLEN];
	struct nr_topology *topo = nr_alloc(sizeof *topo);
	int rc;
	if (!topo) {
		set_error("out of memory for the topology");
		return -ENOMEM;
	}
	rc = nr_topology_get(spec, topo, err, sizeof err);
	if (rc < 0) {
		set_error("%s", err);
		free(topo);
		return rc;
	}
	q->topo = *topo;
	free(topo);
	q->nnodes = q->topo.nnodes;
	/* libnuma fills its node-to-CPUs cache lazily and without a lock:
	 * fill it now, single-threaded, so that numa_node_of_cpu (lookup
	 * LIBNUMA) only reads it when workers race. */
	if (numa_available() >= 0) {
		struct bitmask *cpus = numa_allocate_cpumask();
		for (int node = 0; cpus && node <= numa_max_node(); node++)
			numa_node_to_cpus(node, cpus);
		if (cpus)
			numa_free_cpumask(cpus);
	}
	q->lookup = q->lab.lookup;
	if (q->lookup == NUMARING_LOOKUP_AUTO)
		q->lookup = numaring_rseq_node_supported() ? NUMARING_LOOKUP_RSEQ
							   : NUMARING_LOOKUP_CACHED;
	if (q->lookup == NUMARING_LOOKUP_RSEQ && !numaring_rseq_node_supported())
		q->lookup = NUMARING_LOOKUP_TABLE;
	if (q->lookup == NUMARING_LOOKUP_RDPID && !numaring_rdpid_supported())
		q->lookup = NUMARING_LOOKUP_TABLE;

	for (unsigned c = 0; c < NR_MAX_CPUS; c++)
		q->cpu_node[c] = -1;
	for (unsigned o = 0; o < NR_MAX_NODES * 4; o++)
		q->os_node_idx[o] = -1;
	for (unsigned n = 0; n < q->nnodes; n++) {
		for (unsigned c = 0; c < NR_MAX_CPUS; c++)
			if (CPU_ISSET(c, &q->topo.cpus[n]))
				q->cpu_node[c] = (int16_t)n;
		if (q->topo.os_node[n] >= NR_MAX_NODES * 4) {
			set_error("OS node number %d is above the supported %d", q->topo.os_node[n],
				  NR_MAX_NODES * 4 - 1);
			return -ENODEV;
		}
		if (q->topo.os_node[n] >= 0)
			q->os_node_idx[q->topo.os_node[n]] = (int16_t)n;
		nr_topology_order(&q->topo, n, q->order[n]);
	}
	return 0;
}

/* Step 3 of create: the node gates and the rings' memory, unplaced. */
static int create_allocate(struct numaring *q)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	q->node_gates = nr_alloc(q->nnodes * sizeof *q->node_gates);
	if (!q->node_gates) {
		set_error("out of memory for the node gates");
		return -ENOMEM;
	}
	memset(q->node_gates, 0, q->nnodes * sizeof *q->node_gates);
	q->ring_bytes = (nr_ring_bytes(q->cfg.capacity) + page - 1) / page * page;
	for (unsigned n = 0; n < q->nnodes; n++) {
		void *p;
		if (NR_ALLOC_FAILS(q->ring_bytes)) {
			p = MAP_FAILED;
		} else {
			p = mmap(NULL, q->ring_bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		}
		if (p == MAP_FAILED) {
			set_error("out of memory for the ring of node %u (%zu bytes)", n,
				  q->ring_bytes);
			return -ENOMEM;
		}
		q->rings[n] = p;
	}
	return 0;
}

/* Step 4 of create: bind each ring to its node's memory (if the nodes are
 * real), then initialise it: the first touch happens under the binding, so
 * the pages land on that node. A binding the kernel refuses (seccomp,
 * containers) leaves the memory wherever the kernel puts it, and the node
 * then says -1 (numaring_node_memory). */
static void create_place(struct numaring *q)
{
	for (unsigned n = 0; n < q->nnodes; n++) {
		int mem = q->topo.emulated ? -1 : q->topo.mem_node[n];
		int placed = 0;
		if (mem >= 0 && mem < NR_MAX_NODES * 4) {
			unsigned long mask[NR_MAX_NODES * 4 / (8 * sizeof(unsigned long))] = {0};
			mask[(unsigned)mem / (8 * sizeof(unsigned long))] |=
				1ul << ((unsigned)mem % (8 * sizeof(unsigned long)));
			placed = mbind(q->rings[n], q->ring_bytes, MPOL_BIND, mask,
				       NR_MAX_NODES * 4 + 1, 0) == 0;
		}
		if (!placed)
			q->topo.mem_node[n] = -1;
		nr_ring_init(q->rings[n], q->cfg.capacity);
	}
}

struct numaring *numaring_lab_create(const struct numaring_config *cfg,
				     const struct numaring_lab *lab)
{
	struct numaring *q;
	int rc;

	nr_errbuf[0] = '\0';
	q = nr_alloc(sizeof *q);
	if (!q) {
		set_error("out of memory for the queue");
		errno = ENOMEM;
		return NULL;
	}
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->lock, NULL);
	/* one cleanup path: numaring_destroy frees whatever a step made */
	if ((rc = create_validate(q, cfg, lab)) < 0 ||
	    (rc = create_topology(q, cfg->topology)) < 0 || (rc = create_allocate(q)) < 0) {
		numaring_destroy(q);
		errno = -rc;
		return NULL;
	}
	q->cfg.topology = NULL; /* the caller's string is not kept */
	create_place(q);
	q->clock_ns = nr_clock_read_ns();
	return q;
}

struct numaring *numaring_create(const struct numaring_config *cfg)
{
	return numaring_lab_create(cfg, NULL);
}

void numaring_destroy(struct numaring *q)
{
	if (!q)
		return;
	while (q->workers) {
		struct numaring_worker *w = q->workers;
		q->workers = w->next;
		free(w->xfer);
		free(w);
	}
	for (unsigned n = 0; n < NR_MAX_NODES; n++)
		free_ring(q, n);
	pthread_mutex_destroy(&q->lock);
	free(q->orphans);
	free(q->node_gates);
	free(q);
}

/* ------------------------------------------------------------------ */
/* workers                                                              */

/* The worker's first key, of the kind its variant's look-ups give (NONE and
 * CACHED go through the table). */
static uint32_t first_key(const struct numaring_worker *w, const struct numaring *q)
{
	switch (q->lookup) {
	case NUMARING_LOOKUP_LIBNUMA: return lookup_key(w, q, NUMARING_LOOKUP_LIBNUMA);
	case NUMARING_LOOKUP_SYSCALL: return lookup_key(w, q, NUMARING_LOOKUP_SYSCALL);
	case NUMARING_LOOKUP_RSEQ: return lookup_key(w, q, NUMARING_LOOKUP_RSEQ);
	case NUMARING_LOOKUP_RDPID: return lookup_key(w, q, NUMARING_LOOKUP_RDPID);
	default: return lookup_key(w, q, NUMARING_LOOKUP_TABLE);
	}
}

struct numaring_worker *numaring_worker_attach(struct numaring *q)
{
	struct numaring_worker *w;
	void **bufs;
	int n;

	nr_errbuf[0] = '\0';
	w = nr_alloc(sizeof *w);
	bufs = w ? nr_alloc(2 * q->cfg.batch * sizeof(void *)) : NULL;
	if (!w || !bufs) {
		free(w);
		set_error("out of memory for a worker");
		errno = ENOMEM;
		return NULL;
	}
	memset(w, 0, sizeof *w);
	w->q = q;
	w->xfer = bufs;
	w->pending = bufs + q->cfg.batch;
	nr_backoff_init(&w->bo, q->cfg.backoff, q->lab.pause_spin, q->lab.exp_cap, q->clock_ns,
			(uint32_t)((uintptr_t)w / NR_DESTRUCTIVE) * 2654435761u);
	w->recheck_left = q->lab.recheck ? q->lab.recheck : 1;
	w->key_kind = (uint8_t)key_kind(q);
	/* RSEQ and RDPID read the key without a test of its kind */
	w->rseq_off = w->key_kind == NR_KEY_CPU ? NR_RSEQ_CPU_ID_OFF : NR_RSEQ_NODE_ID_OFF;
	w->key_shift = w->key_kind == NR_KEY_CPU ? 0 : 12;
	w->key_mask = w->key_kind == NR_KEY_CPU ? 0xfffu : 0xfffffu;
	choose_variant(w, q->lookup);
	w->key = first_key(w, q);
	n = node_of_key(q, w->key_kind, w->key);
	if (n < 0) { /* a CPU outside the topology: the first node with CPUs */
		n = 0;
		while ((unsigned)n + 1 < q->nnodes && CPU_COUNT(&q->topo.cpus[n]) == 0)
			n++;
	}
	w->node = (unsigned)n;
	w->local = q->rings[w->node];

	/* Reserve room for the items this worker may leave behind at detach,
	 * so that detach never allocates and never loses an item. */
	pthread_mutex_lock(&q->lock);
	size_t need = atomic_load_explicit(&q->orphan_count, memory_order_relaxed) +
		      (size_t)(q->attached + 1) * q->cfg.batch;
	if (need > q->orphans_cap) {
		void **o = nr_alloc(need * sizeof(void *));
		if (!o) {
			pthread_mutex_unlock(&q->lock);
			free(bufs);
			free(w);
			set_error("out of memory for a worker");
			errno = ENOMEM;
			return NULL;
		}
		if (q->orphans)
			memcpy(o, q->orphans,
			       atomic_load_explicit(&q->orphan_count, memory_order_relaxed) *
				       sizeof(void *));
		free(q->orphans);
		q->orphans = o;
		q->orphans_cap = need;
	}
	q->attached++;
	w->next = q->workers;
	if (q->workers)
		q->workers->prev = w;
	q->workers = w;
	pthread_mutex_unlock(&q->lock);
	return w;
}

void numaring_worker_detach(struct numaring_worker *w)
{
	struct numaring *q;
	if (!w)
		return;
	q = w->q;
	if (w->npending)
		flush_pending(w);
	pthread_mutex_lock(&q->lock);
	if (w->npending) {
		size_t n = atomic_load_explicit(&q->orphan_count, memory_order_relaxed);
		memcpy(q->orphans + n, w->pending, w->npending * sizeof(void *));
		/* Relaxed: see take_orphan. */
		atomic_store_explicit(&q->orphan_count, n + w->npending, memory_order_relaxed);
		w->npending = 0;
	}
	q->attached--;
	if (w->prev)
		w->prev->next = w->next;
	else
		q->workers = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&q->lock);
	free(w->xfer);
	free(w);
}

/* ------------------------------------------------------------------ */
/* queries                                                              */

unsigned numaring_node_count(const struct numaring *q)
{
	return q->nnodes;
}

int numaring_worker_node(const struct numaring_worker *w)
{
	return (int)w->node;
}

void numaring_worker_stats(const struct numaring_worker *w, struct numaring_stats *out,
			   size_t out_size)
{
	struct numaring_stats s = w->st;
	/* the fast path counts items, not where they went: local is the rest */
	s.local_ops = s.enqueued + s.dequeued - w->nonlocal;
	s.failed_attempts = w->bo.failures;
	s.gate_backoffs = w->bo.gate_backoffs;
	s.backoff_ns_race = w->bo.ns[NR_BACKOFF_RACE];
	s.backoff_ns_gate = w->bo.ns[NR_BACKOFF_GATE];
	memcpy(out, &s, out_size < sizeof s ? out_size : sizeof s);
}

/* Every counter of struct numaring_stats, in order: numaring_stats_add_sized
 * adds them by name, so a counter added to the struct and not here fails
 * the assert below instead of being silently left out of the sums. */
#define NR_STATS_FIELDS(X)                                                                  \
	X(enqueued) X(dequeued) X(local_ops) X(batches_out) X(batches_in) X(items_out)      \
	X(items_in) X(lookups) X(node_changes) X(failed_attempts) X(gate_waits)            \
	X(gate_backoffs) X(backoff_ns_race) X(backoff_ns_gate)
#define NR_STATS_COUNT_ONE(f) +1
_Static_assert(sizeof(struct numaring_stats) ==
		       (0 NR_STATS_FIELDS(NR_STATS_COUNT_ONE)) * sizeof(uint64_t),
	       "every counter of numaring_stats is in NR_STATS_FIELDS");
/* The stats of 0.1 end at gate_waits (11 counters), those of 0.2 at
 * backoff_ns_gate: NR_STATS_SIZE_0_1 and NR_STATS_SIZE_0_2 (nr_abi.h). */

void numaring_stats_add_sized(struct numaring_stats *acc, const struct numaring_stats *s,
			      size_t size)
{
#define NR_STATS_ADD(f)                                                                     \
	if (offsetof(struct numaring_stats, f) + sizeof acc->f <= size)                     \
		acc->f += s->f;
	NR_STATS_FIELDS(NR_STATS_ADD)
#undef NR_STATS_ADD
}

/*
 * numaring_stats_add in two versions (libnumaring.map): programs linked
 * against 0.1 have 0.1's struct and get nr_stats_add_0_1; programs linked
 * since (and static links: @@ is the default) get 0.2's struct. Each is
 * numaring_stats_add_sized with its release's size, a frozen number: a
 * counter added later is never written into a struct that lacks it (only
 * numaring_stats_add_sized adds it). The .symver directive, not GCC's
 * symver attribute, so that clang builds it too.
 */
void nr_stats_add_0_1(struct numaring_stats *acc, const struct numaring_stats *s);
void nr_stats_add_0_2(struct numaring_stats *acc, const struct numaring_stats *s);
__asm__(".symver nr_stats_add_0_1, numaring_stats_add@NUMARING_0.1");
__asm__(".symver nr_stats_add_0_2, numaring_stats_add@@NUMARING_0.2");

void nr_stats_add_0_1(struct numaring_stats *acc, const struct numaring_stats *s)
{
	numaring_stats_add_sized(acc, s, NR_STATS_SIZE_0_1);
}

void nr_stats_add_0_2(struct numaring_stats *acc, const struct numaring_stats *s)
{
	numaring_stats_add_sized(acc, s, NR_STATS_SIZE_0_2);
}

void numaring_spin_in_force(const struct numaring *q, unsigned *pause_spin, unsigned *exp_cap)
{
	if (pause_spin)
		*pause_spin = q->lab.pause_spin;
	if (exp_cap)
		*exp_cap = q->lab.exp_cap;
}

enum numaring_lookup numaring_lookup_in_force(const struct numaring *q)
{
	return q->lookup;
}

enum numaring_gate numaring_gate_in_force(const struct numaring *q)
{
	return q->lab.gate;
}

int numaring_topology_emulated(const struct numaring *q)
{
	return q->topo.emulated;
}

int numaring_node_cpus(const struct numaring *q, unsigned node, char *buf, size_t len)
{
	if (node >= q->nnodes)
		return -EINVAL;
	if (nr_cpulist_format(&q->topo.cpus[node], buf, len) < 0)
		return -ENOSPC;
	return CPU_COUNT(&q->topo.cpus[node]);
}

int numaring_node_os_index(const struct numaring *q, unsigned node)
{
	return node < q->nnodes ? q->topo.os_node[node] : -1;
}

int numaring_node_memory(const struct numaring *q, unsigned node)
{
	return node < q->nnodes ? q->topo.mem_node[node] : -1;
}

int numaring_node_distance(const struct numaring *q, unsigned a, unsigned b)
{
	return a < q->nnodes && b < q->nnodes ? q->topo.dist[a][b] : -1;
}

const void *numaring_node_ring(const struct numaring *q, unsigned node, size_t *len)
{
	if (node >= q->nnodes)
		return NULL;
	if (len)
		*len = q->ring_bytes;
	return q->rings[node];
}
