/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * moodycamel_shim.h - the extern "C" functions moodycamel.cpp exports to
 * moodycamel.c. Handles are opaque: mc_create's queue, mc_thread_init's
 * per-thread tokens. mc_create and mc_thread_init return NULL when out of
 * memory; the others follow struct hq_ops (harness/queue.h).
 */
#ifndef HQ_MOODYCAMEL_SHIM_H
#define HQ_MOODYCAMEL_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *mc_create(size_t capacity, unsigned threads);
void mc_destroy(void *q);
void *mc_thread_init(void *q);
void mc_thread_fini(void *h);
int mc_enqueue(void *h, void *item);
int mc_dequeue(void *h, void **item);
unsigned mc_enqueue_burst(void *h, void *const *items, unsigned n);
unsigned mc_dequeue_burst(void *h, void **items, unsigned n);

#ifdef __cplusplus
}
#endif
#endif /* HQ_MOODYCAMEL_SHIM_H */
