/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * routing.c - which node a worker is on: the look-up in force, the worker's
 * first key and node, and the out-of-line half of routing (a new key mapped
 * to a node, CACHED's re-checks). The inline half, the look-ups themselves,
 * is nr_fastpath.h.
 */
#define _GNU_SOURCE
#include "nr_fastpath.h"

#include <sys/auxv.h>

#if defined(NR_LAB) && defined(__x86_64__)
#include <cpuid.h>
#endif

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

/* ------------------------------------------------------------------ */
/* support probes and the look-up in force                              */

int nr_rseq_node_ok(void)
{
	/* node_id exists when the kernel's rseq feature size covers it (>= 24
	 * bytes, Linux 6.3) and glibc registered an area for this thread.
	 * __rseq_size is not the test for node_id: glibc 2.40 reports 20 even
	 * where the kernel fills node_id. */
	return getauxval(AT_RSEQ_FEATURE_SIZE) >= 24 && __rseq_size > 0;
}

#ifdef NR_LAB
int nr_rdpid_ok(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	if (!(c & (1u << 22))) /* CPUID.(EAX=7,ECX=0):ECX.RDPID[bit 22] */
		return 0;
	/* Linux keeps (node << 12) | cpu in TSC_AUX; check the CPU part
	 * against sched_getcpu (a few tries, in case we migrate in between). */
	for (int i = 0; i < 8; i++) {
		int cpu = sched_getcpu();
		uint64_t aux = nr_rdpid();
		if (cpu >= 0 && (int)(aux & 0xfff) == cpu)
			return 1;
	}
	return 0;
#else
	return 0;
#endif
}
#endif

#if defined(NR_TEST_HOOKS) && !defined(NR_LAB)
int nr_test_lookup = NUMARING_LOOKUP_AUTO;
#endif

enum numaring_lookup nr_lookup_resolve(enum numaring_lookup asked, unsigned cpu_nodes)
{
	enum numaring_lookup l = asked;
#if defined(NR_TEST_HOOKS) && !defined(NR_LAB)
	if (nr_test_lookup == NUMARING_LOOKUP_RSEQ || nr_test_lookup == NUMARING_LOOKUP_CACHED ||
	    nr_test_lookup == NUMARING_LOOKUP_NONE)
		return (enum numaring_lookup)nr_test_lookup;
#endif
	/* One node with CPUs: a worker's node is the one it finds at attach
	 * and stays so wherever the thread moves, so production looks up
	 * nothing per operation (issue 45: on one node, numaring's operation
	 * is its ring's). A CPU node that appears later (hotplug) is not one
	 * of the queue's: the other modes would keep the old node too. */
	if (l == NUMARING_LOOKUP_AUTO && cpu_nodes <= 1)
		return NUMARING_LOOKUP_NONE;
	if (l == NUMARING_LOOKUP_AUTO)
		l = nr_rseq_node_ok() ? NUMARING_LOOKUP_RSEQ : NUMARING_LOOKUP_CACHED;
#ifdef NR_LAB
	if (l == NUMARING_LOOKUP_RSEQ && !nr_rseq_node_ok())
		l = NUMARING_LOOKUP_TABLE;
	if (l == NUMARING_LOOKUP_RDPID && !nr_rdpid_ok())
		l = NUMARING_LOOKUP_TABLE;
#endif
	return l;
}

/* ------------------------------------------------------------------ */
/* keys and nodes                                                       */

static unsigned key_kind(const struct numaring *q)
{
	return q->topo.emulated || !q->topo.numa_available ? NR_KEY_CPU : NR_KEY_OS;
}

/* Queue node of a key; -1 if it maps to none (a CPU outside the topology). */
static int node_of_key(const struct numaring *q, unsigned kind, uint32_t key)
{
	if (kind == NR_KEY_CPU)
		return key < NR_MAX_CPUS ? q->cpu_node[key] : -1;
	return key < NR_MAX_NODES * 4 ? q->os_node_idx[key] : -1;
}

/* A key that maps to no node keeps the old node: a stale node costs
 * locality, never correctness. */
void nr_rekey(struct numaring_worker *w, uint32_t key)
{
	struct numaring *q = w->q;
	int n = node_of_key(q, w->key_kind, key);
	w->key = key;
	if (n < 0 || (unsigned)n == w->node)
		return;
	w->st.node_changes++;
	w->node = (unsigned)n;
	w->local = q->rings[n];
}

/* A look-up through the CPU and the table: counted (stats.lookups). */
static NR_NOINLINE void relookup(struct numaring_worker *w)
{
	uint32_t key = nr_lookup_key(w, w->q, NUMARING_LOOKUP_TABLE);
	w->st.lookups++;
	if (unlikely(key != w->key))
		nr_rekey(w, key);
}

void nr_recheck_now(struct numaring_worker *w)
{
	w->recheck_left = nr_recheck_every(w->q);
	relookup(w);
}

/* The local ring was full or empty: with CACHED, check the node before going
 * remote (the other modes have just looked). Returns 1 if the node changed. */
int nr_recheck_on_slow_path(struct numaring_worker *w)
{
	unsigned before = w->node;
	if (w->q->lookup != NUMARING_LOOKUP_CACHED)
		return 0;
	nr_recheck_now(w);
	return w->node != before;
}

/* The worker's first key, of the kind its look-ups give (NONE and CACHED go
 * through the table). */
static uint32_t first_key(const struct numaring_worker *w, const struct numaring *q)
{
	switch (q->lookup) {
#ifdef NR_LAB
	case NUMARING_LOOKUP_LIBNUMA:
		return nr_lookup_key(w, q, NUMARING_LOOKUP_LIBNUMA);
	case NUMARING_LOOKUP_SYSCALL:
		return nr_lookup_key(w, q, NUMARING_LOOKUP_SYSCALL);
	case NUMARING_LOOKUP_RDPID:
		return nr_lookup_key(w, q, NUMARING_LOOKUP_RDPID);
#endif
	case NUMARING_LOOKUP_RSEQ:
		return nr_lookup_key(w, q, NUMARING_LOOKUP_RSEQ);
	default:
		return nr_lookup_key(w, q, NUMARING_LOOKUP_TABLE);
	}
}

void nr_route_attach(struct numaring_worker *w)
{
	struct numaring *q = w->q;
	int n;
	w->recheck_left = nr_recheck_every(q) ? nr_recheck_every(q) : 1;
	w->key_kind = (uint8_t)key_kind(q);
	w->rseq = q->lookup == NUMARING_LOOKUP_RSEQ;
	w->fixed = q->lookup == NUMARING_LOOKUP_NONE;
	w->alone = q->nnodes == 1;
	/* RSEQ and RDPID read the key without a test of its kind */
	w->rseq_off = w->key_kind == NR_KEY_CPU ? NR_RSEQ_CPU_ID_OFF : NR_RSEQ_NODE_ID_OFF;
#ifdef NR_LAB
	w->key_shift = w->key_kind == NR_KEY_CPU ? 0 : 12;
	w->key_mask = w->key_kind == NR_KEY_CPU ? 0xfffu : 0xfffffu;
#endif
	w->key = first_key(w, q);
	n = node_of_key(q, w->key_kind, w->key);
	if (n < 0) { /* a CPU outside the topology: the first node with CPUs */
		n = 0;
		while ((unsigned)n + 1 < q->nnodes && CPU_COUNT(&q->topo.cpus[n]) == 0)
			n++;
	}
	w->node = (unsigned)n;
	w->local = q->rings[w->node];
}
