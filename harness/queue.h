/*
 * queue.h - the one adapter interface through which numaring-bench drives
 * every queue (NumaRing and the peers), so that all are measured by the same
 * code in the same run. Each adapter is a small file in harness/peers/.
 *
 * Items are pointer-sized opaque values; adapters must pass any value
 * through, NULL included (the harness sends pointers to messages).
 *
 * Threading: create/destroy run on the main thread, alone. thread_init,
 * thread_fini and the operations run on the worker threads, concurrently.
 * Each thread passes its own handle (from thread_init) to its operations.
 */
#ifndef HQ_QUEUE_H
#define HQ_QUEUE_H

#include <stddef.h>

#include "numaring.h"

struct hq_params {
	size_t capacity;            /* slots (per node ring for numaring); power of two */
	unsigned batch;             /* cross-node batch for numaring; burst size for peers */
	unsigned threads;           /* producers + consumers that will attach */
	struct numaring_config ring; /* numaring's config (topology, lookup, gate, ...) */
};

struct hq_ops {
	const char *name;        /* "numaring", "flat", "ck", "rte", "moodycamel", "urcu", "mutex", "faa" */
	const char *description; /* one line for --help */
	int bounded;             /* 1: capacity limits the queue; 0: unbounded (the harness bounds in-flight items) */
	int moves_data;          /* 0 for faa: no item travels, dequeue returns nothing useful */

	/* Create the queue. Returns a handle, or NULL with a sentence in err. */
	void *(*create)(const struct hq_params *p, char *err, size_t errlen);
	void (*destroy)(void *q);

	/* Per-thread handle; NULL with a sentence in err on failure. */
	void *(*thread_init)(void *q, char *err, size_t errlen);
	void (*thread_fini)(void *q, void *h);

	/* 0 on success, nonzero if full (enqueue) or empty (dequeue). */
	int (*enqueue)(void *h, void *item);
	int (*dequeue)(void *h, void **item);

	/* Up to n items; return how many. NULL: the harness loops single operations. */
	unsigned (*enqueue_burst)(void *h, void *const *items, unsigned n);
	unsigned (*dequeue_burst)(void *h, void **items, unsigned n);

	/* Optional: this thread's counters (numaring's worker stats). Called by
	 * the thread itself before thread_fini. */
	void (*thread_stats)(void *h, struct numaring_stats *out);

	/* Optional: the lookup mode in force after create (numaring only). */
	int (*lookup_in_force)(void *q);
};

/* Every adapter, in the order --help lists them; NULL-terminated. */
extern const struct hq_ops *const hq_all[];

/* The adapter called name, or NULL. */
const struct hq_ops *hq_find(const char *name);

#endif /* HQ_QUEUE_H */
