/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_internal.h - the layout of a queue and of a worker, and the calls the
 * library's files make to each other (private to libnumaring; white-box
 * tests include it).
 *
 * The same sources build two libraries (docs/ring.md, "Two libraries"):
 * libnumaring, the production queue, and, compiled with -DNR_LAB,
 * libnumaring_lab, which adds the study's ablations (numaring_lab.h). What
 * only the lab needs is under #ifdef NR_LAB, so a production queue carries
 * no lab state: no struct numaring_lab, no node or shared gates, no linger
 * clock, no variant pointers. A program (a white-box test) that includes
 * this header must be built with the same NR_LAB as the archive it links.
 *
 * Fields are grouped by who writes them: read-only after create; written by
 * every worker that transfers through a gate; written by the owner of a
 * worker only. Each group starts on its own pair of cache lines.
 */
#ifndef NR_INTERNAL_H
#define NR_INTERNAL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "numaring.h"
#include "numaring_lab.h" /* enum numaring_lookup names the look-ups in both builds */
#include "nr_backoff.h"
#include "nr_ring.h"
#include "nr_topology.h"

/* Internal calls between the library's files: hidden, so that a call from
 * one file to another in the shared library is a direct call, never one
 * through the PLT (the version script would hide them at link time anyway,
 * but only this lets the compiler emit the direct call). */
#define NR_HIDDEN __attribute__((visibility("hidden")))
#define NR_NOINLINE __attribute__((noinline))
#define NR_INLINE inline __attribute__((always_inline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* CACHED: operations between two re-checks of the node, in production (the
 * lab's numaring_lab.recheck, whose default this is). */
#define NR_RECHECK_EVERY 256u

/* The word that decides who transfers next: 0 free, 1 held. Taken by
 * whoever runs, not in ticket order: a FIFO hand-over would wait for the
 * next ticket's thread even when the scheduler has not run it (more threads
 * than CPUs), and every other waiter with it. */
struct nr_gate {
	alignas(NR_DESTRUCTIVE) _Atomic uint64_t held;
};
_Static_assert(sizeof(struct nr_gate) == NR_DESTRUCTIVE, "one gate per line pair");

struct numaring {
	/* ---- read-only after numaring_create ---- */
	struct numaring_config cfg; /* cfg.topology is not kept (NULL) */
#ifdef NR_LAB
	struct numaring_lab lab;    /* the ablations (production values by default; the
	                               spin lengths resolved: never 0) */
#endif
	/* in force: production RSEQ or CACHED (AUTO resolved); the lab also any
	 * other, RSEQ/RDPID falling back to TABLE where unsupported */
	enum numaring_lookup lookup;
	unsigned nnodes;
	struct nr_ring *rings[NR_MAX_NODES];
	size_t ring_bytes;      /* mapping length of each ring */
	int16_t cpu_node[NR_MAX_CPUS];    /* CPU -> queue node, -1: not in the topology */
	int16_t os_node_idx[NR_MAX_NODES * 4]; /* OS node -> queue node, -1: none */
	unsigned char order[NR_MAX_NODES][NR_MAX_NODES]; /* other nodes, nearest first */
	struct nr_topology topo;
#ifdef NR_LAB
	struct nr_gate *node_gates; /* PERNODE: one per node */
#endif
	uint32_t clock_ns;          /* cost of one clock read (nr_clock_read_ns), for the
	                               workers' sampled backoff times */

#ifdef NR_LAB
	/* ---- written by every transfer under gate SHARED ---- */
	struct nr_gate shared_gate;
#endif

	/* ---- attach/detach/orphans: under lock, slow path only ---- */
	alignas(NR_DESTRUCTIVE) pthread_mutex_t lock;
	struct numaring_worker *workers; /* list of attached workers */
	unsigned attached;
	void **orphans; /* items left by detached workers when every ring was full */
	size_t orphans_cap;
	/* Read without the lock by dequeues that found every ring empty;
	 * written under the lock. */
	_Atomic size_t orphan_count;
};

struct numaring_worker {
	/* ---- written only by the owning thread ---- */
	/* (the struct is aligned to NR_DESTRUCTIVE by own_gate's type: this
	 * group starts a line pair) */
#ifdef NR_LAB
	/* The operations specialised for the queue's lookup, chosen at attach
	 * (lab_queue.c, "variants"): the lab's numaring_enqueue() and the
	 * others jump through these. Production has two look-ups and branches
	 * between their cores instead (ops.c). */
	int (*enq)(struct numaring_worker *w, void *item);
	int (*deq)(struct numaring_worker *w, void **item);
	unsigned (*enq_burst)(struct numaring_worker *w, void *const *items, unsigned n);
	unsigned (*deq_burst)(struct numaring_worker *w, void **items, unsigned n);
#endif
	struct nr_ring *local; /* rings[node] */
	unsigned npending;     /* items held from an interrupted transfer */
	unsigned recheck_left; /* CACHED: operations until the next re-check */
	uint32_t key;          /* the last raw look-up answer */
	uint8_t key_kind;      /* what lookup keys are: CPU or kernel node */
	uint8_t rseq;          /* q->lookup is RSEQ: production's branch, at hand */
	uint8_t fixed;         /* q->lookup is NONE (one node with CPUs): the other branch */
	uint8_t alone;         /* the queue has one ring: a full or empty one is the answer */
	uint16_t rseq_off;     /* RSEQ: offset of the key in struct rseq */
#ifdef NR_LAB
	uint8_t key_shift;     /* RDPID: the key is (TSC_AUX >> shift) & mask */
	uint32_t key_mask;
#endif
	unsigned node;
	struct numaring *q;
#ifdef NR_LAB
	uint64_t empty_since_ns; /* linger: when dequeues began to find nothing; 0: never */
	uint64_t empty_mark;     /* linger: st.dequeued then (a change: a new episode) */
#endif
	struct nr_backoff bo; /* mode, spin lengths, failures, gate backoffs, sampled times */
	void **xfer;    /* batch-sized scratch for transfers */
	void **pending; /* up to batch items held (see numaring_dequeue) */
	struct numaring_stats st; /* local_ops is derived at read: see nonlocal */
	uint64_t nonlocal; /* items enqueued or dequeued elsewhere than the local ring */
#ifdef NR_LAB
	/* numaring_dequeue_paths: the last dequeue that left the fast path
	 * (handed out held items, or found the local ring empty), noted by the
	 * slow path only (nr_note_paths): st.dequeued once it had
	 * counted its items, and those items by enum numaring_path. What
	 * st.dequeued gained since came from the local ring: the fast path
	 * stores nothing more. Last in the group, after the fast path's fields,
	 * so that the lab's fast path finds those where production's does. */
	uint64_t path_mark;
	uint32_t path_count[NUMARING_PATH_COUNT_];
	uint8_t path_held_first; /* 1: held items, then local ones; 0: local, transfer, held */
#endif

	/* ---- the worker's own gate (PERWORKER): its own line pair ---- */
	struct nr_gate own_gate;

	/* ---- under q->lock ---- */
	struct numaring_worker *prev, *next;
};
_Static_assert(offsetof(struct numaring_worker, own_gate) % NR_DESTRUCTIVE == 0,
	       "the worker's gate must not share a line with anything else");
_Static_assert(alignof(struct numaring_worker) == NR_DESTRUCTIVE,
	       "the owner's fields start a line pair of their own");
#ifdef NR_LAB
_Static_assert(offsetof(struct numaring, shared_gate) % NR_DESTRUCTIVE == 0,
	       "the shared gate is written by all workers: its own line pair");
#endif
_Static_assert(offsetof(struct numaring, lock) % NR_DESTRUCTIVE == 0,
	       "the slow-path lock must not share a line with read-mostly fields");

/* The settings production fixes and the lab may change. */
static inline unsigned nr_recheck_every(const struct numaring *q)
{
#ifdef NR_LAB
	return q->lab.recheck;
#else
	(void)q;
	return NR_RECHECK_EVERY;
#endif
}

static inline unsigned nr_pause_spin(const struct numaring *q)
{
#ifdef NR_LAB
	return q->lab.pause_spin;
#else
	(void)q;
	return NUMARING_PAUSE_SPIN;
#endif
}

static inline unsigned nr_exp_cap(const struct numaring *q)
{
#ifdef NR_LAB
	return q->lab.exp_cap;
#else
	(void)q;
	return NUMARING_EXP_MAX_SPIN;
#endif
}

/* ---- errors.c: errors and allocation ---- */

/* The calling thread's last error sentence (numaring_last_error). */
NR_HIDDEN void nr_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
NR_HIDDEN void nr_clear_error(void);
/* Every allocation of the library: NR_DESTRUCTIVE-aligned, freed with
 * free(); NULL when out of memory (or when a test makes it fail). */
NR_HIDDEN void *nr_alloc(size_t size);
/* 1 if the test hooks make an allocation of `size` fail (0 in the libraries). */
NR_HIDDEN int nr_alloc_fails(size_t size);

/* ---- routing.c: which node a worker is on ---- */

enum nr_key {
	NR_KEY_CPU, /* key is a CPU number: map through cpu_node[] */
	NR_KEY_OS,  /* key is a kernel node number: map through os_node_idx[] */
};
/* 1 if the kernel fills rseq node_id for this thread. */
NR_HIDDEN int nr_rseq_node_ok(void);
/* The lookup in force for the one asked, on a topology of cpu_nodes nodes
 * with CPUs (AUTO resolved: NONE on one such node, else RSEQ where the
 * kernel keeps node_id, else CACHED; the lab's RSEQ and RDPID fall back to
 * TABLE where unsupported). */
NR_HIDDEN enum numaring_lookup nr_lookup_resolve(enum numaring_lookup asked, unsigned cpu_nodes);
/* Set w's key fields and first node for q's lookup (attach). */
NR_HIDDEN void nr_route_attach(struct numaring_worker *w);
/* A new key: map it and switch the local ring if the node changed. */
NR_HIDDEN NR_NOINLINE void nr_rekey(struct numaring_worker *w, uint32_t key);
/* CACHED: the periodic re-check (a counted look-up through the table). */
NR_HIDDEN NR_NOINLINE void nr_recheck_now(struct numaring_worker *w);
/* The local ring was full or empty: with CACHED, re-check the node before
 * going remote. Returns 1 if the node changed. */
NR_HIDDEN int nr_recheck_on_slow_path(struct numaring_worker *w);
#ifdef NR_LAB
/* 1 if this CPU has rdpid and Linux keeps the CPU in TSC_AUX. */
NR_HIDDEN int nr_rdpid_ok(void);
#endif

/* The split of a dequeue that left the fast path, for numaring_dequeue_paths:
 * `local`, `transfer` and `held` items, in the order held first (held_first)
 * or local, transfer, held. Called once the dequeue has counted them into
 * st.dequeued, so that what st.dequeued gains after this is the fast path's,
 * all local. The lab's only: production's slow paths store nothing more.
 * Plain stores: the worker's own fields, read by its own thread only. */
static inline void nr_note_paths(struct numaring_worker *w, unsigned local, unsigned transfer,
				 unsigned held, int held_first)
{
#ifdef NR_LAB
	w->path_mark = w->st.dequeued;
	w->path_count[NUMARING_PATH_LOCAL] = local;
	w->path_count[NUMARING_PATH_TRANSFER] = transfer;
	w->path_count[NUMARING_PATH_HELD] = held;
	w->path_held_first = (uint8_t)held_first;
#else
	(void)w, (void)local, (void)transfer, (void)held, (void)held_first;
#endif
}

/* ---- transfer.c: everything that leaves the local ring ---- */

/* The rest of an enqueue whose items[done..n) found the local ring full (or
 * held items). Counts what it places; returns the new `done`. */
NR_HIDDEN NR_NOINLINE unsigned nr_enqueue_slow(struct numaring_worker *w, void *const *items,
					       unsigned n, unsigned done);
/* The same for one item, taken by value (the fast path keeps it in a register). */
NR_HIDDEN NR_NOINLINE int nr_enqueue_slow_one(struct numaring_worker *w, void *item);
/* The rest of a dequeue that found the local ring empty. Counts and
 * returns how many of items[0..n) it filled. */
NR_HIDDEN NR_NOINLINE unsigned nr_dequeue_slow(struct numaring_worker *w, void **items,
					       unsigned n);
/* Hand out up to n held items (newest first); counted as dequeued. */
NR_HIDDEN NR_NOINLINE unsigned nr_pop_pending(struct numaring_worker *w, void **items,
					      unsigned n);
/* Move held items back into rings; keeps those that fit nowhere (detach). */
NR_HIDDEN void nr_flush_pending(struct numaring_worker *w);

/* ---- lifecycle.c: the parts of create the lab's create shares ---- */

/* Create with the lab's settings (NULL: production's). The lab build's
 * numaring_lab_create; production's numaring_create passes NULL. */
NR_HIDDEN struct numaring *nr_create(const struct numaring_config *cfg,
				     const struct numaring_lab *lab);

#ifdef NR_LAB
/* ---- lab_queue.c: the lab's side of create and attach ---- */

/* Validate q->lab (already copied in) and resolve its spin lengths. */
NR_HIDDEN int nr_lab_validate(struct numaring *q);
/* The node gates (PERNODE), allocated at create; freed with free(). */
NR_HIDDEN int nr_lab_allocate(struct numaring *q);
/* Point w at the variant of q's lookup in force. */
NR_HIDDEN void nr_lab_choose_variant(struct numaring_worker *w);
#endif

#ifdef NR_TEST_HOOKS
/* Fault injection for the ring's tests (built into the test archives only,
 * build/test*): when set and it returns nonzero, the allocation
 * of `size` bytes (heap or ring mapping) fails as if out of memory. */
extern int (*nr_fault_alloc)(size_t size);
#ifndef NR_LAB
/* Production's look-up, forced, so that its tests run both cores on any
 * kernel: NUMARING_LOOKUP_RSEQ or _CACHED; anything else: AUTO. */
extern int nr_test_lookup;
#endif
#endif

#endif /* NR_INTERNAL_H */
