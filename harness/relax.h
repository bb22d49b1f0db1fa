/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * relax.h - the harness's spin-wait hint: what a thread does for one turn
 * of a loop that waits for another thread (room in the queue, an item, the
 * start signal). PAUSE on x86 (it also tells the core that the loop is a
 * spin, so that leaving it does not flush the pipeline), YIELD on Arm,
 * a compiler barrier elsewhere. Not a backoff: the queues' own backoffs
 * (--backoff) are the library's.
 */
#ifndef HB_RELAX_H
#define HB_RELAX_H

static inline void hb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* HB_RELAX_H */
