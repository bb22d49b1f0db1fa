/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_internal.h - the layout of a queue and of a worker (private to
 * libnumaring; white-box tests include it).
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
#include "numaring_lab.h"
#include "nr_backoff.h"
#include "nr_ring.h"
#include "nr_topology.h"

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
	struct numaring_lab lab;    /* the ablations (production values by default; the
	                               spin lengths resolved: never 0) */
	enum numaring_lookup lookup; /* in force: AUTO resolved, RSEQ/RDPID may fall back to TABLE */
	unsigned nnodes;
	struct nr_ring *rings[NR_MAX_NODES];
	size_t ring_bytes;      /* mapping length of each ring */
	int16_t cpu_node[NR_MAX_CPUS];    /* CPU -> queue node, -1: not in the topology */
	int16_t os_node_idx[NR_MAX_NODES * 4]; /* OS node -> queue node, -1: none */
	unsigned char order[NR_MAX_NODES][NR_MAX_NODES]; /* other nodes, nearest first */
	struct nr_topology topo;
	struct nr_gate *node_gates; /* PERNODE: one per node */
	uint32_t clock_ns;          /* cost of one clock read (nr_clock_read_ns), for the
	                               workers' sampled backoff times */

	/* ---- written by every transfer under gate SHARED ---- */
	struct nr_gate shared_gate;

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
	/* The operations specialised for the queue's lookup, chosen at attach
	 * (numaring.c, "variants"): numaring_enqueue() and the others jump
	 * through these, so no mode is tested per operation. */
	alignas(NR_DESTRUCTIVE) int (*enq)(struct numaring_worker *w, void *item);
	int (*deq)(struct numaring_worker *w, void **item);
	unsigned (*enq_burst)(struct numaring_worker *w, void *const *items, unsigned n);
	unsigned (*deq_burst)(struct numaring_worker *w, void **items, unsigned n);
	struct nr_ring *local; /* rings[node] */
	unsigned npending;     /* items held from an interrupted transfer */
	unsigned recheck_left; /* CACHED: operations until the next re-check */
	uint32_t key;          /* the last raw look-up answer */
	uint8_t key_kind;      /* what lookup keys are: CPU or kernel node */
	uint8_t key_shift;     /* RDPID: the key is (TSC_AUX >> shift) & mask */
	uint16_t rseq_off;     /* RSEQ: offset of the key in struct rseq */
	uint32_t key_mask;
	unsigned node;
	struct numaring *q;
	uint64_t empty_since_ns; /* linger: when dequeues began to find nothing; 0: never */
	uint64_t empty_mark;     /* linger: st.dequeued then (a change: a new episode) */
	struct nr_backoff bo; /* mode, spin lengths, failures, gate backoffs, sampled times */
	void **xfer;    /* batch-sized scratch for transfers */
	void **pending; /* up to batch items held (see numaring_dequeue) */
	struct numaring_stats st; /* local_ops is derived at read: see nonlocal */
	uint64_t nonlocal; /* items enqueued or dequeued elsewhere than the local ring */

	/* ---- the worker's own gate (PERWORKER): its own line pair ---- */
	struct nr_gate own_gate;

	/* ---- under q->lock ---- */
	struct numaring_worker *prev, *next;
};
_Static_assert(offsetof(struct numaring_worker, own_gate) % NR_DESTRUCTIVE == 0,
	       "the worker's gate must not share a line with anything else");
_Static_assert(offsetof(struct numaring, shared_gate) % NR_DESTRUCTIVE == 0,
	       "the shared gate is written by all workers: its own line pair");
_Static_assert(offsetof(struct numaring, lock) % NR_DESTRUCTIVE == 0,
	       "the slow-path lock must not share a line with read-mostly fields");

#ifdef NR_TEST_HOOKS
/* Fault injection for the ring's tests (built into the test archive only,
 * build/test/libnumaring.a): when set and it returns nonzero, the allocation
 * of `size` bytes (heap or ring mapping) fails as if out of memory. */
extern int (*nr_fault_alloc)(size_t size);
#endif

#endif /* NR_INTERNAL_H */
