/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * errors.c - how the library fails: the calling thread's error sentence,
 * the one allocator every allocation goes through (where the tests inject
 * failures), and the preemption points of the fault build.
 */
#define _GNU_SOURCE
#include "nr_internal.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* errors                                                               */

static __thread char nr_errbuf[NR_ERRLEN];

void nr_set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(nr_errbuf, sizeof nr_errbuf, fmt, ap);
	va_end(ap);
}

void nr_clear_error(void)
{
	nr_errbuf[0] = '\0';
}

const char *numaring_last_error(void)
{
	return nr_errbuf;
}

/* ------------------------------------------------------------------ */
/* allocation (hookable for fault injection)                            */

#ifdef NR_TEST_HOOKS
int (*nr_fault_alloc)(size_t size);

int nr_alloc_fails(size_t size)
{
	return nr_fault_alloc && nr_fault_alloc(size);
}
#else
int nr_alloc_fails(size_t size)
{
	(void)size;
	return 0;
}
#endif

/* Every allocation of the library goes through here (free() releases it). */
void *nr_alloc(size_t size)
{
	void *p = NULL;
	if (nr_alloc_fails(size))
		return NULL;
	if (posix_memalign(&p, NR_DESTRUCTIVE, size) != 0)
		return NULL;
	return p;
}

#ifdef NR_FAULT_INJECT
/* How many preemptions were injected (the tests report it). */
_Atomic unsigned long nr_fault_yields;

/* Yield at about one fault point in eight (per-thread xorshift). */
void nr_fault_point(void)
{
	static __thread uint32_t x;
	if (x == 0)
		x = (uint32_t)(uintptr_t)&x | 1u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	if ((x & 7) == 0) {
		/* relaxed: a statistic, read once every thread has been joined */
		atomic_fetch_add_explicit(&nr_fault_yields, 1, memory_order_relaxed);
		sched_yield();
	}
}
#endif
