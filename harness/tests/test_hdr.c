/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_hdr.c - cmocka tests of the log-linear histogram (harness/hdr.c)
 * and of the .hgrm reader (harness/hgrm.c).
 *
 * Random data comes from a fixed-seed splitmix64, so a failure reproduces;
 * HDR_TEST_SEED=<n> runs the same tests on other data.
 *
 *   gcc -std=gnu11 -O2 -g -Wall -Wextra -Iharness harness/hdr.c harness/hgrm.c \
 *       harness/tests/test_hdr.c -lcmocka -lm -o test_hdr
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hdr.h"
#include "hgrm.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#else
#define UNDER_SANITIZER 0
#endif

/* ---- malloc interposition (plain builds only) ----------------------------
 * The executable's malloc family replaces glibc's for every caller; each
 * forwards to glibc's own entry points and, while `counting` is set, counts.
 * volatile: the compiler must neither cache the flag nor drop the counting
 * (it may drop an unused malloc/free pair in the caller, not our stores). */
static volatile int counting;
static volatile long allocations;

#if !UNDER_SANITIZER
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
	if (counting)
		allocations++;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (counting)
		allocations++;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		allocations++;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}
#endif

/* ---- helpers --------------------------------------------------------------- */

static uint64_t seed_base = 0x5eed0001u;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unit01(uint64_t *s) /* [0, 1) */
{
	return (double)(splitmix(s) >> 11) * 0x1p-53;
}

enum dist { UNIFORM, LOGUNIFORM, EXPONENTIAL, CONSTANT, OUTLIERS, NDIST };
static const char *const dist_name[NDIST] = {"uniform", "log-uniform", "exponential", "constant",
					     "outliers"};

/* 1 ns .. 10 s is the range the harness records */
#define TEN_S INT64_C(10000000000)

static int64_t draw(enum dist d, uint64_t *s)
{
	switch (d) {
	case UNIFORM:
		return (int64_t)(splitmix(s) % 2000001); /* 0 .. 2 ms */
	case LOGUNIFORM:
		return (int64_t)exp(unit01(s) * log((double)TEN_S)); /* 1 ns .. 10 s */
	case EXPONENTIAL: {
		int64_t v = (int64_t)(-log(1.0 - unit01(s)) * 50000.0); /* mean 50 us */
		return v > TEN_S ? TEN_S : v;
	}
	case CONSTANT:
		return 4242;
	case OUTLIERS:
	default:
		/* ~1 us, and one in a thousand a multi-second stall */
		if (splitmix(s) % 1000 == 0)
			return INT64_C(1000000000) + (int64_t)(splitmix(s) % INT64_C(8000000000));
		return 900 + (int64_t)(splitmix(s) % 200);
	}
}

static int64_t *make_data(enum dist d, size_t n, uint64_t seed)
{
	int64_t *v = malloc(n * sizeof(*v));
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = draw(d, &seed);
	return v;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static struct hdr_hist *mk(int64_t lo, int64_t hi, int digits)
{
	struct hdr_hist *h = NULL;
	assert_int_equal(hdr_init(lo, hi, digits, &h), 0);
	assert_non_null(h);
	return h;
}

/* The whole output of a writer as a NUL-terminated string. */
static char *write_to_string(const struct hdr_hist *h, int csv, int ticks, double scale,
			     size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	int rc = csv ? hdr_write_csv(h, f, ticks) : hdr_write_hgrm(h, f, ticks, scale);
	assert_int_equal(rc, 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

/* Parse a copy of exactly len bytes, so that ASan sees any read past it. */
static int parse_exact(const char *text, size_t len, struct hdr_hgrm *g, char *err, size_t errlen)
{
	char *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	if (len)
		memcpy(copy, text, len);
	int rc = hdr_parse_hgrm(copy, len, g, err, errlen);
	free(copy);
	return rc;
}

/* ---- init ------------------------------------------------------------------ */

static void test_init_rejects_bad_parameters(void **state)
{
	(void)state;
	struct hdr_hist *h = (struct hdr_hist *)&h; /* must stay untouched */
	struct hdr_hist *const sentinel = h;
	static const struct {
		int64_t lo, hi;
		int d;
	} bad[] = {
	    {0, 1000, 3},                          /* lowest 0 */
	    {-5, 1000, 3},                         /* lowest negative */
	    {10, 19, 3},                           /* highest < 2 * lowest */
	    {10, 10, 3},                           /* highest == lowest */
	    {1, 1, 3},                             /* highest < 2 */
	    {1, 1000, 0},                          /* digits 0 */
	    {1, 1000, 6},                          /* digits 6 */
	    {1, 1000, -1},                         /* digits negative */
	    {INT64_C(1) << 60, INT64_MAX, 3},      /* shifts would leave int64_t */
	    {INT64_MAX / 2 + 1, INT64_MAX, 1},     /* 2 * lowest overflows */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = hdr_init(bad[i].lo, bad[i].hi, bad[i].d, &h);
		if (rc != -EINVAL)
			fail_msg("hdr_init(%" PRId64 ", %" PRId64 ", %d) = %d, want -EINVAL",
				 bad[i].lo, bad[i].hi, bad[i].d, rc);
		assert_ptr_equal(h, sentinel);
	}
	assert_int_equal(hdr_init(1, 1000, 3, NULL), -EINVAL);

	/* the edges that are allowed */
	h = mk(10, 20, 1);
	hdr_free(h);
	h = mk(1, INT64_MAX, 3);
	assert_true(hdr_record(h, INT64_MAX));
	assert_int_equal(hdr_value_at_percentile(h, 100), INT64_MAX);
	hdr_free(h);
	h = mk(1, TEN_S, 5);
	hdr_free(h);
	hdr_free(NULL);
}

/* Layout numbers that Java's HdrHistogram prints in its .hgrm footer. */
static void test_layout_matches_hdrhistogram(void **state)
{
	(void)state;
	static const struct {
		int64_t lo, hi;
		int d;
		int buckets, sub;
	} want[] = {
	    {1, TEN_S, 3, 24, 2048},
	    {1, TEN_S, 2, 27, 256},
	    {1, TEN_S, 1, 30, 32},
	    {1, 1000, 2, 3, 256},
	    {1000, TEN_S, 3, 15, 2048},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct hdr_hist *h = mk(want[i].lo, want[i].hi, want[i].d);
		assert_int_equal(h->bucket_count, want[i].buckets);
		assert_int_equal(h->sub_bucket_count, want[i].sub);
		assert_int_equal(h->counts_len, (want[i].buckets + 1) * want[i].sub / 2);
		hdr_free(h);
	}
}

/* ---- bucket boundaries ----------------------------------------------------- */

static void check_value_bucket(const struct hdr_hist *h, int64_t v)
{
	int64_t lo = hdr_lowest_equivalent(h, v), hi = hdr_highest_equivalent(h, v);
	int64_t pow10 = 1;
	for (int i = 0; i < h->sig_digits; i++)
		pow10 *= 10;
	if (!(lo <= v && v <= hi))
		fail_msg("v=%" PRId64 ": bucket [%" PRId64 ", %" PRId64 "] misses it", v, lo, hi);
	/* the bucket is one bucket: both ends map to it */
	assert_int_equal(hdr_lowest_equivalent(h, hi), lo);
	assert_int_equal(hdr_highest_equivalent(h, lo), hi);
	uint64_t width = (uint64_t)hi - (uint64_t)lo + 1;
	/* precision: 10^-digits relative, or the lowest discernible value */
	if (width > (uint64_t)h->lowest_discernible && width > (uint64_t)(v / pow10))
		fail_msg("v=%" PRId64 ", %d digits: width %" PRIu64 " > max(%" PRId64
			 ", v/10^%d)",
			 v, h->sig_digits, width, h->lowest_discernible, h->sig_digits);
	if (v / pow10 >= h->lowest_discernible && width > (uint64_t)(v / pow10))
		fail_msg("v=%" PRId64 ": relative width %g > 1e-%d", v, (double)width / (double)v,
			 h->sig_digits);
	/* neighbours tile: no gap, no overlap */
	if (hi < INT64_MAX) {
		assert_int_equal(hdr_lowest_equivalent(h, hi + 1), hi + 1);
		assert_true(hdr_highest_equivalent(h, hi + 1) > hi);
	}
	if (lo > 0) {
		assert_int_equal(hdr_highest_equivalent(h, lo - 1), lo - 1);
		assert_true(hdr_lowest_equivalent(h, lo - 1) < lo);
	}
}

static void test_bucket_boundaries(void **state)
{
	(void)state;
	static const int64_t lows[] = {1, 3, 1000, 1024};
	static const int64_t highs[] = {TEN_S, INT64_MAX};
	uint64_t s = seed_base;
	for (int d = 1; d <= 5; d++)
		for (size_t li = 0; li < 4; li++)
			for (size_t hi = 0; hi < 2; hi++) {
				struct hdr_hist *h = mk(lows[li], highs[hi], d);
				for (int64_t v = 0; v < 3000; v++)
					check_value_bucket(h, v);
				for (int b = 1; b < 63; b++) {
					int64_t p = INT64_C(1) << b;
					check_value_bucket(h, p - 1);
					check_value_bucket(h, p);
					check_value_bucket(h, p + 1);
				}
				for (int i = 0; i < 20000; i++) /* all magnitudes */
					check_value_bucket(
					    h, (int64_t)(splitmix(&s) >> (1 + splitmix(&s) % 63)));
				check_value_bucket(h, INT64_MAX);
				check_value_bucket(h, h->highest_trackable);
				hdr_free(h);
			}
}

/* Walking bucket by bucket, every counter is used exactly once: the value ->
 * index map is a bijection onto 0..index(highest). */
static void test_buckets_tile_the_counts(void **state)
{
	(void)state;
	for (int d = 1; d <= 3; d++) {
		struct hdr_hist *h = mk(1000, 50000000, d);
		int64_t v = 0, nb = 0;
		while (v <= h->highest_trackable) {
			assert_int_equal(hdr_lowest_equivalent(h, v), v);
			assert_true(hdr_record(h, v));
			v = hdr_highest_equivalent(h, v) + 1;
			nb++;
		}
		int32_t used = 0;
		for (int32_t i = 0; i < h->counts_len; i++) {
			assert_true(h->counts[i] == 0 || h->counts[i] == 1);
			if (h->counts[i]) {
				assert_int_equal(i, used); /* no counter skipped */
				used++;
			}
		}
		assert_int_equal(used, nb);
		hdr_free(h);
	}
}

/* ---- percentiles against a sorted array ------------------------------------ */

/* p in hundredths of a percent, so the reference rank is exact integer math */
static const int64_t pct_x100[] = {0, 2500, 5000, 9000, 9900, 9990, 9999, 10000};

static void check_against_reference(enum dist dist, size_t n, int digits, uint64_t seed)
{
	int64_t *data = make_data(dist, n, seed);
	struct hdr_hist *h = mk(1, TEN_S, digits);
	double exact_sum = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(hdr_record(h, data[i]));
		exact_sum += (double)data[i];
	}
	assert_int_equal(hdr_total_count(h), n);
	qsort(data, n, sizeof(*data), cmp_i64);

	for (size_t k = 0; k < sizeof(pct_x100) / sizeof(pct_x100[0]); k++) {
		int64_t rank = (pct_x100[k] * (int64_t)n + 9999) / 10000; /* ceil */
		if (rank < 1)
			rank = 1;
		int64_t ref = data[rank - 1];
		int64_t want = pct_x100[k] == 0 ? hdr_lowest_equivalent(h, ref)
						: hdr_highest_equivalent(h, ref);
		int64_t got = hdr_value_at_percentile(h, (double)pct_x100[k] / 100.0);
		if (got != want)
			fail_msg("%s n=%zu digits=%d seed=%" PRIu64 " p=%g: got %" PRId64
				 ", want %" PRId64 " (rank %" PRId64 " value %" PRId64 ")",
				 dist_name[dist], n, digits, seed, (double)pct_x100[k] / 100.0, got,
				 want, rank, ref);
	}
	assert_int_equal(hdr_min(h), hdr_lowest_equivalent(h, data[0]));
	if (data[n - 1] > 0)
		assert_int_equal(hdr_max(h), hdr_highest_equivalent(h, data[n - 1]));
	assert_int_equal(h->max_exact, data[n - 1]);
	assert_int_equal(hdr_value_at_percentile(h, 0), hdr_min(h));

	/* the mean of bucket middles is within the precision of the exact mean */
	double mean = exact_sum / (double)n, tol = mean * pow(10, -digits) + 1.0;
	if (fabs(hdr_mean(h) - mean) > tol)
		fail_msg("%s digits=%d: mean %f vs exact %f", dist_name[dist], digits,
			 hdr_mean(h), mean);
	if (dist == CONSTANT)
		assert_true(hdr_stddev(h) == 0.0);
	free(data);
	hdr_free(h);
}

static void test_percentiles_match_sorted_reference(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 2, 3, 10, 999, 1000, 10000, 100003};
	for (int digits = 2; digits <= 3; digits++)
		for (int d = 0; d < NDIST; d++)
			for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
				check_against_reference((enum dist)d, sizes[i], digits,
							seed_base + (uint64_t)(i * 16 + d));
}

/* Exactly representable edge ranks: 99.9% of 1000 is the 999th value. */
static void test_percentile_rank_rounding(void **state)
{
	(void)state;
	struct hdr_hist *h = mk(1, 1000000, 3);
	for (int64_t v = 1; v <= 1000; v++)
		hdr_record(h, v);
	assert_int_equal(hdr_value_at_percentile(h, 99.9), 999);
	assert_int_equal(hdr_value_at_percentile(h, 50), 500);
	assert_int_equal(hdr_value_at_percentile(h, 0.1), 1);
	assert_int_equal(hdr_value_at_percentile(h, 0.10001), 2);
	assert_int_equal(hdr_value_at_percentile(h, 100), 1000);
	/* out of range arguments are clamped */
	assert_int_equal(hdr_value_at_percentile(h, 250), 1000);
	assert_int_equal(hdr_value_at_percentile(h, -3), 1);
	assert_int_equal(hdr_value_at_percentile(h, NAN), 1);
	hdr_free(h);

	h = mk(1, 1000000, 3);
	assert_int_equal(hdr_value_at_percentile(h, 50), 0); /* empty */
	assert_int_equal(hdr_min(h), 0);
	assert_int_equal(hdr_max(h), 0);
	assert_true(hdr_mean(h) == 0.0 && hdr_stddev(h) == 0.0);
	hdr_free(h);
}

/* ---- counts and merging ---------------------------------------------------- */

static void assert_same_histogram(const struct hdr_hist *a, const struct hdr_hist *b)
{
	assert_int_equal(a->counts_len, b->counts_len);
	assert_memory_equal(a->counts, b->counts, (size_t)a->counts_len * sizeof(int64_t));
	assert_int_equal(a->total_count, b->total_count);
	assert_int_equal(hdr_min(a), hdr_min(b));
	assert_int_equal(hdr_max(a), hdr_max(b));
	assert_int_equal(a->max_exact, b->max_exact);
	assert_int_equal(a->saturated, b->saturated);
	assert_int_equal(a->rejected, b->rejected);
	assert_true(hdr_mean(a) == hdr_mean(b));
	assert_true(hdr_stddev(a) == hdr_stddev(b));
	static const double ps[] = {0, 1, 25, 50, 90, 99, 99.9, 99.99, 99.999, 100};
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		assert_int_equal(hdr_value_at_percentile(a, ps[i]),
				 hdr_value_at_percentile(b, ps[i]));
}

static void test_merge_per_thread_equals_single(void **state)
{
	(void)state;
	const size_t n = 200000;
	for (int d = 0; d < NDIST; d++) {
		int64_t *data = make_data((enum dist)d, n, seed_base + 77 + (uint64_t)d);
		struct hdr_hist *all = mk(1, TEN_S, 3), *merged = mk(1, TEN_S, 3), *part[4];
		for (int t = 0; t < 4; t++)
			part[t] = mk(1, TEN_S, 3);
		for (size_t i = 0; i < n; i++) {
			hdr_record(all, data[i]);
			hdr_record(part[i % 4], data[i]);
		}
		hdr_record(part[1], -1); /* a rejected value travels too */
		hdr_record(all, -1);
		int64_t sum = 0;
		for (int t = 0; t < 4; t++) {
			sum += hdr_total_count(part[t]);
			assert_int_equal(hdr_add(merged, part[t]), 0);
		}
		assert_int_equal(sum, n);
		assert_int_equal(hdr_total_count(all), n);
		assert_same_histogram(merged, all);
		for (int t = 0; t < 4; t++)
			hdr_free(part[t]);
		hdr_free(all);
		hdr_free(merged);
		free(data);
	}
}

static void test_merge_different_layouts_conserves_counts(void **state)
{
	(void)state;
	const size_t n = 50000;
	int64_t *data = make_data(LOGUNIFORM, n, seed_base + 5);
	struct hdr_hist *src = mk(1, TEN_S, 3);
	for (size_t i = 0; i < n; i++)
		hdr_record(src, data[i]);
	hdr_record(src, 3 * TEN_S); /* saturated in src already */

	/* coarser, narrower: dst saturates above 1 s */
	struct hdr_hist *dst = mk(1000, 1000000000, 2);
	hdr_record_n(dst, 5000, 7);
	int64_t before = hdr_total_count(dst), expect_sat = 1;
	for (size_t i = 0; i < n; i++)
		if (hdr_lowest_equivalent(src, data[i]) > dst->highest_trackable)
			expect_sat++;
	int64_t lost = hdr_add(dst, src);
	assert_int_equal(lost, 0);
	assert_int_equal(hdr_total_count(dst), before + hdr_total_count(src) - lost);
	assert_int_equal(dst->saturated, expect_sat);
	assert_int_equal(dst->max_exact, 3 * TEN_S);
	assert_int_equal(hdr_max(dst), hdr_highest_equivalent(dst, dst->highest_trackable));
	int64_t cnt = 0;
	for (int32_t i = 0; i < dst->counts_len; i++)
		cnt += dst->counts[i];
	assert_int_equal(cnt, hdr_total_count(dst));

	/* finer and wider: percentiles survive within the coarser precision */
	struct hdr_hist *fine = mk(1, 100 * TEN_S, 4);
	assert_int_equal(hdr_add(fine, src), 0);
	assert_int_equal(hdr_total_count(fine), hdr_total_count(src));
	static const double ps[] = {1, 50, 90, 99, 99.9};
	for (size_t i = 0; i < 5; i++) {
		double a = (double)hdr_value_at_percentile(src, ps[i]);
		double b = (double)hdr_value_at_percentile(fine, ps[i]);
		if (fabs(a - b) > a * 1e-3 + 1)
			fail_msg("p%g: %f after merge, %f before", ps[i], b, a);
	}

	/* same layout but src wider than dst: goes the per-bucket way */
	struct hdr_hist *narrow = mk(1, 1000000, 3);
	assert_int_equal(hdr_add(narrow, src), 0);
	assert_int_equal(hdr_total_count(narrow), hdr_total_count(src));
	assert_true(narrow->saturated > 1);

	/* dst == src doubles */
	int64_t t = hdr_total_count(src);
	int64_t p99 = hdr_value_at_percentile(src, 99);
	assert_int_equal(hdr_add(src, src), 0);
	assert_int_equal(hdr_total_count(src), 2 * t);
	assert_int_equal(hdr_value_at_percentile(src, 99), p99);
	assert_int_equal(src->saturated, 2);

	assert_int_equal(hdr_add(dst, NULL), 0);
	assert_int_equal(hdr_add(NULL, src), 2 * t);
	hdr_free(narrow);
	hdr_free(fine);
	hdr_free(dst);
	hdr_free(src);
	free(data);
}

/* A counter that would overflow is reported, and totals still add up. */
static void test_merge_overflow_is_reported(void **state)
{
	(void)state;
	struct hdr_hist *a = mk(1, 1000000, 3), *b = mk(1, 1000000, 3), *c = mk(1, 1000000, 2);
	assert_true(hdr_record_n(a, 100, 100));
	assert_true(hdr_record_n(b, 5, INT64_MAX - 10));
	assert_true(hdr_record_n(b, 7, 3));
	int64_t before = hdr_total_count(a);
	int64_t lost = hdr_add(a, b);
	assert_int_equal(lost, INT64_MAX - 10);
	assert_int_equal(hdr_total_count(a), before + 3);
	assert_int_equal(hdr_min(a), 7); /* only placed values bound the range */

	assert_true(hdr_record_n(c, 1, 50));
	lost = hdr_add(c, b); /* different layout */
	assert_int_equal(lost, INT64_MAX - 10);
	assert_int_equal(hdr_total_count(c), 53);
	hdr_free(a);
	hdr_free(b);
	hdr_free(c);
}

/* ---- saturation and rejection ----------------------------------------------- */

static void test_saturation_and_rejection(void **state)
{
	(void)state;
	struct hdr_hist *h = mk(1, 1000000, 3);
	assert_false(hdr_record(h, -1));
	assert_false(hdr_record(h, INT64_MIN));
	assert_int_equal(h->rejected, 2);
	assert_false(hdr_record_n(h, -7, 3));
	assert_int_equal(h->rejected, 5);
	assert_int_equal(hdr_total_count(h), 0);

	assert_true(hdr_record(h, 2000000));
	assert_true(hdr_record_n(h, INT64_MAX, 2));
	assert_int_equal(h->saturated, 3);
	assert_int_equal(hdr_total_count(h), 3);
	assert_int_equal(h->max_exact, INT64_MAX);
	int64_t top = hdr_highest_equivalent(h, 1000000);
	assert_int_equal(hdr_max(h), top);
	assert_int_equal(hdr_value_at_percentile(h, 100), top);
	assert_int_equal(hdr_value_at_percentile(h, 0), hdr_lowest_equivalent(h, 1000000));

	assert_true(hdr_record(h, 1000000)); /* highest itself is not saturated */
	assert_int_equal(h->saturated, 3);

	/* counts: 0 is a no-op, negative is refused without a trace */
	assert_true(hdr_record_n(h, 5, 0));
	assert_false(hdr_record_n(h, 5, -1));
	assert_int_equal(hdr_total_count(h), 4);
	assert_int_equal(h->rejected, 5);
	/* a count that would overflow the total is refused and counted */
	assert_false(hdr_record_n(h, 5, INT64_MAX));
	assert_int_equal(hdr_total_count(h), 4);
	assert_int_equal(h->rejected, INT64_MAX); /* saturating */

	hdr_reset(h);
	assert_int_equal(hdr_total_count(h), 0);
	assert_int_equal(h->rejected, 0);
	assert_int_equal(h->saturated, 0);
	assert_int_equal(h->max_exact, 0);
	assert_int_equal(hdr_max(h), 0);
	for (int32_t i = 0; i < h->counts_len; i++)
		assert_int_equal(h->counts[i], 0);

	/* all zeros: max answers 0 like HdrHistogram's getMaxValue() */
	struct hdr_hist *z = mk(1000, 1000000, 2);
	hdr_record_n(z, 0, 5);
	assert_int_equal(hdr_max(z), 0);
	assert_int_equal(hdr_min(z), 0);
	assert_int_equal(hdr_value_at_percentile(z, 100), hdr_highest_equivalent(z, 0));
	hdr_free(z);
	hdr_free(h);
}

/* ---- .hgrm ------------------------------------------------------------------ */

/* Java HdrHistogram 2.1.11, outputPercentileDistribution(out, 5, 1000.0) of
 * the data in test_hgrm_matches_java_byte_for_byte. */
static const char java_golden[] =
    "       Value     Percentile TotalCount 1/(1-Percentile)\n"
    "\n"
    "       0.000 0.000000000000          2           1.00\n"
    "       1.476 0.100000000000         51           1.11\n"
    "       1.978 0.200000000000        102           1.25\n"
    "       2.483 0.300000000000        153           1.43\n"
    "       2.971 0.400000000000        203           1.67\n"
    "       3.515 0.500000000000        254           2.00\n"
    "       3.741 0.550000000000        279           2.22\n"
    "       4.005 0.600000000000        305           2.50\n"
    "       4.243 0.650000000000        330           2.86\n"
    "       4.507 0.700000000000        355           3.33\n"
    "       4.775 0.750000000000        381           4.00\n"
    "       4.887 0.775000000000        393           4.44\n"
    "       5.011 0.800000000000        407           5.00\n"
    "       5.151 0.825000000000        419           5.71\n"
    "       5.275 0.850000000000        431           6.67\n"
    "       5.391 0.875000000000        444           8.00\n"
    "       5.447 0.887500000000        450           8.89\n"
    "       5.527 0.900000000000        457          10.00\n"
    "       5.599 0.912500000000        463          11.43\n"
    "       5.655 0.925000000000        469          13.33\n"
    "       5.723 0.937500000000        476          16.00\n"
    "       5.751 0.943750000000        479          17.78\n"
    "       5.779 0.950000000000        482          20.00\n"
    "       5.807 0.956250000000        485          22.86\n"
    "       5.835 0.962500000000        488          26.67\n"
    "       5.875 0.968750000000        492          32.00\n"
    "       5.879 0.971875000000        493          35.56\n"
    "       5.903 0.975000000000        495          40.00\n"
    "       5.907 0.978125000000        496          45.71\n"
    "       5.931 0.981250000000        498          53.33\n"
    "       5.959 0.984375000000        500          64.00\n"
    "       5.959 0.985937500000        500          71.11\n"
    "       5.975 0.987500000000        501          80.00\n"
    "       5.987 0.989062500000        502          91.43\n"
    " 1000341.503 0.990625000000        503         106.67\n"
    " 1012400.127 0.992187500000        504         128.00\n"
    " 1012400.127 0.992968750000        504         142.22\n"
    " 1012400.127 0.993750000000        504         160.00\n"
    " 1024983.039 0.994531250000        505         182.86\n"
    " 1024983.039 0.995312500000        505         213.33\n"
    " 1037041.663 0.996093750000        506         256.00\n"
    " 1037041.663 0.996484375000        506         284.44\n"
    " 1037041.663 0.996875000000        506         320.00\n"
    " 1037041.663 0.997265625000        506         365.71\n"
    " 1037041.663 0.997656250000        506         426.67\n"
    " 1049624.575 0.998046875000        507         512.00\n"
    " 1049624.575 1.000000000000        507\n"
    "#[Mean    =    10108.127, StdDeviation   =   101263.282]\n"
    "#[Max     =  1049624.575, Total count    =          507]\n"
    "#[Buckets =           24, SubBuckets     =         2048]\n";

static void test_hgrm_matches_java_byte_for_byte(void **state)
{
	(void)state;
	struct hdr_hist *h = mk(1, TEN_S, 3);
	for (int64_t i = 0; i < 500; i++)
		hdr_record(h, 1000 + (i * 7919) % 5000);
	for (int64_t i = 0; i < 5; i++)
		hdr_record(h, INT64_C(1000000000) + i * 12345678);
	hdr_record_n(h, 0, 2);
	char *text = write_to_string(h, 0, 5, 1000.0, NULL);
	assert_string_equal(text, java_golden);
	free(text);
	text = write_to_string(h, 0, 0, 1000.0, NULL); /* 0 ticks: the default 5 */
	assert_string_equal(text, java_golden);
	free(text);
	hdr_free(h);
}

static void check_round_trip(const struct hdr_hist *h, int ticks, double scale)
{
	size_t len;
	char *text = write_to_string(h, 0, ticks, scale, &len);
	struct hdr_hgrm g;
	char err[256];
	int rc = parse_exact(text, len, &g, err, sizeof(err));
	if (rc)
		fail_msg("own output refused: %s", err);
	const double half = 0.0005; /* 3 decimals */

	assert_true(g.nrows >= 2);
	assert_true(g.rows[g.nrows - 1].percentile == 1.0);
	assert_true(isinf(g.rows[g.nrows - 1].inverse));
	assert_int_equal(g.rows[g.nrows - 1].total_count, hdr_total_count(h));
	/* every row: the value at its percentile (bracketed by a hair, as the
	 * file keeps the level to 12 decimals only) */
	for (size_t i = 0; i + 1 < g.nrows; i++) {
		double P = g.rows[i].percentile * 100.0;
		double lo = (double)hdr_value_at_percentile(h, P - 1e-9) / scale - half;
		double hi = (double)hdr_value_at_percentile(h, P + 1e-9) / scale + half;
		double v = g.rows[i].value;
		if (v < lo * (1 - 1e-12) || v > hi * (1 + 1e-12))
			fail_msg("row %zu (p %.12f): value %.3f outside [%.4f, %.4f]", i,
				 g.rows[i].percentile, v, lo, hi);
		/* 2 decimals, from a level that the file rounds to 12 */
		double inv = g.rows[i].inverse;
		assert_true(fabs(inv - 1.0 / (1.0 - g.rows[i].percentile)) <=
			    0.005 + 1e-12 * inv * inv + 1e-12 * inv);
	}
	static const double ps[] = {50, 90, 99, 99.9};
	for (size_t i = 0; i < 4; i++) {
		double want = (double)hdr_value_at_percentile(h, ps[i]) / scale;
		double got = hdr_hgrm_value_at(&g, ps[i]);
		/* levels: 0, 100/(2 ticks), ... within each half distance; 125
		 * ticks hit 50, 90, 99 and 99.9, 5 ticks 50 and 90, 1 tick 50 */
		if (ticks == 125 || (ticks == 5 && ps[i] <= 90) || ps[i] == 50) {
			/* a row sits exactly at this percentile */
			if (fabs(got - want) > half + 1e-12 * want)
				fail_msg("ticks %d p%g: file %.3f, histogram %.4f", ticks, ps[i], got,
					 want);
		} else {
			/* first row at or above p: not below the value at p */
			assert_true(got >= want - half - 1e-12 * want);
		}
	}
	assert_true(fabs(g.mean - hdr_mean(h) / scale) <= half + 1e-12 * g.mean);
	assert_true(fabs(g.stddev - hdr_stddev(h) / scale) <= half + 1e-12 * g.stddev);
	assert_true(fabs(g.max - (double)hdr_max(h) / scale) <= half + 1e-12 * g.max);
	assert_int_equal(g.total_count, hdr_total_count(h));
	assert_int_equal(g.buckets, h->bucket_count);
	assert_int_equal(g.sub_buckets, h->sub_bucket_count);

	/* the CSV: exact header, the same rows */
	char *csv = write_to_string(h, 1, ticks, 1.0, NULL);
	const char *hdr = "value_ns,percentile,total_count,one_over_one_minus_percentile\n";
	assert_memory_equal(csv, hdr, strlen(hdr));
	size_t rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(csv + strlen(hdr), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), rows++) {
		assert_true(rows < g.nrows);
		long long v, tc;
		double p;
		char last[32];
		assert_int_equal(sscanf(line, "%lld,%lf,%lld,%31s", &v, &p, &tc, last), 4);
		assert_true(fabs((double)v / scale - g.rows[rows].value) <= half + 1e-12 * v);
		assert_true(fabs(p - g.rows[rows].percentile) <= 1e-12);
		assert_int_equal(tc, g.rows[rows].total_count);
		if (rows + 1 == g.nrows)
			assert_string_equal(last, "inf");
		else
			assert_true(fabs(strtod(last, NULL) - g.rows[rows].inverse) <= 0.006);
	}
	assert_int_equal(rows, g.nrows);
	free(csv);
	hdr_hgrm_free(&g);
	assert_null(g.rows);
	free(text);
}

static void test_hgrm_round_trip(void **state)
{
	(void)state;
	/* an odd count keeps p * n away from whole numbers: no tie for the
	 * 12-decimal percentiles to fall on the wrong side of */
	const size_t n = 100003;
	for (int d = 0; d < NDIST; d++) {
		int64_t *data = make_data((enum dist)d, n, seed_base + 1000 + (uint64_t)d);
		for (int digits = 2; digits <= 3; digits++) {
			struct hdr_hist *h = mk(1, TEN_S, digits);
			for (size_t i = 0; i < n; i++)
				hdr_record(h, data[i]);
			check_round_trip(h, 5, 1.0);
			check_round_trip(h, 5, 1000.0);
			/* 125 ticks put rows at exactly 50, 90, 99 and 99.9 */
			check_round_trip(h, 125, 1000.0);
			check_round_trip(h, 1, 1000000.0);
			hdr_free(h);
		}
		free(data);
	}
}

static void test_hgrm_empty_and_bad_arguments(void **state)
{
	(void)state;
	struct hdr_hist *h = mk(1, TEN_S, 3);
	size_t len;
	char *text = write_to_string(h, 0, 5, 1.0, &len);
	struct hdr_hgrm g;
	char err[200];
	assert_int_equal(parse_exact(text, len, &g, err, sizeof(err)), 0);
	assert_int_equal(g.nrows, 0);
	assert_int_equal(g.total_count, 0);
	assert_true(isnan(hdr_hgrm_value_at(&g, 50)));
	hdr_hgrm_free(&g);
	free(text);
	text = write_to_string(h, 1, 5, 1.0, NULL);
	assert_string_equal(text, "value_ns,percentile,total_count,one_over_one_minus_percentile\n");
	free(text);

	FILE *f = fopen("/dev/null", "w");
	assert_non_null(f);
	assert_int_equal(hdr_write_hgrm(NULL, f, 5, 1.0), -EINVAL);
	assert_int_equal(hdr_write_hgrm(h, NULL, 5, 1.0), -EINVAL);
	assert_int_equal(hdr_write_hgrm(h, f, -1, 1.0), -EINVAL);
	assert_int_equal(hdr_write_hgrm(h, f, 5, 0.0), -EINVAL);
	assert_int_equal(hdr_write_hgrm(h, f, 5, NAN), -EINVAL);
	assert_int_equal(hdr_write_hgrm(h, f, 5, INFINITY), -EINVAL);
	assert_int_equal(hdr_write_csv(h, f, -2), -EINVAL);
	fclose(f);

	/* a stream that cannot be written: the error comes back */
	hdr_record(h, 1234);
	f = fopen("/dev/null", "r");
	assert_non_null(f);
	assert_true(hdr_write_hgrm(h, f, 5, 1.0) < 0);
	assert_true(hdr_write_csv(h, f, 5) < 0);
	fclose(f);
	f = fopen("/dev/full", "w");
	if (f) {
		assert_true(hdr_write_hgrm(h, f, 5, 1.0) < 0);
		fclose(f);
	}

	assert_int_equal(hdr_parse_hgrm("x", 1, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(hdr_parse_hgrm(NULL, 3, &g, err, sizeof(err)), -EINVAL);
	assert_true(isnan(hdr_hgrm_value_at(NULL, 50)));
	hdr_hgrm_free(NULL);
	hdr_free(h);
}

/* hdr_write_csv_rows: hdr_write_csv's rows, each after the label, no header;
 * nothing for an empty histogram; a label that would break the CSV refused. */
static void test_csv_rows_with_a_label(void **state)
{
	(void)state;
	struct hdr_hist *h = mk(1, TEN_S, 3);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(hdr_write_csv_rows(h, f, 5, "held"), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "");
	free(buf);
	for (int64_t v = 1; v <= 5000; v += 7)
		hdr_record(h, v * 13);
	char *whole = write_to_string(h, 1, 5, 1.0, NULL);
	const char *rows = strchr(whole, '\n') + 1; /* past the header */
	buf = NULL;
	f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(hdr_write_csv_rows(h, f, 5, "local"), 0);
	assert_int_equal(fclose(f), 0);
	/* line by line: "local," and the same row */
	const char *a = rows, *b = buf;
	int lines = 0;
	while (*a) {
		const char *ea = strchr(a, '\n');
		assert_non_null(ea);
		assert_memory_equal(b, "local,", 6);
		assert_memory_equal(b + 6, a, (size_t)(ea - a + 1));
		b += 6 + (ea - a + 1);
		a = ea + 1;
		lines++;
	}
	assert_string_equal(b, "");
	assert_true(lines > 10);
	free(buf);
	free(whole);
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	const char *bad[] = {NULL, "", "a,b", "a\"b", "a\nb"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(hdr_write_csv_rows(h, f, 5, bad[i]), -EINVAL);
	assert_int_equal(hdr_write_csv_rows(NULL, f, 5, "x"), -EINVAL);
	assert_int_equal(hdr_write_csv_rows(h, NULL, 5, "x"), -EINVAL);
	assert_int_equal(hdr_write_csv_rows(h, f, -1, "x"), -EINVAL);
	fclose(f);
	f = fopen("/dev/null", "r"); /* cannot be written: the error comes back */
	assert_non_null(f);
	assert_true(hdr_write_csv_rows(h, f, 5, "x") < 0);
	fclose(f);
	hdr_free(h);
}

/* The program's locale must not leak into the file format. */
static void test_hgrm_ignores_program_locale(void **state)
{
	(void)state;
	static const char *const comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
					    "ru_RU.UTF-8"};
	const char *got = NULL;
	for (size_t i = 0; i < 4 && !got; i++)
		got = setlocale(LC_NUMERIC, comma[i]);
	if (!got)
		skip(); /* no locale with a decimal comma installed */
	struct hdr_hist *h = mk(1, TEN_S, 3);
	for (int64_t i = 0; i < 500; i++)
		hdr_record(h, 1000 + (i * 7919) % 5000);
	for (int64_t i = 0; i < 5; i++)
		hdr_record(h, INT64_C(1000000000) + i * 12345678);
	hdr_record_n(h, 0, 2);
	size_t len;
	char *text = write_to_string(h, 0, 5, 1000.0, &len);
	struct hdr_hgrm g;
	int rc = parse_exact(text, len, &g, NULL, 0);
	setlocale(LC_NUMERIC, "C");
	assert_string_equal(text, java_golden);
	assert_int_equal(rc, 0);
	hdr_hgrm_free(&g);
	free(text);
	hdr_free(h);
}

static void test_parse_accepts_other_writers(void **state)
{
	(void)state;
	/* HdrHistogram_c's classic spacing, 6-decimal percentiles, "inf" */
	static const char c_style[] =
	    "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"
	    "       1.000     0.000000            1         1.00\n"
	    "       5.000     0.500000            5         2.00\n"
	    "      10.000     1.000000           10          inf\n"
	    "#[Mean    =        5.500, StdDeviation   =        2.872]\n"
	    "#[Max     =       10.000, Total count    =           10]\n"
	    "#[Buckets =           21, SubBuckets     =         2048]\n";
	struct hdr_hgrm g;
	char err[200];
	int rc = parse_exact(c_style, strlen(c_style), &g, err, sizeof(err));
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(g.nrows, 3);
	assert_true(g.rows[1].value == 5.0 && g.rows[1].percentile == 0.5);
	assert_true(isinf(g.rows[2].inverse));
	assert_true(hdr_hgrm_value_at(&g, 50) == 5.0);
	assert_true(hdr_hgrm_value_at(&g, 50.1) == 10.0);
	assert_true(hdr_hgrm_value_at(&g, 0) == 1.0);
	assert_true(hdr_hgrm_value_at(&g, 1000) == 10.0);
	assert_true(g.mean == 5.5 && g.max == 10.0 && g.total_count == 10);
	assert_int_equal(g.buckets, 21);
	hdr_hgrm_free(&g);

	/* CRLF line ends, no final newline, Java's golden */
	char crlf[sizeof(java_golden) * 2];
	size_t n = 0;
	for (const char *s = java_golden; *s; s++) {
		if (*s == '\n')
			crlf[n++] = '\r';
		crlf[n++] = *s;
	}
	n -= 2; /* drop the last "\r\n" */
	rc = parse_exact(crlf, n, &g, err, sizeof(err));
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(g.nrows, 47);
	assert_true(g.rows[46].percentile == 1.0 && g.rows[46].total_count == 507);
	assert_true(g.max == 1049624.575 && g.sub_buckets == 2048);
	assert_true(hdr_hgrm_value_at(&g, 90) == 5.527);
	hdr_hgrm_free(&g);
}

/* ---- malformed input ------------------------------------------------------------ */

#define HEAD "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
#define ROW1 "       1.000 0.000000000000          1           1.00\n"
#define ROW2 "       2.000 0.500000000000          2           2.00\n"
#define LAST "       3.000 1.000000000000          3\n"
#define FOOT                                                                                       \
	"#[Mean    =        2.000, StdDeviation   =        0.816]\n"                                \
	"#[Max     =        3.000, Total count    =            3]\n"                                \
	"#[Buckets =           24, SubBuckets     =         2048]\n"

static void test_parse_refuses_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *name, *text, *msg; /* msg: a part of the message */
	} bad[] = {
	    {"empty", "", "line 1: empty"},
	    {"blank lines only", "\n\n  \n", "header"},
	    {"no header", ROW1 ROW2 LAST FOOT, "line 1: expected the header"},
	    {"header only", HEAD, "ends where a row or the footer"},
	    {"truncated row", HEAD ROW1 "       2.000 0.5000", "line 4: a row has 3 or 4 columns"},
	    {"rows, no footer", HEAD ROW1 ROW2 LAST, "line 6: input ends"},
	    {"half a footer", HEAD ROW1 ROW2 LAST "#[Mean    =        2.000, StdDeviation   =        0.816]\n",
	     "#[Max"},
	    {"footer out of order",
	     HEAD ROW1 ROW2 LAST "#[Max     =        3.000, Total count    =            3]\n",
	     "line 6: expected a row or the footer"},
	    {"word for a value", HEAD "       abc 0.000000000000          1           1.00\n" LAST FOOT,
	     "line 3: Value is not a number"},
	    {"nan value", HEAD "       nan 0.000000000000          1           1.00\n" LAST FOOT,
	     "not a number"},
	    {"nan percentile", HEAD "       1.000 NaN          1           1.00\n" LAST FOOT,
	     "Percentile is not a number"},
	    {"nan inverse", HEAD "       1.000 0.000000000000          1           nan\n" LAST FOOT,
	     "1/(1-Percentile) is not a number"},
	    {"exponent", HEAD "       1e3 0.000000000000          1           1.00\n" LAST FOOT,
	     "not a number"},
	    {"hex float", HEAD "       0x10 0.000000000000          1           1.00\n" LAST FOOT,
	     "not a number"},
	    {"percentile decreasing", HEAD ROW2 ROW1 LAST FOOT, "line 4: Percentile decreases"},
	    {"value decreasing",
	     HEAD ROW1 "       0.500 0.500000000000          2           2.00\n" LAST FOOT,
	     "Value decreases"},
	    {"count decreasing",
	     HEAD ROW2 "       2.000 0.600000000000          1           2.50\n" LAST FOOT,
	     "TotalCount decreases"},
	    {"percentile above 1", HEAD "       1.000 1.500000000000          1\n" FOOT, "above 1"},
	    {"negative value", HEAD "      -1.000 0.000000000000          1           1.00\n" LAST FOOT,
	     "negative"},
	    {"fractional count", HEAD "       1.000 0.000000000000        1.5           1.00\n" LAST FOOT,
	     "whole number"},
	    {"count overflow",
	     HEAD "       1.000 0.000000000000 99999999999999999999           1.00\n" LAST FOOT,
	     "out of range"},
	    {"missing inverse below 1", HEAD "       1.000 0.500000000000          1\n" LAST FOOT,
	     "missing below percentile 1"},
	    {"inf inverse below 1", HEAD "       1.000 0.500000000000          1   inf\n" LAST FOOT,
	     "infinite below percentile 1"},
	    {"too many columns", HEAD "       1.000 0.000000000000          1   1.00  7\n" LAST FOOT,
	     "3 or 4 columns"},
	    {"total mismatch",
	     HEAD ROW1 ROW2 LAST "#[Mean    =        2.000, StdDeviation   =        0.816]\n"
				 "#[Max     =        3.000, Total count    =            4]\n"
				 "#[Buckets =           24, SubBuckets     =         2048]\n",
	     "line 7: Total count 4 differs"},
	    {"buckets zero",
	     HEAD ROW1 ROW2 LAST "#[Mean    =        2.000, StdDeviation   =        0.816]\n"
				 "#[Max     =        3.000, Total count    =            3]\n"
				 "#[Buckets =            0, SubBuckets     =         2048]\n",
	     "Buckets out of range"},
	    {"footer without ]",
	     HEAD ROW1 ROW2 LAST "#[Mean    =        2.000, StdDeviation   =        0.816\n", "footer"},
	    {"text after footer", HEAD ROW1 ROW2 LAST FOOT "more\n", "line 9: unexpected text"},
	    {"nul byte", HEAD ROW1 "   2.0\0 0.5 2 2.00\n" LAST FOOT, "line 4: NUL byte"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hdr_hgrm g;
		char err[256];
		/* sizeof, not strlen: "nul byte" has a NUL inside */
		size_t len = strlen(bad[i].text);
		if (strcmp(bad[i].name, "nul byte") == 0)
			len = sizeof(HEAD ROW1 "   2.0\0 0.5 2 2.00\n" LAST FOOT) - 1;
		memset(&g, 0x55, sizeof(g));
		int rc = parse_exact(bad[i].text, len, &g, err, sizeof(err));
		if (rc != -EINVAL)
			fail_msg("%s: rc %d, want -EINVAL", bad[i].name, rc);
		if (strncmp(err, "line ", 5) != 0 || !strstr(err, bad[i].msg))
			fail_msg("%s: message \"%s\" lacks \"%s\"", bad[i].name, err, bad[i].msg);
		assert_null(g.rows);
		assert_int_equal(g.nrows, 0);
	}

	/* the good base of the cases above parses */
	static const char good[] = HEAD ROW1 ROW2 LAST FOOT;
	struct hdr_hgrm g;
	char err[256];
	assert_int_equal(parse_exact(good, strlen(good), &g, err, sizeof(err)), 0);
	assert_int_equal(g.nrows, 3);
	hdr_hgrm_free(&g);

	/* absurdly long lines: at the limit, over it, and a megabyte of digits */
	size_t big = 1 << 20;
	char *s = malloc(big + 200);
	assert_non_null(s);
	memset(s, ' ', HDR_HGRM_MAX_LINE);
	memcpy(s, "Value Percentile TotalCount 1/(1-Percentile)", 44);
	s[HDR_HGRM_MAX_LINE] = '\n';
	assert_int_equal(parse_exact(s, HDR_HGRM_MAX_LINE + 1, &g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ends where")); /* the line itself was fine */
	s[HDR_HGRM_MAX_LINE] = ' ';
	s[HDR_HGRM_MAX_LINE + 1] = '\n';
	assert_int_equal(parse_exact(s, HDR_HGRM_MAX_LINE + 2, &g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1: line longer than"));
	memcpy(s, HEAD, strlen(HEAD));
	memset(s + strlen(HEAD), '7', big);
	assert_int_equal(parse_exact(s, strlen(HEAD) + big, &g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3: line longer than"));
	/* 400 digits fit a line but not a double */
	size_t o = strlen(HEAD);
	memset(s + o, '9', 400);
	o += 400;
	memcpy(s + o, " 0.0 1 1.00\n", 12);
	o += 12;
	assert_int_equal(parse_exact(s, o, &g, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range"));
	free(s);

	/* a short error buffer is still terminated; none at all is fine too */
	char tiny[8];
	assert_int_equal(parse_exact("junk", 4, &g, tiny, sizeof(tiny)), -EINVAL);
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
	assert_int_equal(parse_exact("junk", 4, &g, NULL, 0), -EINVAL);
}

/* Random bytes and random mutations of a valid file: never a crash, always
 * 0 or -EINVAL, and whatever is accepted obeys the documented checks. */
static void check_fuzz_result(int rc, const struct hdr_hgrm *g, const char *err)
{
	if (rc == 0) {
		for (size_t i = 0; i < g->nrows; i++) {
			const struct hdr_hgrm_row *r = &g->rows[i];
			assert_true(r->value >= 0 && isfinite(r->value));
			assert_true(r->percentile >= 0 && r->percentile <= 1);
			assert_true(r->total_count >= 0);
			assert_false(isnan(r->inverse));
			if (i) {
				assert_true(r->percentile >= g->rows[i - 1].percentile);
				assert_true(r->total_count >= g->rows[i - 1].total_count);
			}
		}
		assert_true(g->nrows ? g->rows[g->nrows - 1].total_count == g->total_count
				     : g->total_count == 0);
	} else {
		assert_int_equal(rc, -EINVAL);
		assert_true(strncmp(err, "line ", 5) == 0);
		assert_null(g->rows);
	}
}

static void test_parse_fuzz(void **state)
{
	(void)state;
	uint64_t s = seed_base + 99;
	static const char alphabet[] = "0123456789.  \n#[]=,-+eEinfa";
	char *buf = malloc(8192);
	assert_non_null(buf);
	struct hdr_hgrm g;
	char err[128];

	for (int k = 0; k < 600; k++) {
		size_t len = splitmix(&s) % 2048;
		bool text = k & 1; /* half raw bytes, half hgrm-ish characters */
		for (size_t i = 0; i < len; i++)
			buf[i] = text ? alphabet[splitmix(&s) % (sizeof(alphabet) - 1)]
				      : (char)splitmix(&s);
		if (k % 3 == 0 && len > 60) /* a valid header, garbage after it */
			memcpy(buf, HEAD, strlen(HEAD));
		int rc = parse_exact(buf, len, &g, err, sizeof(err));
		check_fuzz_result(rc, &g, err);
		hdr_hgrm_free(&g);
	}

	size_t base_len = strlen(java_golden);
	int accepted = 0;
	for (int k = 0; k < 3000; k++) {
		size_t len = base_len;
		memcpy(buf, java_golden, base_len);
		int edits = 1 + (int)(splitmix(&s) % 4);
		for (int e = 0; e < edits && len > 0; e++) {
			size_t at = splitmix(&s) % len, span = 1 + splitmix(&s) % 40;
			if (span > len - at)
				span = len - at;
			switch (splitmix(&s) % 6) {
			case 0: /* flip a byte */
				buf[at] = (char)splitmix(&s);
				break;
			case 1: /* a character from the file's alphabet */
				buf[at] = alphabet[splitmix(&s) % (sizeof(alphabet) - 1)];
				break;
			case 2: /* delete a span */
				memmove(buf + at, buf + at + span, len - at - span);
				len -= span;
				break;
			case 3: /* duplicate a span */
				if (len + span < 8192) {
					memmove(buf + at + span, buf + at, len - at);
					len += span;
				}
				break;
			case 4: /* truncate */
				len = at;
				break;
			default: /* swap two lines' worth of bytes */
				if (at + 2 * span < len)
					for (size_t i = 0; i < span; i++) {
						char t = buf[at + i];
						buf[at + i] = buf[at + span + i];
						buf[at + span + i] = t;
					}
				break;
			}
		}
		int rc = parse_exact(buf, len, &g, err, sizeof(err));
		check_fuzz_result(rc, &g, err);
		accepted += rc == 0;
		hdr_hgrm_free(&g);
	}
	/* some mutations (a digit changed inside a value) stay valid */
	assert_true(accepted > 0);
	free(buf);
}

/* ---- no allocation on the recording path ------------------------------------- */

static void test_recording_allocates_nothing(void **state)
{
	(void)state;
	if (UNDER_SANITIZER)
		skip(); /* the sanitizer owns malloc */
	struct hdr_hist *h = mk(1, TEN_S, 3), *m = mk(1, TEN_S, 3), *m2 = mk(1000, TEN_S, 2);
	uint64_t s = seed_base;

	/* the interposition works: a malloc while counting is seen */
	allocations = 0;
	counting = 1;
	void *volatile p = malloc(32);
	counting = 0;
	free(p);
	assert_int_equal(allocations, 1);

	allocations = 0;
	counting = 1;
	for (int i = 0; i < 100000; i++) {
		hdr_record(h, draw(LOGUNIFORM, &s));
		hdr_record_n(h, draw(OUTLIERS, &s), 3);
	}
	hdr_record(h, -1);
	hdr_record(h, 2 * TEN_S);
	volatile int64_t sink = hdr_value_at_percentile(h, 99.9) + hdr_min(h) + hdr_max(h) +
				hdr_add(m, h) + hdr_add(m2, h) + hdr_lowest_equivalent(h, 5) +
				hdr_highest_equivalent(h, 5);
	volatile double dsink = hdr_mean(h) + hdr_stddev(h);
	hdr_reset(m);
	counting = 0;
	(void)sink;
	(void)dsink;
	assert_int_equal(allocations, 0);
	assert_int_equal(hdr_total_count(h), 100000 + 3 * 100000 + 1);
	hdr_free(h);
	hdr_free(m);
	hdr_free(m2);
}

int main(void)
{
	const char *env = getenv("HDR_TEST_SEED");
	if (env && *env)
		seed_base = strtoull(env, NULL, 0);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_rejects_bad_parameters),
	    cmocka_unit_test(test_layout_matches_hdrhistogram),
	    cmocka_unit_test(test_bucket_boundaries),
	    cmocka_unit_test(test_buckets_tile_the_counts),
	    cmocka_unit_test(test_percentiles_match_sorted_reference),
	    cmocka_unit_test(test_percentile_rank_rounding),
	    cmocka_unit_test(test_merge_per_thread_equals_single),
	    cmocka_unit_test(test_merge_different_layouts_conserves_counts),
	    cmocka_unit_test(test_merge_overflow_is_reported),
	    cmocka_unit_test(test_saturation_and_rejection),
	    cmocka_unit_test(test_hgrm_matches_java_byte_for_byte),
	    cmocka_unit_test(test_hgrm_round_trip),
	    cmocka_unit_test(test_hgrm_empty_and_bad_arguments),
	    cmocka_unit_test(test_csv_rows_with_a_label),
	    cmocka_unit_test(test_hgrm_ignores_program_locale),
	    cmocka_unit_test(test_parse_accepts_other_writers),
	    cmocka_unit_test(test_parse_refuses_malformed),
	    cmocka_unit_test(test_parse_fuzz),
	    cmocka_unit_test(test_recording_allocates_nothing),
	};
	return cmocka_run_group_tests_name("hdr", tests, NULL, NULL);
}
