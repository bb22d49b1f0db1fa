/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_take.c - a prodcons consumer's account of single inline items
 * through its open run in registers (workers_pvt.h: take1, take1_break,
 * run1_fold) says exactly what take() says item by item: each producer's
 * count, checksum and highest sequence, the inversions and the largest step
 * back, the values naming no producer. Streams with runs, gaps, duplicates,
 * inversions, other producers between, wrong timed bits, bad values and a
 * sequence field that wraps; every sample size from 1 item in 1 to 1 in
 * 2^20.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workers_pvt.h"

/* workers.c's, which no path of these tests reaches (record_timed returns
 * before it: the queue fabricates) */
enum hq_path hb_timed_path(struct hb_consumer *c, unsigned got, unsigned i, struct hq_paths *ps,
			   int *known)
{
	(void)c, (void)got, (void)i, (void)ps, (void)known;
	fail_msg("hb_timed_path reached");
	return HQ_PATH_COUNT_;
}

#define NP 3u

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

struct side {
	struct hb_consumer c;
	struct hb_tally tally[NP + 1]; /* + the dups word hb_tally_bytes counts */
};

static void side_init(struct side *s, struct hb_run *run)
{
	memset(s, 0, sizeof *s);
	s->c.run = run;
	s->c.tally = s->tally;
}

/* One stream of n items: mostly runs of one producer's next sequences, with
 * each kind of fault now and then; producer 2 starts near the wrap. */
static void stream(uint64_t *v, size_t n, uint64_t sample_mask)
{
	uint64_t next[NP] = {0, 1000, HB_ITEM_LOW_MASK - 300};
	size_t i = 0;
	while (i < n) {
		unsigned p = (unsigned)rnd(NP);
		uint64_t len = 1 + rnd(rnd(8) == 0 ? 400 : 12);
		for (uint64_t k = 0; k < len && i < n; k++) {
			uint64_t s = next[p]++;
			uint64_t x = hb_item_value(p, s, sample_mask);
			switch (rnd(64)) {
			case 0: next[p] += 1 + rnd(5); break;              /* a gap */
			case 1: x = hb_item_value(p, s - rnd(4) - 1, sample_mask); break; /* back */
			case 2: x ^= HB_ITEM_TIMED; break;                  /* timed bit wrong */
			case 3: x = ((uint64_t)(NP + rnd(4)) << HB_ITEM_PRODUCER_SHIFT) | s; break;
			case 4: if (i < n - 1) v[i++] = x; break;           /* a duplicate */
			default: break;
			}
			v[i++] = x;
		}
	}
}

static void check_same(uint64_t sample_mask, uint64_t seed, size_t n)
{
	struct hq_ops ops = {.fabricates = 1};
	struct hb_run run = {.np = NP, .sample_mask = sample_mask, .ops = &ops};
	static struct side ref, reg;
	uint64_t *v = malloc(n * sizeof *v);
	assert_non_null(v);
	rng_state = seed;
	stream(v, n, sample_mask);
	side_init(&ref, &run);
	side_init(&reg, &run);
	struct hb_run1 o = {0, 0};
	uint64_t breaks = 0;
	for (size_t i = 0; i < n; i++) {
		void *item = (void *)(uintptr_t)v[i];
		take(&ref.c, &item, 1, HB_ITEM_INLINE, NULL, 0);
		item = (void *)(uintptr_t)v[i];
		breaks += o.left == 0 || v[i] != o.expect;
		take1(&reg.c, &item, &o);
	}
	run1_fold(&reg.c, o);
	for (unsigned p = 0; p < NP; p++) {
		assert_int_equal(hb_tally_count(&reg.tally[p]), hb_tally_count(&ref.tally[p]));
		assert_true(hb_tally_sum(&reg.tally[p], p) == hb_tally_sum(&ref.tally[p], p));
		assert_int_equal(reg.tally[p].next, ref.tally[p].next);
	}
	assert_int_equal(reg.c.inversions, ref.c.inversions);
	assert_int_equal(reg.c.max_step, ref.c.max_step);
	assert_int_equal(reg.c.bad, ref.c.bad);
	/* the register path was taken: most items went on from the run */
	if (sample_mask >= 7)
		assert_true(breaks < n / 2);
	/* and the stream held every fault */
	assert_true(ref.c.inversions > 0 && ref.c.bad > 0);
	free(v);
}

static void take1_is_take_item_by_item(void **state)
{
	(void)state;
	const uint64_t masks[] = {0, 1, 7, 255, (UINT64_C(1) << 20) - 1};
	for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
		for (uint64_t seed = 1; seed <= 8; seed++)
			check_same(masks[m], seed * 0x9e3779b97f4a7c15u, 50000);
}

/* A loss, a duplicate, a corruption and a reordering inside a clean run
 * each change what the tally says (the run is not taken on trust), and the
 * clean stream's tally is exactly what was sent. */
static void take1_sees_each_fault(void **state)
{
	(void)state;
	struct hq_ops ops = {.fabricates = 1};
	struct hb_run run = {.np = 1, .sample_mask = 255, .ops = &ops};
	static struct side clean, bad;
	const uint64_t sent = 1000, whole = hb_item_check_run(0, 0, sent);
	for (int fault = 0; fault < 4; fault++) {
		side_init(&clean, &run);
		side_init(&bad, &run);
		struct hb_run1 oc = {0, 0}, ob = {0, 0};
		for (uint64_t s = 0; s < sent; s++) {
			uint64_t x = hb_item_value(0, s, 255);
			void *item = (void *)(uintptr_t)x;
			take1(&clean.c, &item, &oc);
			unsigned copies = 1;
			if (s == 500 && fault == 0)
				copies = 0;               /* lost */
			else if (s == 500 && fault == 1)
				copies = 2;               /* duplicated */
			else if (s == 500 && fault == 2)
				x ^= UINT64_C(1) << 3;    /* corrupted */
			else if (fault == 3 && (s == 500 || s == 501))
				x = hb_item_value(0, s == 500 ? 501 : 500, 255); /* swapped */
			while (copies--) {
				item = (void *)(uintptr_t)x;
				take1(&bad.c, &item, &ob);
			}
		}
		run1_fold(&clean.c, oc);
		run1_fold(&bad.c, ob);
		assert_int_equal(hb_tally_count(&clean.tally[0]), sent);
		assert_true(hb_tally_sum(&clean.tally[0], 0) == whole);
		assert_int_equal(clean.c.inversions, 0);
		assert_true(hb_tally_count(&bad.tally[0]) != sent ||
			    hb_tally_sum(&bad.tally[0], 0) != whole || bad.c.inversions != 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(take1_is_take_item_by_item),
		cmocka_unit_test(take1_sees_each_fault),
	};
	return cmocka_run_group_tests_name("take", tests, NULL, NULL);
}
