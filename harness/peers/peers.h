/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * peers.h - the few helpers every adapter in harness/peers/ shares.
 *
 * Each adapter is one small file that maps struct hq_ops (harness/queue.h)
 * onto one queue's own API. What they have in common lives here: the
 * harness's allocator of queue memory (hq_mem.h: --queue-mem places what
 * it hands out), the per-thread handle of queues that need no per-thread
 * state, and the ThreadSanitizer annotations for queues
 * whose synchronisation TSan cannot see (inline asm atomics, uninstrumented
 * libraries).
 */
#ifndef HQ_PEERS_H
#define HQ_PEERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "hq_mem.h"
#include "queue.h"

/* Fields written by different threads are kept this far apart: x86's
 * adjacent-line prefetcher moves lines in pairs (as NR_DESTRUCTIVE). */
#define HQ_LINE 128

/* The adapters, one per file; registry.c lists them in hq_all[]. */
extern const struct hq_ops hq_numaring, hq_flat, hq_ck, hq_rte, hq_moodycamel, hq_boost, hq_tbb,
	hq_scq, hq_lcrq, hq_xenium_ms, hq_xenium_ramalhete, hq_xenium_kfifo, hq_sharded, hq_urcu, hq_mutex,
	hq_faa, hq_null, hq_fault_drop, hq_fault_dup, hq_fault_corrupt,
	hq_fault_reorder;

/* 1 if n is a power of two >= 2. */
static inline int hq_pow2(size_t n)
{
	return n >= 2 && (n & (n - 1)) == 0;
}

/* thread_init/thread_fini of queues without per-thread state: the handle is
 * the queue itself. */
static inline void *hq_shared_thread_init(void *q, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return q;
}

static inline void hq_shared_thread_fini(void *q, void *h)
{
	(void)q;
	(void)h;
}

/*
 * ThreadSanitizer annotations. A queue whose hand-over TSan cannot see
 * (ck_pr and rte_atomic are inline asm; liburcu is an uninstrumented
 * library; moodycamel, in its own file, relies on atomic_thread_fence)
 * would make TSan report the consumer's first read of an item's payload as
 * a race with the producer's writes. The adapter therefore releases a sync
 * object before an enqueue and acquires it after a successful dequeue. For
 * urcu the object is the item's node: exactly the queue's happens-before.
 * For the rings it is the queue: slightly more (a consumer also synchronises
 * with enqueues of items it did not take), which can hide a harness race but
 * never invents one. Races inside the libraries themselves are suppressed by
 * harness/tsan.supp. Compiled only under -fsanitize=thread; nothing otherwise.
 */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define hq_tsan_release(addr) __tsan_release((void *)(addr))
#define hq_tsan_acquire(addr) __tsan_acquire((void *)(addr))
#else
#define hq_tsan_release(addr) ((void)(addr))
#define hq_tsan_acquire(addr) ((void)(addr))
#endif

#endif /* HQ_PEERS_H */
