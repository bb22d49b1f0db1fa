/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_lookup.h - the raw ways of asking "which CPU / node am I on?" (internal).
 *
 * Each returns what the hardware or kernel says; mapping CPUs and OS nodes
 * to queue nodes is routing.c's job. They are inline so that the cost the
 * benchmark measures is the look-up itself, not a call around it.
 */
#ifndef NR_LOOKUP_H
#define NR_LOOKUP_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc >= 2.35 registers an rseq area per thread and exports where it is. */
extern const ptrdiff_t __rseq_offset;
extern const unsigned int __rseq_size;

/* Offsets in struct rseq (linux/rseq.h): cpu_id at 4, node_id at 20 (6.3+). */
#define NR_RSEQ_CPU_ID_OFF 4
#define NR_RSEQ_NODE_ID_OFF 20

/* The kernel rewrites these fields before the thread returns to user space
 * after a migration; no other thread writes them. What is needed is one
 * fresh single-copy-atomic load, no ordering: on x86-64 one %fs-relative
 * mov in an asm volatile (never merged with another load, never hoisted out
 * of a loop); elsewhere a relaxed atomic load. */
#if defined(__x86_64__)
static inline uint32_t nr_rseq_load(size_t off)
{
	uint32_t v;
	__asm__ __volatile__("movl %%fs:(%1), %0" : "=r"(v) : "r"(__rseq_offset + (ptrdiff_t)off));
	return v;
}
#else
static inline uint32_t nr_rseq_load(size_t off)
{
	const uint32_t *p =
		(const uint32_t *)((const char *)__builtin_thread_pointer() + __rseq_offset + off);
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}
#endif

static inline uint32_t nr_rseq_node(void)
{
	return nr_rseq_load(NR_RSEQ_NODE_ID_OFF);
}

static inline uint32_t nr_rseq_cpu(void)
{
	return nr_rseq_load(NR_RSEQ_CPU_ID_OFF);
}

/* TSC_AUX as Linux sets it on x86-64: (node << 12) | cpu. */
static inline uint64_t nr_rdpid(void)
{
#if defined(__x86_64__)
	uint64_t v;
	__asm__ __volatile__("rdpid %0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

/* The raw getcpu system call, bypassing the vDSO and rseq. */
static inline int nr_getcpu_syscall(unsigned *cpu, unsigned *node)
{
	return (int)syscall(SYS_getcpu, cpu, node, NULL);
}

#endif /* NR_LOOKUP_H */
