/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tbb_shim.h - the extern "C" functions tbb.cpp exports to tbb.c. The queue
 * is every thread's handle (oneTBB keeps no per-thread state the caller
 * sees). tb_create returns NULL with nothing allocated when it fails; the
 * others follow struct hq_ops (harness/queue.h).
 */
#ifndef HQ_TBB_SHIM_H
#define HQ_TBB_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *tb_create(size_t capacity);
void tb_destroy(void *q);
int tb_enqueue(void *h, void *item);
int tb_dequeue(void *h, void **item);

#ifdef __cplusplus
}
#endif
#endif /* HQ_TBB_SHIM_H */
