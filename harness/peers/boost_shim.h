/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boost_shim.h - the extern "C" functions boost.cpp exports to boost.c.
 * Handles are opaque: bl_create's queue; the queue itself is every thread's
 * handle (Boost.Lockfree keeps no per-thread state). bl_create returns NULL
 * with nothing allocated when the preallocation fails; the others follow
 * struct hq_ops (harness/queue.h).
 */
#ifndef HQ_BOOST_SHIM_H
#define HQ_BOOST_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *bl_create(size_t capacity);
void bl_destroy(void *q);
int bl_lock_free(void *q);
int bl_enqueue(void *h, void *item);
int bl_dequeue(void *h, void **item);

#ifdef __cplusplus
}
#endif
#endif /* HQ_BOOST_SHIM_H */
