/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hq_mem.h - the harness's allocator of queue memory, as the adapters see it
 * (harness/qmem.c implements it; harness/qmem.h is the harness's side).
 *
 * numaring-bench --queue-mem says where a queue's memory goes: where the
 * creating thread's first touch puts it (first-touch, the default), on the
 * producers' or the consumers' node, interleaved over the nodes, or on a
 * given node. The adapters do not know which: they take their memory from
 * here, and the allocator places it (mbind on fresh mappings) and keeps a
 * list of it, so that each run can count where the queue's pages are.
 * Under first-touch (and on emulated nodes, where nothing is placed) the
 * memory comes from where it came before the allocator existed (the heap),
 * so that a run without --queue-mem lays the queue out as it always did.
 *
 * Three kinds, by who asks:
 *   hq_alloc / hq_free            an adapter's memory made at creation (a ring,
 *                                 the queue's head): zeroed, on HQ_LINE
 * hq_node_alloc / hq_node_free    a queue's own allocations, at creation or as
 *                                 it runs (blocks, nodes, the C++ queues'
 *                                 allocators routed here): malloc-like, not
 *                                 zeroed; under a placing policy they come
 *                                 from placed chunks that are given back only
 *                                 when the queue is destroyed (hq_node_free
 *                                 then returns nothing early), so this is for
 *                                 memory a queue keeps, not for memory it
 *                                 allocates and frees per operation
 *   hq_thread_alloc               a thread's own handle (thread_init): zeroed,
 *                                 on HQ_LINE, not the queue's memory, not
 *                                 counted; free() it
 *
 * Every function is safe from any thread (one mutex; none of them is on a
 * queue's per-item path except where a queue allocates, which the adapters
 * keep rare). C and C++ (the C++ shims route their allocators here).
 */
#ifndef HQ_MEM_H
#define HQ_MEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A span of a queue's memory that the allocator did not make (a library's
 * own mapping: flat's ring, numaring's node rings), for the count of pages. */
struct hq_region {
	const void *addr;
	size_t len;
};

/* Zeroed memory of len bytes on an HQ_LINE (128-byte) boundary, placed by
 * the run's policy; NULL when out of memory. Free with hq_free. */
void *hq_alloc(size_t len);
void hq_free(void *p);

/* len bytes on an `align` boundary (a power of two, at most 4096; 0: 16),
 * placed by the run's policy, not zeroed; NULL when out of memory. Free
 * with hq_node_free. */
void *hq_node_alloc(size_t len, size_t align);
void hq_node_free(void *p);

/* Zeroed memory for a thread's own handle, on an HQ_LINE boundary, as the
 * calling thread's first touch places it; NULL when out of memory; free(). */
void *hq_thread_alloc(size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HQ_MEM_H */
