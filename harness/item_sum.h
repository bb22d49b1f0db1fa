/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * item_sum.h - a consumer's account of one burst of inline values, as wide
 * as the CPU allows (--accounting).
 *
 * take() in workers.c accounts for a burst of inline values with three
 * reductions over them: their OR and their AND (do they all name one
 * producer? is any timed?) and the sum of their premixes (item.h). Per item
 * that is a load, a shift, an xor, an add, an or and an and: about as many
 * instructions as the queue's own dequeue of the item. Done one value at a
 * time, it made the consumer the slower side of a fast queue (numaring's
 * bursts: the ring ran full, and the producer then refilled each freed cell
 * right behind the consumer), so the harness measured its own loop rather
 * than the queue: make bench-fidelity's harness/bare ratio was 0.7 for
 * numaring's bursts. The same reductions done 4 values at a time (AVX2) or
 * 2 at a time (SSE2, any x86-64; or whatever 128-bit vectors the compiler
 * has) give the same three words to the bit: OR, AND and addition mod 2^64
 * are associative and commutative.
 *
 * The widths, selected once per run:
 *   scalar   one value at a time (the harness before this file)
 *   vector   2 values at a time (GCC's 128-bit vectors: SSE2 on x86-64)
 *   avx2     4 values at a time; x86-64 CPUs with AVX2 only
 *   auto     avx2 where the CPU has it, else vector (default)
 */
#ifndef HB_ITEM_SUM_H
#define HB_ITEM_SUM_H

#include <stdint.h>

/* The three reductions over a burst's values. */
struct hb_item_sums {
	uint64_t any;    /* OR of the values (0 for none) */
	uint64_t all;    /* AND of the values (all ones for none) */
	uint64_t premix; /* sum of hb_item_premix(value), mod 2^64 */
};

/* Fills *s for values[0..n). values are inline items (void * holding a
 * uint64_t: the harness needs 64-bit pointers). */
typedef void hb_item_sum_fn(void *const *values, unsigned n, struct hb_item_sums *s);

enum hb_accounting {
	HB_ACCOUNT_AUTO,
	HB_ACCOUNT_SCALAR,
	HB_ACCOUNT_VECTOR,
	HB_ACCOUNT_AVX2,
	HB_ACCOUNT_COUNT_
};

/* The function of one width; NULL for avx2 on a CPU (or build) without it.
 * AUTO is resolved here: avx2 if available, else vector. */
hb_item_sum_fn *hb_item_sum_select(enum hb_accounting a);

/* The width AUTO stands for on this CPU. */
enum hb_accounting hb_accounting_resolve(enum hb_accounting a);

/* Names, parsed and printed through one table ("auto", "scalar", ...). */
const char *hb_accounting_name(enum hb_accounting a); /* "?" if unknown */
int hb_accounting_parse(const char *s, enum hb_accounting *out); /* 0, or -1 */

#endif /* HB_ITEM_SUM_H */
