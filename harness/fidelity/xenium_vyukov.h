/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xenium_vyukov.h - the extern "C" functions xenium_vyukov.cpp exports to
 * bare_loop.c: xenium's vyukov_bounded_queue<void *>, the algorithm of the
 * flat ring in another implementation, so that the bare loop can check
 * flat's own speed against it. xv_create returns NULL when it fails; the
 * operations return 0 on success, nonzero when full (enqueue) or empty
 * (dequeue). No C++ exception leaves them.
 */
#ifndef HB_XENIUM_VYUKOV_H
#define HB_XENIUM_VYUKOV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *xv_create(size_t capacity);
void xv_destroy(void *q);
int xv_enqueue(void *q, void *item);
int xv_dequeue(void *q, void **item);

#ifdef __cplusplus
}
#endif
#endif /* HB_XENIUM_VYUKOV_H */
