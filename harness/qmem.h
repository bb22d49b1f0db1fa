/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * qmem.h - where a run puts its queue's memory (--queue-mem) and where the
 * queue's pages turned out to be: the harness's side of the allocator whose
 * adapters' side is peers/hq_mem.h (both in qmem.c).
 *
 * The steps, on the main thread unless said:
 *   hb_qmem_plan       the option, the topology and the threads' CPUs into
 *                      a plan: the nodes and the kernel's mode (bind,
 *                      interleave), or why nothing is placed (first-touch,
 *                      emulated nodes)
 *   hb_qmem_use        the plan every queue made after it follows
 *   hb_qmem_enter/leave  around a queue's create (main thread) and around a
 *                      worker's life with a queue that allocates as it runs
 *                      (each worker): the calling thread's memory policy
 *                      set to the plan's, then given back
 *   hb_qmem_count      near the end of the measured window, the workers
 *                      still running: every page of the queue's known
 *                      memory looked up (move_pages), by node
 *   hb_qmem_release    after the queue was destroyed: the allocator's
 *                      placed chunks given back
 */
#ifndef HB_QMEM_H
#define HB_QMEM_H

#include <stddef.h>

#include "numaring_topology.h"
#include "queue.h"

struct hb_options;

/* Where the queue's memory goes (--queue-mem; harness/qmem.c places it).
 * first-touch: where the creating thread's first touch puts it (the queue's
 * own allocations as it runs: the working threads'), as before the option;
 * producers, consumers: the node of the first producer's, the first
 * consumer's CPU (pairs, mixed: thread 0's, for both); interleave: page by
 * page over the run's nodes; node: the OS node queue_mem_node. */
enum hb_qmem_policy {
	HB_QMEM_FIRST_TOUCH,
	HB_QMEM_PRODUCERS,
	HB_QMEM_CONSUMERS,
	HB_QMEM_INTERLEAVE,
	HB_QMEM_NODE,
	HB_QMEM_COUNT_
};

/* Names of enum hb_qmem_policy ("first-touch", ..., "node": node:N's word). */
const char *hb_qmem_policy_name(enum hb_qmem_policy p);
/* --queue-mem's value as given: "first-touch", ..., "node:N", into buf. */
void hb_qmem_policy_format(enum hb_qmem_policy p, int node, char *buf, size_t len);

/* OS nodes 0..HB_QMEM_MAX_NODES-1: what a policy names and a count tells */
#define HB_QMEM_MAX_NODES 256
#define HB_QMEM_MASK_WORDS (HB_QMEM_MAX_NODES / (8 * sizeof(unsigned long)))

/* How the queue's memory is placed in this run. */
struct hb_qmem {
	enum hb_qmem_policy policy;
	int node;        /* node:N's N, or the producers' / consumers' node; -1: none */
	int placing;     /* 1: the allocator and the threads' policies place it */
	int emulated;    /* 1: the run's nodes are emulated: nothing placed, no page counted */
	int mode;        /* placing: MPOL_BIND (one node) or MPOL_INTERLEAVE */
	unsigned long mask[HB_QMEM_MASK_WORDS]; /* placing: the nodes */
	char nodes[128]; /* placing: the nodes, "1" or "0,1"; else "" */
	const char *why_not; /* not placing: why, one phrase */
};

/* Where the queue's known pages were, as hb_qmem_count found them. */
struct hb_qmem_pages {
	int counted;              /* 0: not counted, why_not says why */
	const char *why_not;
	unsigned long long on[HB_QMEM_MAX_NODES]; /* pages per OS node */
	unsigned long long absent; /* pages of its memory not (yet) in memory: never touched */
	unsigned long long pages;  /* pages looked up, each once */
	unsigned regions;          /* spans they came from */
};

/* The plan of --queue-mem for topology t and the threads' CPUs (producers
 * first, as hb_placement's). Checks what the parser could not: node:N is a
 * node with memory this process may use, producers and consumers need
 * pinned threads. Returns 0, or 2 after one message. */
int hb_qmem_plan(const struct hb_options *o, const struct numaring_topology *t, const int *cpus,
		 struct hb_qmem *qm);

/* Every queue created from now on is placed by qm (copied). */
void hb_qmem_use(const struct hb_qmem *qm);
/* The plan in use (first-touch, not placing, before any hb_qmem_use). */
const struct hb_qmem *hb_qmem_in_use(void);

/* "bind" or "interleave": the kernel's mode of a placing plan; NULL when
 * it does not place. */
const char *hb_qmem_mode_name(const struct hb_qmem *qm);

/* Bindings and policies the kernel refused so far (their pages went where
 * first touch put them). */
unsigned hb_qmem_refused(void);

/* "creation", "running" or "per-node": the kind of ops (queue.h, memory);
 * 1 when --queue-mem reaches it through the threads' memory policy. */
int hb_qmem_by_threads(const struct hq_ops *ops);
/* 1 when the queue places its memory itself (per-node): the plan is not applied. */
int hb_qmem_own_placement(const struct hq_ops *ops);

/* The calling thread's memory policy set to the plan's (when it places),
 * the one it had kept in *s; leave gives it back. */
struct hb_qmem_thread {
	int set;
	int mode;
	unsigned long mask[HB_QMEM_MASK_WORDS];
};
void hb_qmem_enter(struct hb_qmem_thread *s);
void hb_qmem_leave(struct hb_qmem_thread *s);

/* Where the pages of queue q (of ops) are: the allocator's spans and the
 * adapter's regions, every page once. Not on emulated nodes (nothing is
 * placed there: pages->counted 0). */
void hb_qmem_count(const struct hq_ops *ops, void *q, struct hb_qmem_pages *pages);

/* "0:12;1:0": the pages on each node of the machine that has memory (and on
 * any other node a page was found on), into buf; "not placed" on emulated
 * nodes, "" when not counted. */
void hb_qmem_pages_format(const struct hb_qmem_pages *pages, const struct numaring_topology *t,
			  char *buf, size_t len);

/* After the queue is destroyed: its placed chunks are given back. */
void hb_qmem_release(void);

#endif /* HB_QMEM_H */
