/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * item_sum.h - a consumer's account of one burst of inline values: is the
 * burst one run of one producer's consecutive sequences? (--accounting)
 *
 * A burst of a FIFO queue from one producer (every burst of 1P1C, most of
 * any prodcons) is the run v0, v0 + 1, ..., v0 + n - 1 of untimed values,
 * some with the timed bit set. take() (workers_pvt.h) then needs no word per
 * item: the run's count is n, its checksum H(end) - H(start) (item.h), its
 * order rising, the run continuing the one before it if v0 is the next
 * sequence expected. The pass asks only whether the burst is that run: the
 * OR over i of values[i] ^ (base + i), base the first value untimed. It is
 * 0, or HB_ITEM_TIMED where some items are timed, exactly when every value
 * is its place's (other bits set: not one run; take() goes item by item).
 * Per item a load, an xor and an or (the expected word steps by an add per
 * vector): less than the queue's own dequeue of the item, so the consumer
 * is not the slower side of a fast queue (issue 44: with four reductions
 * per item, numaring's bursts ran the ring full, and the harness measured
 * its own loop). Done 1, 2 or 4 values at a time it is the same word to the
 * bit: OR is associative and commutative.
 *
 * The widths (--accounting):
 *   inline   the pass compiled into the consumer's loop, no call (auto): 4
 *            values at a time where the CPU has AVX2 (loops.c compiles the
 *            loops twice, and the CPU picks one at load), else GCC's vectors
 *            of 4 as two 128-bit halves (SSE2, any x86-64); 2 values at a
 *            time (hb_item_sums_inline2) in the loops compiled once (rte's,
 *            and the generic family's symmetric ones) and in flat's and
 *            numaring's symmetric loops where they do not run as AVX2
 *            (loops.c, HB_NARROW_, HB_SYM_NARROW_)
 *   scalar   one value at a time, a call per burst
 *   vector   2 values at a time, a call per burst
 *   avx2     4 values at a time, a call per burst; CPUs with AVX2 only
 */
#ifndef HB_ITEM_SUM_H
#define HB_ITEM_SUM_H

#include <stdint.h>
#include <string.h>

#include "item.h"

/* The pass's word over a burst's values. */
struct hb_item_sums {
	uint64_t off; /* OR of values[i] ^ (base + i); 0 for none */
};

/* Fills *s for values[0..n). values are inline items (void * holding a
 * uint64_t: the harness needs 64-bit pointers). */
typedef void hb_item_sum_fn(void *const *values, unsigned n, struct hb_item_sums *s);

/* The word a burst starting with value v0 is compared against at place 0. */
static inline uint64_t hb_item_run_base(uint64_t v0)
{
	return v0 & ~HB_ITEM_TIMED;
}

/* The body of a width of LANES = BYTES / 8 values per step: LANES values
 * against their expected words (base + i .. base + i + LANES - 1), then the
 * rest one by one. */
#define HB_ITEM_SUMS_BODY(BYTES, values, n, s)                                            \
	do {                                                                              \
		typedef uint64_t hb_vec_ __attribute__((vector_size(BYTES)));             \
		enum { LANES_ = (BYTES) / 8 };                                            \
		hb_vec_ off_ = {0}, lane_ = off_;                                         \
		uint64_t o_ = 0, base_ = 0;                                               \
		unsigned i_ = 0;                                                          \
		if ((n) > 0)                                                              \
			base_ = hb_item_run_base((uint64_t)(uintptr_t)(values)[0]);       \
		for (unsigned j_ = 0; j_ < LANES_; j_++) /* a constant: 0, 1, ... */      \
			lane_[j_] = j_;                                                   \
		/* in registers: vector plus scalar (no lane-by-lane store of the  \
		 * base, which the first load would wait on) */                     \
		hb_vec_ want_ = lane_ + base_;                                            \
		for (; i_ + LANES_ <= (n); i_ += LANES_) {                                \
			hb_vec_ v_;                                                       \
			memcpy(&v_, &(values)[i_], sizeof v_);                            \
			off_ |= v_ ^ want_;                                               \
			want_ += (uint64_t)LANES_;                                        \
		}                                                                         \
		for (unsigned j_ = 0; j_ < LANES_; j_++)                                  \
			o_ |= off_[j_];                                                   \
		for (; i_ < (n); i_++)                                                    \
			o_ |= (uint64_t)(uintptr_t)(values)[i_] ^ (base_ + i_);           \
		(s)->off = o_;                                                            \
	} while (0)

/* The inline width: the pass the prodcons consumer loops compile in (no
 * call), in vectors of 4 values: AVX2 registers in the loops' AVX2 clone,
 * two SSE2 halves in the other (loops.c). */
static inline __attribute__((always_inline)) void hb_item_sums_inline(void *const *values,
								      unsigned n,
								      struct hb_item_sums *s)
{
	HB_ITEM_SUMS_BODY(32, values, n, s);
}

/* The same pass in vectors of 2 (SSE2 registers): the symmetric loops'
 * (pairs, mixed) where they do not run as AVX2. There GCC's emulation of
 * vectors of 4 kept its accumulators on the stack, and with the default
 * backoff letting one thread run alone at L1 speed that cost a sixth of
 * pairs' bursts (interleaved pairs on the AMD f26m2 VM). */
static inline __attribute__((always_inline)) void hb_item_sums_inline2(void *const *values,
								       unsigned n,
								       struct hb_item_sums *s)
{
	HB_ITEM_SUMS_BODY(16, values, n, s);
}

enum hb_accounting {
	HB_ACCOUNT_AUTO,
	HB_ACCOUNT_SCALAR,
	HB_ACCOUNT_VECTOR,
	HB_ACCOUNT_AVX2,
	HB_ACCOUNT_INLINE,
	HB_ACCOUNT_COUNT_
};

/* The function of a called width; NULL for inline (the loops' own pass,
 * hb_item_sums_inline) and for avx2 on a CPU (or build) without it. AUTO is
 * resolved here: inline. */
hb_item_sum_fn *hb_item_sum_select(enum hb_accounting a);

/* Whether this CPU and build have width a (avx2 only may be missing). */
int hb_accounting_available(enum hb_accounting a);

/* The width AUTO stands for: inline. */
enum hb_accounting hb_accounting_resolve(enum hb_accounting a);

/* Names, parsed and printed through one table ("auto", "scalar", ...). */
const char *hb_accounting_name(enum hb_accounting a); /* "?" if unknown */
int hb_accounting_parse(const char *s, enum hb_accounting *out); /* 0, or -1 */

#endif /* HB_ITEM_SUM_H */
