/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * queue.h - the one adapter interface through which numaring-bench drives
 * every queue (NumaRing, the peers, the null queue), so that all are
 * measured by the same code in the same run. Each adapter is a small file
 * in harness/peers/. Nothing here is specific to one queue: a queue's own
 * knobs arrive as name=value settings, its counters as struct hq_stats.
 *
 * Items are pointer-sized opaque values; adapters must pass any value
 * through, NULL included (see item.h for what the harness sends), except
 * those of a queue that says it takes message items only (message_only).
 *
 * Threading: create/destroy run on the main thread, alone. thread_init,
 * thread_fini and the operations run on the worker threads, concurrently.
 * Each thread passes its own handle (from thread_init) to its operations.
 */
#ifndef HQ_QUEUE_H
#define HQ_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "item.h"
#include "numaring.h"

struct hq_region; /* a span of a queue's memory (peers/hq_mem.h) */

/* A queue-specific setting, e.g. {"lookup", "cached"}. */
struct hq_setting {
	const char *name;
	const char *value;
};

struct hq_params {
	size_t capacity;        /* slots of the whole queue; power of two */
	int capacity_per_node;  /* 1: capacity is each node ring's (numaring; the
				   other queues take it whole) */
	unsigned batch;         /* cross-node batch for numaring; burst size for peers */
	unsigned threads;       /* producers + consumers that will attach */
	enum hb_item_kind item; /* what the items are (the null queue makes some up) */
	unsigned sample;        /* every sample-th item is timed (the null queue's made-up items) */
	const struct hq_setting *settings; /* the queue's own knobs; see hq_ops.settings */
	unsigned nsettings;
	/* numaring's production backoff, as --backoff parsed it (the queues
	 * that take a "backoff" read it here, not from a setting's text: it is
	 * parsed once); NULL: the library's default */
	const enum numaring_backoff *backoff;
};

/* Counters a queue may report per thread; which ones, hq_ops.stats_mask
 * says (the others are written as empty cells, not as zeros). */
#define HQ_STATS(X)                                                              \
	X(local_ops)       /* items served by the ring of the thread's own node */    \
	X(batches_out)     /* transfers from the thread's node to another */          \
	X(batches_in)      /* transfers from another node to the thread's */          \
	X(items_out)       /* items moved by batches_out */                           \
	X(items_in)        /* items moved by batches_in */                            \
	X(lookups)         /* node look-ups made */                                   \
	X(node_changes)    /* look-ups whose answer differed from the previous one */ \
	X(failed_attempts) /* lost races (a failed CAS, a position taken first) */   \
	X(gate_waits)      /* transfers that found the gate held by another worker */ \
	X(gate_backoffs)   /* backoffs run between the polls of gate waits */         \
	X(backoff_ns_race) /* time in backoff after lost races, ns (sampled) */       \
	X(backoff_ns_gate) /* time in backoff inside gate waits, ns (sampled) */

enum hq_stat {
#define HQ_STAT_ENUM(n) HQ_STAT_##n,
	HQ_STATS(HQ_STAT_ENUM)
#undef HQ_STAT_ENUM
	HQ_STAT_COUNT_
};

struct hq_stats {
	uint64_t v[HQ_STAT_COUNT_];
};

#define HQ_STAT_BIT(n) (1u << HQ_STAT_##n)
#define HQ_STATS_ALL ((1u << HQ_STAT_COUNT_) - 1)

/* The name of counter s ("local_ops", ...). */
const char *hq_stat_name(enum hq_stat s);

/* Latency by path: where a dequeue found an item, for the queues that can
 * say (hq_ops.dequeue_paths; numaring). The timed items of each path get a
 * histogram of their own besides the overall one (summary.csv's
 * latency_<path>_* columns, latency-path.csv). */
#define HQ_PATHS(X)                                                                   \
	X(local)    /* the part of the queue the thread works on (numaring: its node's ring) */ \
	X(transfer) /* a transfer between parts that this dequeue made (numaring: the items \
	               a cross-node batch handed out at once) */                          \
	X(held)     /* items held outside the parts (numaring: by the thread's handle, \
	               or left by a detached one) */

enum hq_path {
#define HQ_PATH_ENUM(n) HQ_PATH_##n,
	HQ_PATHS(HQ_PATH_ENUM)
#undef HQ_PATH_ENUM
	HQ_PATH_COUNT_
};

/* The paths of one dequeue's items: items[first[p] .. first[p] + count[p])
 * came by path p (a path's items are consecutive; first[p] is 0 where
 * count[p] is); the counts add up to what the dequeue returned. */
struct hq_paths {
	unsigned first[HQ_PATH_COUNT_];
	unsigned count[HQ_PATH_COUNT_];
};

/* The name of path p ("local", ...). */
const char *hq_path_name(enum hq_path p);

struct hq_ops {
	const char *name;        /* "numaring", "flat", ..., "null" */
	const char *description; /* one line for --help */
	int bounded;             /* 1: capacity limits the queue; 0: unbounded (the harness bounds in-flight items) */
	int moves_data;          /* 0: no item travels from producers to consumers (faa, null) */
	int fabricates;          /* 1: dequeue returns made-up items of `item` kind (null) */
	int test_only;           /* 1: a fault adapter for the harness's own tests */
	/* NULL: the queue passes any value through (the rule above), so it takes
	 * every item kind of item.h. Otherwise it takes message items only and
	 * this sentence says why (it keeps tags in a pointer's top bits, refuses
	 * NULL, ...): numaring-bench refuses --item inline for it with the
	 * sentence, the manifest lists ["message"] as its items, and its
	 * enqueue takes only what a message pointer can be: past the first page
	 * (not NULL), below 2^47 (user-space addresses of x86-64 with 4-level
	 * page tables); anything else fails as a full queue would. */
	const char *message_only;
	/* What order items leave in, as the queue's authors state it:
	 *   "fifo"          one order for every item (a linearizable FIFO queue)
	 *   "per-producer"  one producer's items in the order it enqueued them
	 *   "per-node"      FIFO within each node's ring, none across nodes
	 *   "k-relaxed"     FIFO up to k - 1 places (a k-FIFO queue: an item may
	 *                   leave before up to k - 1 older ones), not even one
	 *                   producer's order kept; the description states k
	 *   "n/a"           nothing travels (faa, null) */
	const char *ordering;
	/* What --capacity makes of it (queue_slots in summary.csv says what it held):
	 *   "exact"      holds the capacity
	 *   "one-less"   holds the capacity - 1 (one slot kept empty)
	 *   "split"      one ring per node, each the capacity / nodes rounded down
	 *                to a power of two (or the capacity, --capacity-per-node)
	 *   "unbounded"  grows as it is filled; the harness bounds what is in flight */
	const char *capacity_kind;
	/* Where its memory comes from, which says how --queue-mem reaches it
	 * (harness/qmem.c):
	 *   "creation"  made once, when the queue is created: by the adapter
	 *               through the harness's allocator (hq_alloc), which places
	 *               it, or in a fresh mapping of a library's, made under the
	 *               creating thread's memory policy (flat)
	 *   "running"   allocated by the queue's own code, at creation and as it
	 *               runs (blocks, nodes, pages): placed through the creating
	 *               and the working threads' memory policy, and through the
	 *               harness's allocator where the adapter routes the queue's
	 *               allocations to it (hq_node_alloc)
	 *   "per-node"  one ring per node, each placed on its own node by the
	 *               queue itself (numaring's library, sharded's adapter):
	 *               --queue-mem is not applied, the pages are still counted */
	const char *memory;
	/* What of its memory the run's count of pages leaves out, one phrase;
	 * NULL: none (every page the queue has is counted). */
	const char *uncounted;
	const char *const *settings; /* names of the settings it takes, NULL-terminated; NULL: none */
	unsigned stats_mask;     /* HQ_STAT_BIT()s of the counters thread_stats fills */

	/* Create the queue. Returns a handle, or NULL with a sentence in err. */
	void *(*create)(const struct hq_params *p, char *err, size_t errlen);
	void (*destroy)(void *q);

	/* Items the queue holds when full (0: unbounded). NULL: the capacity. */
	size_t (*holds)(void *q);

	/* Per-thread handle; NULL with a sentence in err on failure. */
	void *(*thread_init)(void *q, char *err, size_t errlen);
	void (*thread_fini)(void *q, void *h);

	/* 0 on success, nonzero if full (enqueue) or empty (dequeue). */
	int (*enqueue)(void *h, void *item);
	int (*dequeue)(void *h, void **item);

	/* Up to n items; return how many. NULL: the harness loops single operations. */
	unsigned (*enqueue_burst)(void *h, void *const *items, unsigned n);
	unsigned (*dequeue_burst)(void *h, void **items, unsigned n);

	/* Optional: add this thread's counters to *out (stats_mask says which).
	 * Called by the thread itself before thread_fini. */
	void (*thread_stats)(void *h, struct hq_stats *out);

	/* Optional: the spans of its memory that the harness's allocator did not
	 * make (a library's own mappings), for the count of pages: up to max of
	 * them into out; returns how many it has (more than max: the first max
	 * were written). Called by the main thread while the workers run. */
	unsigned (*regions)(void *q, struct hq_region *out, unsigned max);
	/* Optional (latency by path): which path each item of this thread's last
	 * dequeue came by. Called by the thread right after a dequeue (single
	 * or burst) that returned got > 0 items, before its next operation;
	 * fills *out. Returns 0, or nonzero when it cannot tell (those items
	 * count in the overall histogram only). NULL: the queue has no paths;
	 * its latency_<path>_* cells stay empty and it writes no
	 * latency-path.csv. Asked only by the out-of-line record of a dequeue
	 * that brought a timed item (workers_pvt.h, record_timed): no loop of
	 * any queue tests for it, and another queue's loop is the same code. */
	int (*dequeue_paths)(void *h, unsigned got, struct hq_paths *out);

	/* Optional: the value in force of setting `name` after create, when it
	 * can differ from the one asked for (numaring's lookup falls back where
	 * the kernel lacks rseq); NULL: as asked. */
	const char *(*setting_in_force)(void *q, const char *name);
};

/* Every adapter, in the order --help lists them; NULL-terminated. The fault
 * adapters (test_only) come last. */
extern const struct hq_ops *const hq_all[];

/* The adapter called name, or NULL. */
const struct hq_ops *hq_find(const char *name);

/* 1 if the adapter takes setting `name`. */
int hq_takes(const struct hq_ops *o, const char *name);

/* The value of setting name in p, or NULL. */
const char *hq_setting(const struct hq_params *p, const char *name);

#endif /* HQ_QUEUE_H */
