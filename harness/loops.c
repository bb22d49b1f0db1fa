/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * loops.c - the prodcons and symmetric loops (loops_body.h) compiled once
 * per queue family: flat, numaring and rte with their operations inline,
 * and the generic family for every other queue (issue 44: the harness sets
 * no pace of its own through a call per operation).
 */
#include <stddef.h>

#include "loops_body.h"
#include "peers/flat_ops.h"
#include "peers/numaring_ops.h"
#include "peers/rte_ops.h"

extern const struct hq_ops hq_flat, hq_numaring, hq_rte;

/* The loops that account for bursts are compiled twice where the compiler
 * can: for AVX2 (item_sum.h's pass 4 values at a time) and for any x86-64,
 * the CPU choosing at load time (an ifunc). Not rte's: its operations are
 * inline here, and an AVX2 build of its copy would measure another rte_ring
 * than the bare loop's. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
/* (not in a sanitizer's build: an ifunc resolver runs before the
 * sanitizer's runtime is up, and the program crashes at load) */
#define HB_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#define HB_HAVE_CLONES 1
#else
#define HB_AVX2_CLONES
#define HB_HAVE_CLONES 0
#endif

/* Whether the loops run as their AVX2 clones (the CPU has AVX2, and they
 * were cloned): then a symmetric loop accounts 4 values at a time, else 2
 * (below). Set once, before main, and only read after. */
static int hb_avx2_clones;

__attribute__((constructor)) static void hb_loops_init(void)
{
#if HB_HAVE_CLONES
	__builtin_cpu_init(); /* before __builtin_cpu_supports in a constructor */
	hb_avx2_clones = __builtin_cpu_supports("avx2");
#endif
}
#define HB_CLONES_generic HB_AVX2_CLONES
#define HB_CLONES_flat HB_AVX2_CLONES
#define HB_CLONES_numaring HB_AVX2_CLONES
#define HB_CLONES_rte
/* A family compiled once (rte) accounts for a burst 2 values at a time
 * (item_sum.h's hb_item_sums_inline2, SSE2 registers): GCC's emulation of
 * vectors of 4 on plain x86-64 keeps their accumulators on the stack, a
 * load and a store a step, and rte's 1P1C bursts ran at 0.71 of the bare
 * loop with it (perf: the pass's stack traffic the consumer's hottest
 * lines). The cloned families' AVX2 clone holds vectors of 4 in registers. */
#define HB_NARROW_generic 0
#define HB_NARROW_flat 0
#define HB_NARROW_numaring 0
#define HB_NARROW_rte 1
/* The symmetric loops: AVX2 clones for flat's and numaring's, whose pairs
 * bursts the harness slowed most (flat's at 0.71 of the bare loop, 12
 * rounds on the AMD f25m17 VM, issue 44). There a thread accounts for each
 * burst it dequeues, and 4 values at a time in AVX2 registers instead of 2
 * in SSE2 ones took flat's pairs bursts to 0.81 of the bare loop (1.04x
 * the loop before, paired, 24 rounds). The clone that is not AVX2's keeps
 * 2 values at a time (a run-time constant: GCC's vectors of 4 emulated in
 * SSE2 keep their accumulators on the stack). Not the generic family's (a
 * call per operation) nor rte's (its copy of rte_ring stays the bare
 * loop's): compiled once, 2 at a time. */
#define HB_SYM_CLONES_generic
#define HB_SYM_CLONES_flat HB_AVX2_CLONES
#define HB_SYM_CLONES_numaring HB_AVX2_CLONES
#define HB_SYM_CLONES_rte
#define HB_SYM_NARROW_generic 1
#define HB_SYM_NARROW_flat (!hb_avx2_clones)
#define HB_SYM_NARROW_numaring (!hb_avx2_clones)
#define HB_SYM_NARROW_rte 1
/* symmetric variants with local work: the generic family's only */
#define HB_SYM_WORK_generic(x) x
#define HB_SYM_WORK_flat(x)
#define HB_SYM_WORK_numaring(x)
#define HB_SYM_WORK_rte(x)

HB_LOOPS(generic, HB_SYM_ALL_, (hb_enqueue_fn *)NULL, (hb_dequeue_fn *)NULL, (hb_enqueue_burst_fn *)NULL,
	 (hb_dequeue_burst_fn *)NULL)
HB_LOOPS(flat, HB_SYM_DATA_, flat_enqueue, flat_dequeue, flat_enqueue_burst, flat_dequeue_burst)
HB_LOOPS(numaring, HB_SYM_DATA_, nrq_enqueue, nrq_dequeue, nrq_enqueue_burst, nrq_dequeue_burst)
HB_LOOPS(rte, HB_SYM_DATA_, rteq_enqueue, rteq_dequeue, rteq_enqueue_burst, rteq_dequeue_burst)

static const struct {
	const struct hq_ops *ops;
	const struct hb_loops *loops;
} families[] = {
	{&hq_flat, &hb_loops_flat},
	{&hq_numaring, &hb_loops_numaring},
	{&hq_rte, &hb_loops_rte},
};

const struct hb_loops *hb_loops_of(const struct hq_ops *ops)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (families[i].ops == ops)
			return families[i].loops;
	return &hb_loops_generic;
}

hb_symmetric_loop *hb_symmetric_of(const struct hq_ops *ops, enum hb_sym_mode mode, int be,
				   int bd, int mixed, int work)
{
	hb_symmetric_loop *fn = hb_loops_of(ops)->symmetric[mode][!!be][!!bd][!!mixed][!!work];
	return fn ? fn : hb_loops_generic.symmetric[mode][!!be][!!bd][!!mixed][!!work];
}
