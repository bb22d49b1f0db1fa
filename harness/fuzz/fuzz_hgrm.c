/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_hgrm.c - libFuzzer target for hdr_parse_hgrm (harness/hgrm.h).
 *
 * Two kinds of input, told apart by the first byte:
 *
 *   anything else  the bytes are a .hgrm text, handed over with their exact
 *                  length and no terminating NUL (libFuzzer's buffer is
 *                  exactly that size, so ASan reports any read past it).
 *   0x01           the rest is a list of values (LEB128 varints) and a
 *                  ticks byte: they are recorded into a histogram, written
 *                  with hdr_write_hgrm and the text is parsed back (the
 *                  writer and the parser must agree).
 *
 * Findings (crash / abort):
 *   - any sanitizer report;
 *   - a return other than 0, -EINVAL (-ENOMEM is tolerated);
 *   - on refusal: *out not zeroed, or err not NUL-terminated in errlen;
 *   - when accepted: a percentile outside [0, 1]; rows decreasing in
 *     percentile, value or total count; the last row's total count not the
 *     footer's; a non-finite value; hdr_hgrm_value_at not monotone in p, or
 *     returning something that is no row's value;
 *   - for 0x01 inputs: the written text refused, or its total count,
 *     buckets, sub-buckets or row count disagreeing with the histogram.
 */
#define _GNU_SOURCE
#include "hdr.h"
#include "hgrm.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *g_data;
static size_t g_size;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_hgrm: %s; input (%zu bytes): \"", what, g_size);
	for (size_t i = 0; i < g_size && i < 400; i++)
		fprintf(stderr, (g_data[i] >= 0x20 && g_data[i] < 0x7f) ? "%c" : "\\x%02x",
			g_data[i]);
	fprintf(stderr, "%s\"\n", g_size > 400 ? "..." : "");
	abort();
}

/* Is v one of the rows' values? (rows are checked non-decreasing in value
 * first, so a binary search will do) */
static bool is_row_value(const struct hdr_hgrm *g, double v)
{
	size_t lo = 0, hi = g->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->rows[mid].value < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nrows && g->rows[lo].value == v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void check_accepted(const struct hdr_hgrm *g)
{
	if (g->nrows && !g->rows)
		fail("rows NULL with nrows > 0");
	for (size_t i = 0; i < g->nrows; i++) {
		const struct hdr_hgrm_row *r = &g->rows[i];
		if (!(r->percentile >= 0.0 && r->percentile <= 1.0))
			fail("a percentile outside [0, 1]");
		if (!isfinite(r->value) || r->value < 0.0)
			fail("a value not finite or negative");
		if (r->total_count < 0)
			fail("a negative total count");
		if (!(r->inverse >= 1.0))
			fail("1/(1-Percentile) below 1 or NaN");
		if (isinf(r->inverse) && r->percentile != 1.0)
			fail("infinite 1/(1-Percentile) below percentile 1");
		if (i) {
			const struct hdr_hgrm_row *p = &g->rows[i - 1];
			if (r->percentile < p->percentile)
				fail("rows decrease in percentile");
			if (r->value < p->value)
				fail("rows decrease in value");
			if (r->total_count < p->total_count)
				fail("rows decrease in total count");
		}
	}
	if (g->nrows ? g->rows[g->nrows - 1].total_count != g->total_count : g->total_count != 0)
		fail("footer total count differs from the last row's");
	if (!(g->mean >= 0 && g->stddev >= 0 && g->max >= 0) || !isfinite(g->mean) ||
	    !isfinite(g->stddev) || !isfinite(g->max))
		fail("footer numbers not finite and >= 0");
	if (g->buckets < 1 || g->sub_buckets < 1)
		fail("buckets / sub-buckets below 1");

	if (g->nrows == 0) {
		if (!isnan(hdr_hgrm_value_at(g, 50.0)))
			fail("value_at of a file without rows is not NaN");
		return;
	}
	/* monotone in p: a grid, every row's own percentile and its neighbours,
	 * and the out-of-range / NaN arguments (clamped) */
	double prev = hdr_hgrm_value_at(g, -INFINITY);
	if (prev != hdr_hgrm_value_at(g, NAN) || prev != hdr_hgrm_value_at(g, 0.0))
		fail("value_at(-inf), value_at(NaN) and value_at(0) differ");
	if (!is_row_value(g, prev))
		fail("value_at returned no row's value");
	double ps[1024];
	size_t np = 0;
	for (int k = 0; k <= 200 && np < 1024; k++)
		ps[np++] = k * 0.5;
	for (size_t i = 0; i < g->nrows && np + 3 <= 1024; i++) {
		double p = g->rows[i].percentile * 100.0;
		ps[np++] = nextafter(p, -INFINITY);
		ps[np++] = p;
		ps[np++] = nextafter(p, INFINITY);
	}
	qsort(ps, np, sizeof ps[0], cmp_double);
	for (size_t i = 0; i < np; i++) {
		double v = hdr_hgrm_value_at(g, ps[i]);
		if (isnan(v) || v < prev) {
			fprintf(stderr, "value_at(%.17g) = %.17g after %.17g\n", ps[i], v, prev);
			fail("hdr_hgrm_value_at is not monotone in p");
		}
		if (!is_row_value(g, v))
			fail("value_at returned no row's value");
		prev = v;
	}
	double top = hdr_hgrm_value_at(g, INFINITY);
	if (top < prev || top != hdr_hgrm_value_at(g, 100.0))
		fail("value_at(inf) differs from value_at(100)");
}

static void parse_text(const uint8_t *data, size_t size)
{
	struct hdr_hgrm g;
	size_t errlen = 1 + (size ? data[size - 1] % 80 : 0) + (size > 1 && (data[1] & 1) ? 200 : 0);
	char *err = malloc(errlen);
	if (!err)
		return;
	memset(err, 'X', errlen);
	memset(&g, 0x5a, sizeof g);
	int rc = hdr_parse_hgrm((const char *)data, size, &g, err, errlen);
	if (rc == -ENOMEM) {
		free(err);
		return;
	}
	if (rc != 0 && rc != -EINVAL)
		fail("parse returned neither 0, -EINVAL nor -ENOMEM");
	if (rc) {
		static const struct hdr_hgrm zero;
		if (!memchr(err, '\0', errlen))
			fail("error message not NUL-terminated");
		if (memcmp(&g, &zero, sizeof g) != 0)
			fail("*out not zeroed after a refusal");
	} else {
		check_accepted(&g);
		hdr_hgrm_free(&g);
	}
	free(err);
}

/* 0x01 inputs: values -> histogram -> hdr_write_hgrm -> hdr_parse_hgrm */
static void round_trip(const uint8_t *data, size_t size)
{
	struct hdr_hist *h;
	int ticks = size ? data[0] % 12 : 5;
	if (hdr_init(1, 3600LL * 1000000000LL, 2, &h) != 0)
		return;
	size_t i = 1;
	while (i < size) {
		uint64_t v = 0;
		int shift = 0;
		while (i < size && shift < 63) {
			uint8_t b = data[i++];
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
			if (!(b & 0x80))
				break;
		}
		hdr_record(h, (int64_t)(v >> 1)); /* >> 1: non-negative */
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		hdr_free(h);
		return;
	}
	int wrc = hdr_write_hgrm(h, f, ticks, 1000.0);
	fclose(f);
	if (wrc != 0)
		fail("hdr_write_hgrm failed");
	/* exact-size copy without NUL, as a file read into memory */
	char *copy = malloc(len ? len : 1);
	memcpy(copy, text, len);
	free(text);
	struct hdr_hgrm g;
	char err[256];
	int rc = hdr_parse_hgrm(copy, len, &g, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "refused: %s\n", err);
		fail("the parser refuses what hdr_write_hgrm wrote");
	}
	check_accepted(&g);
	if (g.total_count != hdr_total_count(h))
		fail("round trip: total count differs");
	if (g.buckets != h->bucket_count || g.sub_buckets != h->sub_bucket_count)
		fail("round trip: buckets / sub-buckets differ");
	if ((g.nrows == 0) != (hdr_total_count(h) == 0))
		fail("round trip: rows present iff values recorded");
	if (g.nrows) {
		double want = (double)hdr_max(h) / 1000.0;
		double got = g.rows[g.nrows - 1].value;
		if (fabs(got - want) > 0.0005 + fabs(want) * 1e-15)
			fail("round trip: last row's value is not hdr_max / 1000");
	}
	hdr_hgrm_free(&g);
	free(copy);
	hdr_free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_data = data;
	g_size = size;
	if (size >= 1 && data[0] == 0x01)
		round_trip(data + 1, size - 1);
	else
		parse_text(data, size);
	return 0;
}
