/*
 * numaring.c - the NUMA-local queue: routing, cross-node batch transfers,
 * gates, create/destroy/attach/detach.
 *
 * Fast path (numaring_enqueue / numaring_dequeue and the bursts): route to
 * the worker's node per the lookup mode, one operation on that node's ring.
 * Everything else (transfers, gates, held items, orphans) is out of line.
 */
#define _GNU_SOURCE
#include "nr_internal.h"
#include "nr_lookup.h"

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

int (*nr_fault_alloc)(size_t size);

/* Every allocation of the library goes through here (free() releases it). */
static void *nr_alloc(size_t size)
{
	void *p = NULL;
	if (nr_fault_alloc && nr_fault_alloc(size))
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

static inline unsigned key_kind(const struct numaring *q)
{
	return q->topo.emulated || !q->topo.numa_available ? NR_KEY_CPU : NR_KEY_OS;
}

/* The raw key of the calling thread by `mode`; UINT32_MAX if unknown. */
static inline uint32_t lookup_key(const struct numaring *q, enum numaring_lookup mode,
				  unsigned kind)
{
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
		return kind == NR_KEY_CPU ? nr_rseq_cpu() : nr_rseq_node();
	case NUMARING_LOOKUP_RDPID: {
		uint64_t aux = nr_rdpid();
		return kind == NR_KEY_CPU ? (uint32_t)(aux & 0xfff) : (uint32_t)(aux >> 12);
	}
	case NUMARING_LOOKUP_TABLE:
	case NUMARING_LOOKUP_CACHED:
	case NUMARING_LOOKUP_NONE:
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

static inline void relookup(struct numaring_worker *w, enum numaring_lookup mode)
{
	uint32_t key = lookup_key(w->q, mode, w->key_kind);
	w->st.lookups++;
	if (unlikely(key != w->key))
		rekey(w, key);
}

/* CACHED: the periodic re-check. */
static NR_NOINLINE void recheck_now(struct numaring_worker *w)
{
	w->recheck_left = w->q->cfg.recheck;
	relookup(w, NUMARING_LOOKUP_TABLE);
}

/* Route the worker before an operation, per the lookup mode. */
static inline void route(struct numaring_worker *w)
{
	enum numaring_lookup mode = (enum numaring_lookup)w->mode;
	if (mode == NUMARING_LOOKUP_NONE)
		return;
	if (mode == NUMARING_LOOKUP_CACHED) {
		if (likely(--w->recheck_left != 0))
			return;
		recheck_now(w);
		return;
	}
	relookup(w, mode);
}

/* CACHED: the local ring was full or empty; check the node before going
 * remote. Returns 1 if the node changed. */
static int recheck_on_slow_path(struct numaring_worker *w)
{
	unsigned before = w->node;
	if (w->mode != NUMARING_LOOKUP_CACHED)
		return 0;
	recheck_now(w);
	return w->node != before;
}

/* ------------------------------------------------------------------ */
/* gates                                                                */

static struct nr_gate *gate_of(struct numaring_worker *w)
{
	switch (w->q->cfg.gate) {
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
		w->st.gate_waits++;
		do {
			/* the configured backoff between polls, until the wait
			 * has spun its budget: then the holder may be preempted,
			 * and spinning would keep it from the CPU */
			if (!nr_wait_spent(&wt))
				nr_backoff_pause(&w->bo);
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

/* Put as many of items[0..n) as fit into rings, local first, then other
 * nodes nearest first. Returns how many were placed (a prefix). */
static unsigned place_anywhere(struct numaring_worker *w, void *const *items, unsigned n)
{
	struct numaring *q = w->q;
	unsigned done = nr_ring_enqueue_burst(w->local, items, n, &w->bo);
	for (unsigned i = 0; done < n && i + 1 < q->nnodes; i++)
		done += nr_ring_enqueue_burst(q->rings[q->order[w->node][i]], items + done,
					      n - done, &w->bo);
	return done;
}

/* Move held items back into rings; keeps those that fit nowhere. */
static void flush_pending(struct numaring_worker *w)
{
	unsigned done = place_anywhere(w, w->pending, w->npending);
	if (done == 0)
		return;
	memmove(w->pending, w->pending + done, (w->npending - done) * sizeof(void *));
	w->npending -= done;
}

static void hold(struct numaring_worker *w, void *const *items, unsigned n)
{
	/* Callers hold only while npending == 0 and n <= batch. */
	memcpy(w->pending + w->npending, items, n * sizeof(void *));
	w->npending += n;
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
		uint64_t room = nr_ring_free(dst);
		if (room == 0)
			continue;
		*any_room = 1;
		unsigned want = room < q->cfg.batch ? (unsigned)room : q->cfg.batch;
		unsigned n = nr_ring_dequeue_burst(w->local, w->xfer, want, &w->bo);
		if (n == 0)
			break; /* consumers emptied the local ring meanwhile */
		NR_FAULT_POINT(); /* items in flight between two rings */
		unsigned m = nr_ring_enqueue_burst(dst, w->xfer, n, &w->bo);
		/* dst filled up meanwhile: the rest goes to other nodes, back to
		 * the local ring, or is held by this worker; never dropped. */
		if (m < n) {
			for (unsigned j = i + 1; m < n && j + 1 < q->nnodes; j++)
				m += nr_ring_enqueue_burst(q->rings[q->order[w->node][j]],
							   w->xfer + m, n - m, &w->bo);
		}
		moved = m;
		if (m < n) {
			unsigned back = nr_ring_enqueue_burst(w->local, w->xfer + m, n - m, &w->bo);
			if (m + back < n)
				hold(w, w->xfer + m + back, n - m - back);
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
 * numaring_config.linger_us): it has not yet looked in vain for that long. */
static int lingering(struct numaring_worker *w)
{
	uint64_t now = nr_now_ns();
	/* a new episode of empty dequeues: the first, or one since which a
	 * dequeue succeeded (counted, so the fast path stores nothing more) */
	if (w->empty_since_ns == 0 || w->empty_mark != w->st.dequeued) {
		w->empty_since_ns = now;
		w->empty_mark = w->st.dequeued;
	}
	return now - w->empty_since_ns < (uint64_t)w->q->cfg.linger_us * 1000u;
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
	if (q->cfg.linger_us && lingering(w)) {
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
		if (n > given) {
			unsigned m = nr_ring_enqueue_burst(w->local, w->xfer + given, n - given,
							   &w->bo);
			if (given + m < n)
				hold(w, w->xfer + given + m, n - given - m);
		}
		w->st.batches_in++;
		w->st.items_in += n;
		break;
	}
	gate_exit(g);
	return given;
}

/* ------------------------------------------------------------------ */
/* enqueue / dequeue                                                    */

static NR_NOINLINE int enqueue_slow(struct numaring_worker *w, void *item)
{
	struct numaring *q = w->q;
	if (w->npending) { /* held items go back first; then ours may fit */
		flush_pending(w);
		if (w->npending == 0 && nr_ring_enqueue(w->local, item, &w->bo))
			goto local;
	}
	if (recheck_on_slow_path(w) && w->npending == 0 &&
	    nr_ring_enqueue(w->local, item, &w->bo))
		goto local;
	int any_room = 1;
	if (w->npending == 0 && q->nnodes > 1) {
		for (;;) {
			unsigned moved = push_batch(w, &any_room);
			if (w->npending == 0 && nr_ring_enqueue(w->local, item, &w->bo))
				goto local;
			if (moved == 0 || w->npending)
				break;
		}
	}
	/* One ring, or every other ring just showed no room: the local ring
	 * was retried above, so nothing has room. */
	if ((q->nnodes == 1 || !any_room) && w->npending == 0)
		return -ENOBUFS;
	/* No batch could move: any free slot anywhere, local first. */
	if (place_anywhere(w, &item, 1) == 1) {
		w->st.enqueued++;
		return 0;
	}
	return -ENOBUFS;
local:
	w->st.enqueued++;
	w->st.local_ops++;
	return 0;
}

int numaring_enqueue(struct numaring_worker *w, void *item)
{
	route(w);
	if (likely(w->npending == 0) && likely(nr_ring_enqueue(w->local, item, &w->bo))) {
		w->st.enqueued++;
		w->st.local_ops++;
		return 0;
	}
	return enqueue_slow(w, item);
}

static NR_NOINLINE int dequeue_slow(struct numaring_worker *w, void **item)
{
	struct numaring *q = w->q;
	if (recheck_on_slow_path(w) && nr_ring_dequeue(w->local, item, &w->bo)) {
		w->st.local_ops++;
		goto got;
	}
	if (q->nnodes > 1 && pull_batch(w, item, 1) == 1)
		goto got;
	/* Relaxed: a hint only; take_orphan reads under the lock. */
	if (atomic_load_explicit(&q->orphan_count, memory_order_relaxed) > 0 &&
	    take_orphan(q, item))
		goto got;
	return -ENOENT;
got:
	w->st.dequeued++;
	return 0;
}

int numaring_dequeue(struct numaring_worker *w, void **item)
{
	if (unlikely(w->npending)) {
		*item = w->pending[--w->npending];
		w->st.dequeued++;
		return 0;
	}
	route(w);
	if (likely(nr_ring_dequeue(w->local, item, &w->bo))) {
		w->st.dequeued++;
		w->st.local_ops++;
		return 0;
	}
	return dequeue_slow(w, item);
}

unsigned numaring_enqueue_burst(struct numaring_worker *w, void *const *items, unsigned n)
{
	struct numaring *q = w->q;
	unsigned done = 0;
	route(w);
	if (likely(w->npending == 0)) {
		done = nr_ring_enqueue_burst(w->local, items, n, &w->bo);
		w->st.local_ops += done;
		if (likely(done == n))
			goto out;
	}
	/* slow path */
	if (w->npending) { /* held items go back first; then ours may fit */
		flush_pending(w);
		if (w->npending == 0) {
			unsigned k = nr_ring_enqueue_burst(w->local, items + done, n - done, &w->bo);
			done += k;
			w->st.local_ops += k;
			if (done == n)
				goto out;
		}
	}
	if (recheck_on_slow_path(w) && w->npending == 0) {
		unsigned k = nr_ring_enqueue_burst(w->local, items + done, n - done, &w->bo);
		done += k;
		w->st.local_ops += k;
	}
	int any_room = 1;
	while (done < n && w->npending == 0 && q->nnodes > 1) {
		unsigned moved = push_batch(w, &any_room);
		if (w->npending)
			break;
		unsigned k = nr_ring_enqueue_burst(w->local, items + done, n - done, &w->bo);
		done += k;
		w->st.local_ops += k;
		if (moved == 0)
			break;
	}
	if (done < n && ((q->nnodes > 1 && any_room) || w->npending))
		done += place_anywhere(w, items + done, n - done);
out:
	w->st.enqueued += done;
	return done;
}

unsigned numaring_dequeue_burst(struct numaring_worker *w, void **items, unsigned n)
{
	struct numaring *q = w->q;
	unsigned got = 0;
	while (w->npending && got < n)
		items[got++] = w->pending[--w->npending];
	if (got == n)
		goto out;
	route(w);
	{
		unsigned k = nr_ring_dequeue_burst(w->local, items + got, n - got, &w->bo);
		w->st.local_ops += k;
		got += k;
	}
	if (got > 0)
		goto out;
	if (recheck_on_slow_path(w)) {
		got = nr_ring_dequeue_burst(w->local, items, n, &w->bo);
		w->st.local_ops += got;
		if (got > 0)
			goto out;
	}
	if (q->nnodes > 1)
		got = pull_batch(w, items, n);
	while (got < n && atomic_load_explicit(&q->orphan_count, memory_order_relaxed) > 0 &&
	       take_orphan(q, &items[got]))
		got++;
out:
	w->st.dequeued += got;
	return got;
}

/* ------------------------------------------------------------------ */
/* configuration and names                                              */

void numaring_config_init(struct numaring_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->capacity = 1024;
	cfg->batch = 32;
	cfg->lookup = NUMARING_LOOKUP_CACHED;
	cfg->recheck = 256;
	cfg->gate = NUMARING_GATE_PERWORKER;
	cfg->backoff = NUMARING_BACKOFF_NONE;
	cfg->topology = NULL;
}

static int check_config(const struct numaring_config *cfg)
{
	if (!cfg) {
		set_error("no config given");
		return -EINVAL;
	}
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
	if ((unsigned)cfg->lookup >= NUMARING_LOOKUP_COUNT_) {
		set_error("unknown lookup mode %d", (int)cfg->lookup);
		return -EINVAL;
	}
	if ((unsigned)cfg->gate >= NUMARING_GATE_COUNT_) {
		set_error("unknown gate mode %d", (int)cfg->gate);
		return -EINVAL;
	}
	if (cfg->linger_us > 1000000u) {
		set_error("linger_us %u is above 1000000", cfg->linger_us);
		return -EINVAL;
	}
	if ((unsigned)cfg->backoff >= NUMARING_BACKOFF_COUNT_) {
		set_error("unknown backoff mode %d", (int)cfg->backoff);
		return -EINVAL;
	}
	if (cfg->lookup == NUMARING_LOOKUP_CACHED && cfg->recheck == 0) {
		set_error("lookup cached needs recheck >= 1");
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

/* Map a ring, bound to OS node mem (if >= 0), and initialise it: the first
 * touch happens under the binding, so the pages land on that node. Returns
 * 0, or -ENOMEM. *placed says whether the binding took. */
static int alloc_ring(struct numaring *q, unsigned i, int mem, int *placed)
{
	void *p;
	*placed = 0;
	if (nr_fault_alloc && nr_fault_alloc(q->ring_bytes))
		return -ENOMEM;
	p = mmap(NULL, q->ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (mem >= 0 && mem < NR_MAX_NODES * 4) {
		unsigned long mask[NR_MAX_NODES * 4 / (8 * sizeof(unsigned long))] = {0};
		mask[(unsigned)mem / (8 * sizeof(unsigned long))] |=
			1ul << ((unsigned)mem % (8 * sizeof(unsigned long)));
		/* Binding can be refused (seccomp, containers): then the memory
		 * is wherever the kernel puts it and the node says -1. */
		if (mbind(p, q->ring_bytes, MPOL_BIND, mask, NR_MAX_NODES * 4 + 1, 0) == 0)
			*placed = 1;
	}
	q->rings[i] = p;
	nr_ring_init(q->rings[i], q->cfg.capacity);
	return 0;
}

struct numaring *numaring_create(const struct numaring_config *cfg)
{
	struct numaring *q;
	struct nr_topology *topo;
	char err[NR_ERRLEN];
	int rc;

	nr_errbuf[0] = '\0';
	if ((rc = check_config(cfg)) < 0) {
		errno = -rc;
		return NULL;
	}
	topo = nr_alloc(sizeof *topo);
	if (!topo) {
		set_error("out of memory for the topology");
		errno = ENOMEM;
		return NULL;
	}
	rc = nr_topology_get(cfg->topology, topo, err, sizeof err);
	if (rc < 0) {
		set_error("%s", err);
		free(topo);
		errno = -rc;
		return NULL;
	}
	q = nr_alloc(sizeof *q);
	if (!q) {
		set_error("out of memory for the queue");
		free(topo);
		errno = ENOMEM;
		return NULL;
	}
	memset(q, 0, sizeof *q);
	q->cfg = *cfg;
	q->cfg.topology = NULL;
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
	q->lookup = cfg->lookup;
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
			free(q);
			errno = ENODEV;
			return NULL;
		}
		if (q->topo.os_node[n] >= 0)
			q->os_node_idx[q->topo.os_node[n]] = (int16_t)n;
		nr_topology_order(&q->topo, n, q->order[n]);
	}

	q->node_gates = nr_alloc(q->nnodes * sizeof *q->node_gates);
	if (!q->node_gates) {
		set_error("out of memory for the node gates");
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	memset(q->node_gates, 0, q->nnodes * sizeof *q->node_gates);

	{
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		q->ring_bytes = (nr_ring_bytes(q->cfg.capacity) + page - 1) / page * page;
	}
	for (unsigned n = 0; n < q->nnodes; n++) {
		int placed;
		int mem = q->topo.emulated ? -1 : q->topo.mem_node[n];
		if (alloc_ring(q, n, mem, &placed) < 0) {
			set_error("out of memory for the ring of node %u (%zu bytes)", n,
				  q->ring_bytes);
			for (unsigned k = 0; k < n; k++)
				free_ring(q, k);
			free(q->node_gates);
			free(q);
			errno = ENOMEM;
			return NULL;
		}
		if (!placed)
			q->topo.mem_node[n] = -1;
	}
	pthread_mutex_init(&q->lock, NULL);
	return q;
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
	for (unsigned n = 0; n < q->nnodes; n++)
		free_ring(q, n);
	pthread_mutex_destroy(&q->lock);
	free(q->orphans);
	free(q->node_gates);
	free(q);
}

/* ------------------------------------------------------------------ */
/* workers                                                              */

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
	nr_backoff_init(&w->bo, q->cfg.backoff);
	w->recheck_left = q->cfg.recheck ? q->cfg.recheck : 1;
	w->mode = (uint8_t)q->lookup;
	w->key_kind = (uint8_t)key_kind(q);
	w->key = lookup_key(q,
			    q->lookup == NUMARING_LOOKUP_NONE || q->lookup == NUMARING_LOOKUP_CACHED
				    ? NUMARING_LOOKUP_TABLE
				    : q->lookup,
			    w->key_kind);
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

void numaring_worker_stats(const struct numaring_worker *w, struct numaring_stats *out)
{
	*out = w->st;
	out->failed_attempts = w->bo.failures;
}

void numaring_stats_add(struct numaring_stats *acc, const struct numaring_stats *s)
{
	acc->enqueued += s->enqueued;
	acc->dequeued += s->dequeued;
	acc->local_ops += s->local_ops;
	acc->batches_out += s->batches_out;
	acc->batches_in += s->batches_in;
	acc->items_out += s->items_out;
	acc->items_in += s->items_in;
	acc->lookups += s->lookups;
	acc->node_changes += s->node_changes;
	acc->failed_attempts += s->failed_attempts;
	acc->gate_waits += s->gate_waits;
}

enum numaring_lookup numaring_lookup_in_force(const struct numaring *q)
{
	return q->lookup;
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
