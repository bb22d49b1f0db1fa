/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * item_sum.h - a consumer's account of one burst of inline values: the
 * count's, the checksum's and the order's words in one pass (--accounting).
 *
 * take() (workers_pvt.h) accounts for a burst of inline values with four
 * reductions over them: their OR and their AND (do they all name one
 * producer? is any timed?), the sum of their premixes (item.h) and the
 * order word (below). Per item that is a load, two shifts, an xor, an add,
 * a subtraction, an or and two ands: about as many instructions as the
 * queue's own dequeue of the item. Done one value at a time, and the order
 * in a second pass, it made the consumer the slower side of a fast queue
 * (numaring's bursts: the ring ran full, and the producer then refilled
 * each freed cell right behind the consumer), so the harness measured its
 * own loop rather than the queue (issue 44). Done 2 or 4 values at a time
 * it gives the same four words to the bit: OR, AND, addition mod 2^64 are
 * associative and commutative.
 *
 * The order word is the AND, over each value after the first, of
 * (previous << 1) - (value << 1). Where every value names one producer
 * (the OR and the AND agree on the producer field), the shift drops the
 * timed bit and leaves the producer field equal in both, so the difference
 * is that of two 48-bit sequences shifted once: it fits in 50 bits, and its
 * sign bit is set exactly when the value's sequence is above the one
 * before it. Bit 63 of the word is therefore set exactly when the burst's
 * sequences strictly rise (all ones for a burst of one or none).
 *
 * The widths (--accounting):
 *   inline   the pass compiled into the consumer's loop, no call (auto): 4
 *            values at a time where the CPU has AVX2 (loops.c compiles the
 *            loops twice, and the CPU picks one at load), else GCC's vectors
 *            of 4 as two 128-bit halves (SSE2, any x86-64)
 *   scalar   one value at a time, a call per burst
 *   vector   2 values at a time, a call per burst
 *   avx2     4 values at a time, a call per burst; CPUs with AVX2 only
 */
#ifndef HB_ITEM_SUM_H
#define HB_ITEM_SUM_H

#include <stdint.h>
#include <string.h>

#include "item.h"

/* The four reductions over a burst's values. */
struct hb_item_sums {
	uint64_t any;    /* OR of the values (0 for none) */
	uint64_t all;    /* AND of the values (all ones for none) */
	uint64_t premix; /* sum of hb_item_premix(value), mod 2^64 */
	uint64_t order;  /* bit 63: the sequences rise (one producer; above) */
};

/* Fills *s for values[0..n). values are inline items (void * holding a
 * uint64_t: the harness needs 64-bit pointers). */
typedef void hb_item_sum_fn(void *const *values, unsigned n, struct hb_item_sums *s);

/* One step of the order word: value after previous. */
static inline uint64_t hb_item_order_step(uint64_t previous, uint64_t value)
{
	return (previous << 1) - (value << 1);
}

/* The body of a width of LANES = BYTES / 8 values per step: the first value
 * alone, then LANES values and the LANES before each (overlapping unaligned
 * loads), then the rest one by one. The premix (v ^ (v >> 31)) and the order
 * step are written out for the vector type: hb_item_premix's and
 * hb_item_order_step's operations, lane by lane. */
#define HB_ITEM_SUMS_BODY(BYTES, values, n, s)                                            \
	do {                                                                              \
		typedef uint64_t hb_vec_ __attribute__((vector_size(BYTES)));             \
		enum { LANES_ = (BYTES) / 8 };                                            \
		hb_vec_ any_ = {0}, all_ = ~any_, pre_ = any_, ord_ = ~any_;              \
		uint64_t a_ = 0, l_ = ~UINT64_C(0), p_ = 0, o_ = ~UINT64_C(0);            \
		unsigned i_ = 1;                                                          \
		if ((n) > 0) {                                                            \
			uint64_t v0_ = (uint64_t)(uintptr_t)(values)[0];                  \
			a_ = l_ = v0_;                                                    \
			p_ = hb_item_premix(v0_);                                         \
		}                                                                         \
		for (; i_ + LANES_ <= (n); i_ += LANES_) {                                \
			hb_vec_ v_, w_;                                                   \
			memcpy(&v_, &(values)[i_], sizeof v_);                            \
			memcpy(&w_, &(values)[i_ - 1], sizeof w_);                        \
			any_ |= v_;                                                       \
			all_ &= v_;                                                       \
			pre_ += v_ ^ (v_ >> 31);                                          \
			ord_ &= (w_ << 1) - (v_ << 1);                                    \
		}                                                                         \
		for (unsigned j_ = 0; j_ < LANES_; j_++) {                                \
			a_ |= any_[j_];                                                   \
			l_ &= all_[j_];                                                   \
			p_ += pre_[j_];                                                   \
			o_ &= ord_[j_];                                                   \
		}                                                                         \
		for (; i_ < (n); i_++) {                                                  \
			uint64_t v_1 = (uint64_t)(uintptr_t)(values)[i_];                 \
			a_ |= v_1;                                                        \
			l_ &= v_1;                                                        \
			p_ += hb_item_premix(v_1);                                        \
			o_ &= hb_item_order_step((uint64_t)(uintptr_t)(values)[i_ - 1], v_1); \
		}                                                                         \
		(s)->any = a_;                                                            \
		(s)->all = l_;                                                            \
		(s)->premix = p_;                                                         \
		(s)->order = o_;                                                          \
	} while (0)

/* The inline width: the pass the consumer loops compile in (no call), in
 * vectors of 4 values: AVX2 registers in the loops' AVX2 clone, two SSE2
 * halves in the other (loops.c). */
static inline __attribute__((always_inline)) void hb_item_sums_inline(void *const *values,
								      unsigned n,
								      struct hb_item_sums *s)
{
	HB_ITEM_SUMS_BODY(32, values, n, s);
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
