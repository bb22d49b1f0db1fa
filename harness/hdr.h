/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hdr.h - a log-linear ("HDR") latency histogram, written for the harness
 * because Debian ships no C HdrHistogram. Same bucket layout, percentile
 * definition and .hgrm text format as HdrHistogram (Gil Tene's), so its
 * output goes straight into HistogramLogProcessor, hdr-plot or the online
 * plotter, and numbers agree with what the Java library would report.
 *
 * Values are int64_t nanoseconds (any integer unit works; only the .hgrm
 * writer's value_scale assumes nothing about it).
 *
 * Thread rules: a histogram is plain memory. Recording is not thread-safe:
 * give each thread its own histogram and hdr_add() them together at the
 * end. Functions taking a const histogram only read it and may run
 * concurrently with each other, never with a writer on the same histogram.
 *
 * The library never prints (except into the FILE it is handed), never exits
 * and never aborts. Errors are negative errno values.
 *
 * This header writes .hgrm files; reading one back (tests, fuzzer) is
 * hgrm.h's, which numaring-bench does not link.
 *
 * Layout: see the comment at the top of hdr.c for the bucket math and a
 * worked example.
 */
#ifndef HDR_HDR_H
#define HDR_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The histogram. Exposed (as HdrHistogram_c does) so that callers can read
 * the counters and the layout; treat every field as read-only and change a
 * histogram only through the functions below.
 */
struct hdr_hist {
	/* parameters, as given to hdr_init() */
	int64_t lowest_discernible;
	int64_t highest_trackable;
	int sig_digits;

	/* layout derived from them (see hdr.c) */
	int unit_magnitude;                  /* floor(log2(lowest_discernible)) */
	int sub_bucket_half_count_magnitude; /* log2(sub_bucket_half_count) */
	int32_t sub_bucket_count;            /* 2^ceil(log2(2 * 10^sig_digits)) */
	int32_t sub_bucket_half_count;
	int64_t sub_bucket_mask;             /* (sub_bucket_count - 1) << unit_magnitude */
	int32_t bucket_count;                /* buckets needed to reach highest_trackable */
	int32_t counts_len;                  /* (bucket_count + 1) * sub_bucket_half_count */

	/* state */
	int64_t total_count;
	int64_t min_value;  /* smallest value placed; INT64_MAX when empty */
	int64_t max_value;  /* largest value placed (saturated ones count as
	                     * highest_trackable); 0 when empty */
	int64_t max_exact;  /* largest value handed to hdr_record*(), before any
	                     * saturation; 0 when empty */
	int64_t rejected;   /* values refused: negative, or (hdr_record_n) a
	                     * count that would overflow total_count */
	int64_t saturated;  /* values above highest_trackable, recorded as
	                     * highest_trackable (see hdr_add for merges) */
	int64_t counts[];   /* counts_len counters, allocated with the struct */
};

/*
 * Create a histogram that tells apart values `lowest` apart from each other
 * (lowest >= 1; values below it still count, at that resolution), tracks
 * values up to `highest` (>= 2 * lowest) and keeps `sig_digits` (1..5)
 * significant decimal digits: a value v >= lowest * 10^sig_digits lies in a
 * bucket no wider than v / 10^sig_digits.
 *
 * The only allocation of the histogram's life happens here; for 1 ns .. 10 s
 * at 3 digits the counts take (24 + 1) * 1024 * 8 bytes = 200 KiB, at 2
 * digits 28 KiB.
 *
 * Returns 0 and sets *out; -EINVAL for a bad parameter or out == NULL
 * (*out untouched); -ENOMEM.
 */
int hdr_init(int64_t lowest, int64_t highest, int sig_digits, struct hdr_hist **out);

/* Release a histogram from hdr_init(). NULL is a no-op. */
void hdr_free(struct hdr_hist *h);

/* Forget every recorded value and zero all counters; keeps the layout. */
void hdr_reset(struct hdr_hist *h);

/*
 * Record one value. O(1): no allocation, no lock, no system call; h must be
 * a histogram from hdr_init() (not checked: this is the hot path).
 * Not thread-safe (one histogram per thread, hdr_add() at the end).
 * Returns false for value < 0 (counted in h->rejected, nothing recorded).
 * value > highest_trackable is recorded as highest_trackable (so it stays in
 * the percentiles, in the top bucket) and counted in h->saturated;
 * h->max_exact keeps the real value. Returns true when recorded.
 */
bool hdr_record(struct hdr_hist *h, int64_t value);

/*
 * Record `count` occurrences of `value`; same rules as hdr_record().
 * count == 0 records nothing and returns true. count < 0 returns false and
 * changes nothing. A count that would overflow total_count is refused
 * (false, added to h->rejected).
 */
bool hdr_record_n(struct hdr_hist *h, int64_t value, int64_t count);

/* Number of values recorded (saturated ones included, rejected ones not). */
int64_t hdr_total_count(const struct hdr_hist *h);

/* Lowest equivalent value of the smallest value recorded; 0 when empty. */
int64_t hdr_min(const struct hdr_hist *h);

/*
 * Highest equivalent value of the largest value recorded (as HdrHistogram's
 * getMaxValue(): an upper bound of the real maximum, within the bucket);
 * 0 when empty. The exact maximum is h->max_exact.
 */
int64_t hdr_max(const struct hdr_hist *h);

/*
 * Mean and population standard deviation, each value taken as the middle of
 * its bucket (HdrHistogram's medianEquivalentValue). 0.0 when empty.
 */
double hdr_mean(const struct hdr_hist *h);
double hdr_stddev(const struct hdr_hist *h);

/*
 * Value at `percentile` (0..100; below 0 or NaN is taken as 0, above 100 as
 * 100), as HdrHistogram defines it: with n values recorded, rank =
 * ceil(percentile / 100 * n), at least 1; the answer is the highest
 * equivalent value of the bucket where the cumulative count first reaches
 * rank, except that percentile 0 answers the lowest equivalent value (so
 * p=0 equals hdr_min()). The percentile is read as a decimal with up to
 * about 15 significant digits: 99.9 of 1000 values is rank 999, not 1000.
 * 0 when empty. O(counts_len).
 */
int64_t hdr_value_at_percentile(const struct hdr_hist *h, double percentile);

/*
 * The smallest and the largest value that share v's bucket (so that
 * hdr_lowest_equivalent(h, v) <= v <= hdr_highest_equivalent(h, v)).
 * Defined for every v >= 0, beyond highest_trackable too; v < 0 is taken as 0.
 * h must not be NULL.
 */
int64_t hdr_lowest_equivalent(const struct hdr_hist *h, int64_t v);
int64_t hdr_highest_equivalent(const struct hdr_hist *h, int64_t v);

/*
 * Merge src into dst. Same layout (same lowest_discernible's magnitude and
 * sig_digits, src->highest_trackable <= dst's): counters are added index by
 * index, so the result is exactly what recording all of src's values into
 * dst would give. Different layouts: each of src's buckets is recorded into
 * dst at its lowest equivalent value (as HdrHistogram's add() does), which
 * loses what the coarser of the two layouts cannot tell apart; buckets above
 * dst->highest_trackable saturate.
 *
 * dst->rejected and dst->saturated gain src's; values newly saturated in dst
 * are added too (those of src's top bucket that src already counted as
 * saturated are not counted twice). dst->max_exact becomes the larger one.
 * dst == src doubles every count.
 *
 * Returns the number of counts that could not be placed because a counter
 * of dst would overflow int64_t: 0 in any realistic use. Count conservation
 * is exact: total(dst after) == total(dst before) + total(src) - returned.
 * src == NULL returns 0; dst == NULL returns src's total.
 * O(src->counts_len), no allocation.
 */
int64_t hdr_add(struct hdr_hist *dst, const struct hdr_hist *src);

/*
 * Write the percentile distribution in HdrHistogram's .hgrm text format
 * (what Java's outputPercentileDistribution() prints):
 *
 *            Value     Percentile TotalCount 1/(1-Percentile)
 *     <blank line>
 *           0.037 0.000000000000          1           1.00
 *           ...
 *     5003804.671 1.000000000000       1001
 *     #[Mean    =     5015.211, StdDeviation   =   158009.285]
 *     #[Max     =  5003804.671, Total count    =         1001]
 *     #[Buckets =           24, SubBuckets     =         2048]
 *
 * Rows come from HdrHistogram's percentile iterator: ticks_per_half_distance
 * equal steps in each half of the remaining distance to 100% (0, 10, ..., 50,
 * 55, ..., 75, 77.5, ...), one row each time the cumulative count reaches
 * the next step, then a final row at percentile 1.0 which, as in Java, has no
 * 1/(1-Percentile) column. Value is the highest equivalent value of the row's
 * bucket divided by value_scale (1000.0: ns written as us), with 3 decimals
 * (Java uses sig_digits decimals; the readers do not care); Mean, StdDeviation
 * and Max are divided by value_scale too. An empty histogram writes the
 * header and footer only.
 *
 * ticks_per_half_distance: 0 means 5 (HdrHistogram's usual). Numbers are
 * written in the "C" locale whatever the program's locale is, and rounded
 * as Java rounds them, so a file is byte-identical to Java's for the same
 * data at 3 significant digits. The stream is flushed before returning.
 * Returns 0; -EINVAL (h or out NULL, ticks < 0, value_scale not > 0 or not
 * finite); -ENOMEM (no "C" locale object); -EIO or the stream's errno when a
 * write fails. Allocates a locale object per call; never call it while
 * recording into h.
 */
int hdr_write_hgrm(const struct hdr_hist *h, FILE *out, int ticks_per_half_distance,
		   double value_scale);

/*
 * The same rows as CSV, values unscaled (integer nanoseconds):
 *     value_ns,percentile,total_count,one_over_one_minus_percentile
 *     37,0.000000000000,1,1.00
 *     ...
 *     5003804671,1.000000000000,1001,inf
 * The last column of the final row (percentile 1.0) is the word "inf"
 * (which strtod, Python's float() and pandas read as infinity). No footer.
 * Same arguments and returns as hdr_write_hgrm().
 */
int hdr_write_csv(const struct hdr_hist *h, FILE *out, int ticks_per_half_distance);

/*
 * The rows of hdr_write_csv() alone, with no header, each one starting with
 * the field `label` (a word with no comma, quote or line break), so that the
 * distributions of several histograms share one file:
 *     local,37,0.000000000000,1,1.00
 * The caller writes the header ("label-name,value_ns,percentile,..."). An
 * empty histogram writes nothing. Same returns as hdr_write_csv(), and
 * -EINVAL for a NULL, empty or unsafe label.
 */
int hdr_write_csv_rows(const struct hdr_hist *h, FILE *out, int ticks_per_half_distance,
		       const char *label);

#endif /* HDR_HDR_H */
