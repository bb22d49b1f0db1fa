/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hgrm.h - read a .hgrm percentile file back: the text that
 * hdr_write_hgrm() (hdr.h) writes, or that HdrHistogram (Java) and
 * HdrHistogram_c write, parsed into its rows and footer.
 *
 * Only the tests (harness/tests/test_hdr.c, test_bench.c) and the fuzzer
 * (harness/fuzz/fuzz_hgrm.c) read .hgrm files; numaring-bench only writes
 * them. So the reader lives apart from the histogram (as HdrHistogram_c
 * keeps its log I/O in hdr_histogram_log.c) and is not linked into
 * numaring-bench: `make test-harness` fails if its symbols appear there.
 *
 * Needs nothing of hdr.c: a parsed file is plain rows, not a histogram.
 *
 * Thread rules: the functions keep no state between calls; each call uses
 * only what it is handed, so calls on different struct hdr_hgrm run
 * concurrently. Never prints, exits or aborts; errors are negative errno
 * values.
 */
#ifndef HDR_HGRM_H
#define HDR_HGRM_H

#include <stddef.h>
#include <stdint.h>

/*
 * One row of a parsed .hgrm file, its numbers as written (Value is in the
 * file's unit: microseconds for numaring-bench's latency.hgrm). inverse is
 * INFINITY where the column was absent or "inf"/"Infinity" (only allowed at
 * percentile 1.0).
 */
struct hdr_hgrm_row {
	double value;
	double percentile; /* fraction, 0..1 */
	int64_t total_count;
	double inverse;
};

/* A parsed .hgrm file: rows as written, and the footer. */
struct hdr_hgrm {
	struct hdr_hgrm_row *rows;
	size_t nrows;
	double mean, stddev, max;
	int64_t total_count;
	int buckets, sub_buckets;
};

/* Lines longer than this (without the newline) are refused by the parser. */
#define HDR_HGRM_MAX_LINE 512

/*
 * Parse the text of a .hgrm file written by hdr_write_hgrm() or by
 * HdrHistogram (Java's classic format, or HdrHistogram_c's, whose header is
 * spaced differently and whose last row ends in "inf"). text need not be
 * NUL-terminated; exactly len bytes are read, never more. text == NULL is
 * refused as len == 0 is ("empty input"; "no text" when len > 0).
 *
 * Accepted: optional blank lines, the header line, rows of 3 or 4 numbers
 * (plain decimals: no exponent, no hex, no nan), the three footer lines in
 * order, trailing blank lines; '\r' before '\n' is ignored. Checked:
 * percentile in [0, 1] and values, percentiles and total counts
 * non-decreasing; the 4th column only omitted (or "inf") at percentile 1.0;
 * footer numbers finite and >= 0; the last row's TotalCount equal to the
 * footer's Total count (no rows only when that is 0).
 *
 * Returns 0 and fills *out (free with hdr_hgrm_free()); -EINVAL for
 * malformed input, with "line N: what is wrong" written into err (when err
 * is not NULL and errlen > 0; always NUL-terminated, printable ASCII only)
 * and *out zeroed; -EINVAL for out == NULL; -ENOMEM (err says "out of
 * memory"). Never crashes and never reads outside text[0..len).
 * Thread-safe: numbers are read in a "C" locale set for the calling thread
 * during the call only, whatever the program's locale is.
 */
int hdr_parse_hgrm(const char *text, size_t len, struct hdr_hgrm *out, char *err, size_t errlen);

/*
 * Free the rows of a file parsed by hdr_parse_hgrm() and zero *g, so that a
 * second call is harmless. NULL is a no-op.
 */
void hdr_hgrm_free(struct hdr_hgrm *g);

/*
 * Value of the first row whose percentile >= percentile / 100 (within the
 * 12 decimals the file holds), or of the last row when none is; NaN when g
 * is NULL or has no rows. percentile is clamped to 0..100 (NaN as 0).
 * Reads g only; O(nrows).
 */
double hdr_hgrm_value_at(const struct hdr_hgrm *g, double percentile);

#endif /* HDR_HGRM_H */
