/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xenium_shim.h - the extern "C" functions xenium.cpp exports to xenium.c,
 * one set per queue: xn_ms_* (michael_scott_queue), xn_rh_*
 * (ramalhete_queue), xn_kf_* (kirsch_kfifo_queue, k = XN_KFIFO_K). The
 * queue is every thread's handle: xenium keeps its per-thread state
 * (hazard pointers, retired nodes) in thread_local storage of its own.
 * *_create returns NULL with nothing allocated when it fails; enqueue and
 * dequeue follow struct hq_ops (harness/queue.h): 0 on success, nonzero
 * when nothing was done. No C++ exception leaves these functions.
 */
#ifndef HQ_XENIUM_SHIM_H
#define HQ_XENIUM_SHIM_H

#include <stddef.h>

/* k of the k-FIFO queue: the slots of each segment, and one more than the
 * places an item may leave ahead of its FIFO turn (xenium.c says why 64). */
#define XN_KFIFO_K 64u

/* What a message-only queue takes: a value from XN_VALUE_MIN (past the
 * first page, where no object lives: NULL, and 0x100, which xenium's k-FIFO
 * asserts it never sees) up to below XN_VALUE_LIMIT (a pointer below 2^47,
 * x86-64 user space with 4-level page tables, leaves ramalhete's mark bit
 * 63 and the k-FIFO's 16-bit tag in bits 48-63 clear). */
#define XN_VALUE_MIN ((size_t)4096)
#define XN_VALUE_LIMIT ((size_t)1 << 47)

#ifdef __cplusplus
extern "C" {
#endif

void *xn_ms_create(void);
void xn_ms_destroy(void *q);
int xn_ms_enqueue(void *h, void *item);
int xn_ms_dequeue(void *h, void **item);

void *xn_rh_create(void);
void xn_rh_destroy(void *q);
int xn_rh_enqueue(void *h, void *item);
int xn_rh_dequeue(void *h, void **item);

void *xn_kf_create(void);
void xn_kf_destroy(void *q);
int xn_kf_enqueue(void *h, void *item);
int xn_kf_dequeue(void *h, void **item);

#ifdef __cplusplus
}
#endif
#endif /* HQ_XENIUM_SHIM_H */
