/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hdr.c - log-linear latency histogram (see hdr.h for the contract).
 *
 * Layout (HdrHistogram's, so that bucket edges and percentiles agree with it)
 * ---------------------------------------------------------------------------
 * Three numbers describe it:
 *   unit_magnitude u  = floor(log2(lowest_discernible)): nothing finer than
 *                       2^u is ever told apart.
 *   sub_bucket_count S = 2^ceil(log2(2 * 10^sig_digits)), a power of two so
 *                       that the index comes from shifts; half of it is
 *                       H = S/2 = 2^m (m = sub_bucket_half_count_magnitude).
 *   bucket_count     B = buckets needed until S << (u + B - 1) > highest.
 *
 * Bucket b covers [0, S << (u + b)) with S sub-buckets of width 2^(u + b).
 * Its lower half repeats the whole of bucket b-1 at half the resolution, so
 * only bucket 0 keeps both halves; buckets 1.. store their upper half only.
 * Hence every value v >= H << u has between H and S sub-buckets below it in
 * its bucket: the relative width of a bucket is at most 1/H < 10^-sig_digits.
 *
 * For a value v (>= 0):
 *   bucket     b  = bitlen(v | ((S-1) << u)) - u - (m + 1)
 *                   (OR-ing the mask makes every value below S << u land in
 *                   bucket 0; bitlen is 64 - clz, one instruction)
 *   sub-bucket s  = v >> (u + b)              (H <= s < S when b > 0)
 *   index         = ((b + 1) << m) + (s - H)  (bucket 0: just s)
 *   lowest equivalent  = s << (u + b)
 *   highest equivalent = lowest + 2^(u + b) - 1
 * counts_len = (B + 1) * H: S for bucket 0, H for each further bucket.
 *
 * Worked example: lowest 1, highest 10^10 ns, 2 digits.
 *   u = 0; 2 * 10^2 = 200 -> S = 256, H = 128, m = 7;
 *   S << (B - 1) > 10^10 needs 2^(8 + B - 1) > 2^33.2, so B = 27 and
 *   counts_len = 28 * 128 = 3584 counters (28 KiB).
 *   v = 1000: v | 255 = 1023, bitlen 10 -> b = 10 - 0 - 8 = 2;
 *   s = 1000 >> 2 = 250; index = (3 << 7) + (250 - 128) = 506.
 *   Bucket 2 holds 512..1023 in steps of 4, so 1000 shares its counter with
 *   1000..1003: lowest equivalent 1000, highest 1003 (0.4% wide <= 1%).
 *   v = 100 (< S): b = 0, s = 100, index 100, exact.
 *
 * Nothing here allocates after hdr_init(); the text writers are outside the
 * recording path. Reading a .hgrm back is hgrm.c's job (tests and fuzzer
 * only, not linked into numaring-bench).
 */
#include "hdr.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout math ------------------------------------------------------- */

static inline int bucket_of(const struct hdr_hist *h, int64_t v)
{
	/* the mask keeps the argument non-zero, so clz is defined */
	int bitlen = 64 - __builtin_clzll((uint64_t)(v | h->sub_bucket_mask));
	return bitlen - h->unit_magnitude - (h->sub_bucket_half_count_magnitude + 1);
}

static inline int32_t index_of(const struct hdr_hist *h, int64_t v)
{
	int b = bucket_of(h, v);
	int32_t s = (int32_t)(v >> (b + h->unit_magnitude));
	return ((int32_t)(b + 1) << h->sub_bucket_half_count_magnitude) +
	       (s - h->sub_bucket_half_count);
}

/* bucket of counts[i] (the inverse of index_of's first term) */
static inline int bucket_at_index(const struct hdr_hist *h, int32_t i)
{
	int b = (i >> h->sub_bucket_half_count_magnitude) - 1;
	return b < 0 ? 0 : b;
}

/* lowest equivalent value of counts[i] */
static int64_t value_at_index(const struct hdr_hist *h, int32_t i)
{
	int b = (i >> h->sub_bucket_half_count_magnitude) - 1;
	int32_t s = (i & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
	if (b < 0) { /* bucket 0 keeps its lower half too */
		s -= h->sub_bucket_half_count;
		b = 0;
	}
	return (int64_t)s << (b + h->unit_magnitude);
}

static inline int64_t width_at_index(const struct hdr_hist *h, int32_t i)
{
	return INT64_C(1) << (h->unit_magnitude + bucket_at_index(h, i));
}

/* middle of counts[i]'s range: HdrHistogram's medianEquivalentValue */
static inline int64_t median_at_index(const struct hdr_hist *h, int32_t i)
{
	return value_at_index(h, i) + (width_at_index(h, i) >> 1);
}

/* highest equivalent value of counts[i]; lowest + width <= 2^63 always */
static inline int64_t highest_at_index(const struct hdr_hist *h, int32_t i)
{
	return (int64_t)((uint64_t)value_at_index(h, i) + (uint64_t)width_at_index(h, i) - 1u);
}

static inline int64_t sat_add(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* ---- life cycle -------------------------------------------------------- */

int hdr_init(int64_t lowest, int64_t highest, int sig_digits, struct hdr_hist **out)
{
	if (!out || lowest < 1 || sig_digits < 1 || sig_digits > 5 || highest / 2 < lowest)
		return -EINVAL;

	int64_t single_unit = 2;
	for (int i = 0; i < sig_digits; i++)
		single_unit *= 10;
	/* ceil(log2(single_unit)), in integers: no libm rounding at powers of 2 */
	int sub_count_mag = 64 - __builtin_clzll((uint64_t)(single_unit - 1));
	int half_mag = (sub_count_mag > 1 ? sub_count_mag : 1) - 1;
	int unit = 63 - __builtin_clzll((uint64_t)lowest);
	/* every shift below must stay inside int64_t (HdrHistogram's bound) */
	if (unit + half_mag > 61)
		return -EINVAL;

	int32_t sub_count = INT32_C(1) << (half_mag + 1);
	int32_t buckets = 1;
	uint64_t untrackable = (uint64_t)sub_count << unit; /* <= 2^62 */
	while (untrackable <= (uint64_t)highest) {
		if (untrackable > (uint64_t)INT64_MAX / 2) {
			buckets++; /* the next doubling covers all of int64_t */
			break;
		}
		untrackable <<= 1;
		buckets++;
	}
	int64_t len = (int64_t)(buckets + 1) * (sub_count / 2);
	if (len > INT32_MAX || (uint64_t)len > (SIZE_MAX - sizeof(struct hdr_hist)) / sizeof(int64_t))
		return -EINVAL;

	struct hdr_hist *h = calloc(1, sizeof(*h) + (size_t)len * sizeof(int64_t));
	if (!h)
		return -ENOMEM;
	h->lowest_discernible = lowest;
	h->highest_trackable = highest;
	h->sig_digits = sig_digits;
	h->unit_magnitude = unit;
	h->sub_bucket_half_count_magnitude = half_mag;
	h->sub_bucket_count = sub_count;
	h->sub_bucket_half_count = sub_count / 2;
	h->sub_bucket_mask = ((int64_t)sub_count - 1) << unit;
	h->bucket_count = buckets;
	h->counts_len = (int32_t)len;
	/* calloc zeroed the counts; hdr_reset() would touch every page of them */
	h->min_value = INT64_MAX;
	*out = h;
	return 0;
}

void hdr_free(struct hdr_hist *h)
{
	free(h);
}

void hdr_reset(struct hdr_hist *h)
{
	if (!h)
		return;
	memset(h->counts, 0, (size_t)h->counts_len * sizeof(int64_t));
	h->total_count = 0;
	h->min_value = INT64_MAX;
	h->max_value = 0;
	h->max_exact = 0;
	h->rejected = 0;
	h->saturated = 0;
}

/* ---- recording ----------------------------------------------------------- */

bool hdr_record(struct hdr_hist *h, int64_t value)
{
	if (value < 0 || h->total_count == INT64_MAX) {
		h->rejected = sat_add(h->rejected, 1);
		return false;
	}
	if (value > h->max_exact)
		h->max_exact = value;
	if (value > h->highest_trackable) {
		/* clamp rather than drop: the value still weighs in the tail */
		value = h->highest_trackable;
		h->saturated++;
	}
	h->counts[index_of(h, value)]++;
	h->total_count++;
	if (value < h->min_value)
		h->min_value = value;
	if (value > h->max_value)
		h->max_value = value;
	return true;
}

bool hdr_record_n(struct hdr_hist *h, int64_t value, int64_t count)
{
	if (count <= 0)
		return count == 0;
	/* no counter can overflow while total_count does not: each is <= it */
	if (value < 0 || count > INT64_MAX - h->total_count) {
		h->rejected = sat_add(h->rejected, count);
		return false;
	}
	if (value > h->max_exact)
		h->max_exact = value;
	if (value > h->highest_trackable) {
		value = h->highest_trackable;
		h->saturated += count;
	}
	h->counts[index_of(h, value)] += count;
	h->total_count += count;
	if (value < h->min_value)
		h->min_value = value;
	if (value > h->max_value)
		h->max_value = value;
	return true;
}

/* ---- queries ------------------------------------------------------------- */

int64_t hdr_total_count(const struct hdr_hist *h)
{
	return h ? h->total_count : 0;
}

int64_t hdr_lowest_equivalent(const struct hdr_hist *h, int64_t v)
{
	if (v < 0)
		v = 0;
	int b = bucket_of(h, v);
	int shift = b + h->unit_magnitude;
	return (v >> shift) << shift;
}

int64_t hdr_highest_equivalent(const struct hdr_hist *h, int64_t v)
{
	if (v < 0)
		v = 0;
	int shift = bucket_of(h, v) + h->unit_magnitude;
	/* the range ends at a multiple of its width <= 2^63: fits after -1 */
	return (int64_t)((uint64_t)((v >> shift) << shift) + (UINT64_C(1) << shift) - 1u);
}

int64_t hdr_min(const struct hdr_hist *h)
{
	if (!h || h->total_count == 0)
		return 0;
	return hdr_lowest_equivalent(h, h->min_value);
}

int64_t hdr_max(const struct hdr_hist *h)
{
	/* HdrHistogram answers 0 when the largest value is 0 (not bucket 0's
	 * top); kept so that .hgrm footers agree with it */
	if (!h || h->total_count == 0 || h->max_value == 0)
		return 0;
	return hdr_highest_equivalent(h, h->max_value);
}

double hdr_mean(const struct hdr_hist *h)
{
	if (!h || h->total_count == 0)
		return 0.0;
	/* double, in index order, as HdrHistogram does: same rounding */
	double sum = 0.0;
	for (int32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i])
			sum += (double)median_at_index(h, i) * (double)h->counts[i];
	return sum / (double)h->total_count;
}

double hdr_stddev(const struct hdr_hist *h)
{
	if (!h || h->total_count == 0)
		return 0.0;
	double mean = hdr_mean(h), dev2 = 0.0;
	for (int32_t i = 0; i < h->counts_len; i++) {
		if (h->counts[i]) {
			double d = (double)median_at_index(h, i) - mean;
			dev2 += d * d * (double)h->counts[i];
		}
	}
	return sqrt(dev2 / (double)h->total_count);
}

/*
 * rank = ceil(p/100 * n), at least 1, at most n. p/100*n is computed in
 * doubles, so 99.9% of 1000 comes out as 999.0000000000001; an x within a
 * few ulps above an integer is taken as that integer (HdrHistogram shaves
 * one ulp off p for the same reason, which is not always enough).
 */
static int64_t rank_at(double percentile, int64_t n)
{
	double x = percentile / 100.0 * (double)n;
	double r = ceil(x);
	if (r - 1.0 >= x - x * (4 * DBL_EPSILON))
		r -= 1.0;
	if (r < 1.0)
		return 1;
	if (r >= (double)n)
		return n;
	return (int64_t)r;
}

int64_t hdr_value_at_percentile(const struct hdr_hist *h, double percentile)
{
	if (!h || h->total_count == 0)
		return 0;
	if (!(percentile > 0.0)) /* also NaN */
		percentile = 0.0;
	if (percentile > 100.0)
		percentile = 100.0;
	int64_t rank = rank_at(percentile, h->total_count);
	int64_t cum = 0;
	for (int32_t i = 0; i < h->counts_len; i++) {
		cum += h->counts[i];
		if (cum >= rank)
			return percentile == 0.0 ? value_at_index(h, i) : highest_at_index(h, i);
	}
	return 0; /* counts disagree with total_count: only through memory corruption */
}

/* ---- merging ------------------------------------------------------------- */

int64_t hdr_add(struct hdr_hist *dst, const struct hdr_hist *src)
{
	if (!src)
		return 0;
	if (!dst)
		return src->total_count;

	/* read src's scalars first: dst may be src */
	const int64_t s_min = src->min_value, s_max = src->max_value;
	const int64_t s_max_exact = src->max_exact, s_rej = src->rejected, s_sat = src->saturated;
	const int32_t s_len = src->counts_len;
	int64_t dropped = 0, newsat = 0;

	if (src->unit_magnitude == dst->unit_magnitude &&
	    src->sub_bucket_half_count_magnitude == dst->sub_bucket_half_count_magnitude &&
	    src->highest_trackable <= dst->highest_trackable) {
		/* same index for the same value: add counters, keep exact min/max */
		int32_t lo = -1, hi = -1;
		for (int32_t i = 0; i < s_len; i++) {
			int64_t c = src->counts[i];
			if (!c)
				continue;
			if (c > INT64_MAX - dst->total_count) {
				dropped += c;
				continue;
			}
			dst->counts[i] += c;
			dst->total_count += c;
			if (lo < 0)
				lo = i;
			hi = i;
		}
		if (lo >= 0) {
			int64_t mn = s_min, mx = s_max;
			if (dropped) { /* only what was placed may bound dst */
				mn = value_at_index(src, lo);
				mx = value_at_index(src, hi);
			}
			if (mn < dst->min_value)
				dst->min_value = mn;
			if (mx > dst->max_value)
				dst->max_value = mx;
		}
	} else {
		/* HdrHistogram's way: each bucket recorded at its lowest value */
		const int32_t s_top = index_of(src, src->highest_trackable);
		for (int32_t i = 0; i < s_len; i++) {
			int64_t c = src->counts[i];
			if (!c)
				continue;
			if (c > INT64_MAX - dst->total_count) {
				dropped += c;
				continue;
			}
			int64_t v = value_at_index(src, i);
			if (v > dst->highest_trackable) {
				v = dst->highest_trackable;
				/* src's own saturated values sit in its top bucket and
				 * are already in s_sat */
				newsat += c - (i == s_top ? (s_sat < c ? s_sat : c) : 0);
			}
			dst->counts[index_of(dst, v)] += c;
			dst->total_count += c;
			if (v < dst->min_value)
				dst->min_value = v;
			if (v > dst->max_value)
				dst->max_value = v;
		}
	}
	if (s_max_exact > dst->max_exact)
		dst->max_exact = s_max_exact;
	dst->rejected = sat_add(dst->rejected, s_rej);
	dst->saturated = sat_add(dst->saturated, sat_add(s_sat, newsat));
	return dropped;
}

/* ---- percentile iterator (HdrHistogram's PercentileIterator) -------------- */

struct pct_iter {
	const struct hdr_hist *h;
	int32_t idx;        /* counts index under consideration */
	bool fresh;         /* counts[idx] not yet added to cumulative */
	bool seen_last;     /* the final 100% row was given */
	int64_t count;      /* counts[idx] */
	int64_t cumulative; /* sum of counts[0..idx] */
	double level;       /* next percentile to report, 0..100 */
	double ticks;       /* ticks per half distance */
	/* the row */
	int64_t value;      /* highest equivalent value of the row's bucket */
	double percentile;  /* the level reported, 0..100 */
};

static void pct_init(struct pct_iter *it, const struct hdr_hist *h, int ticks)
{
	memset(it, 0, sizeof(*it));
	it->h = h;
	it->fresh = true;
	it->ticks = ticks;
}

/*
 * Step the level: ticks equal steps in each half of the distance left to
 * 100%. Same floating-point expression as HdrHistogram so that the same
 * levels come out. At 100% exactly Java's arithmetic gives +infinity (no
 * further level is reachable); here that is said directly instead of going
 * through an undefined double-to-integer conversion.
 */
static double next_level(double level, double ticks)
{
	if (!(level < 100.0))
		return INFINITY;
	double k = floor(log(100.0 / (100.0 - level)) / log(2.0)) + 1.0; /* <= 55 */
	return level + 100.0 / (ticks * ldexp(1.0, (int)k));
}

static bool pct_next(struct pct_iter *it)
{
	const struct hdr_hist *h = it->h;
	if (it->cumulative >= h->total_count) {
		/* all counted: one more row at 100%, on the last bucket */
		if (it->seen_last || h->total_count == 0)
			return false;
		it->seen_last = true;
		it->percentile = 100.0;
		return true;
	}
	while (it->idx < h->counts_len) {
		if (it->fresh) {
			it->count = h->counts[it->idx];
			it->cumulative += it->count;
			it->fresh = false;
		}
		/* the same bucket may answer several levels: idx stays */
		if (it->count != 0 &&
		    (100.0 * (double)it->cumulative) / (double)h->total_count >= it->level) {
			it->value = highest_at_index(h, it->idx);
			it->percentile = it->level;
			it->level = next_level(it->level, it->ticks);
			return true;
		}
		it->idx++;
		it->fresh = true;
	}
	return false; /* counts disagree with total_count */
}

/* ---- writers --------------------------------------------------------------- */

/* Run the writer in the "C" locale: the formats are a file format, not text
 * for humans, and another locale would write "1,5". */
static int c_locale_enter(locale_t *c, locale_t *old)
{
	*c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (*c == (locale_t)0)
		return -ENOMEM;
	*old = uselocale(*c);
	return 0;
}

static void c_locale_leave(locale_t c, locale_t old)
{
	uselocale(old);
	freelocale(c);
}

/*
 * x with `decimals` decimals, rounded as Java's Formatter does: from the
 * shortest decimal that reads back as x, half up. printf rounds the exact
 * binary value instead, so 0.9997802734375 (a percentile level / 100, stored
 * as 0.99978027343749998...) would come out ...437 where HdrHistogram writes
 * ...438; this keeps the files byte-identical to Java's. x must be finite;
 * out needs decimals + 330 bytes at most (320 for the largest double).
 */
static void fmt_fixed(char *out, size_t outlen, double x, int decimals)
{
	char e[40], dig[40];
	int n = 0, exp10 = 0;
	bool neg = signbit(x) && x != 0.0;

	/* shortest round-tripping mantissa: d.ddd...e+XX, 1..17 digits */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, fabs(x));
		if (strtod(e, NULL) == fabs(x))
			break;
	}
	for (const char *s = e; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			dig[n++] = *s;
	const char *ep = strchr(e, 'e');
	exp10 = ep ? atoi(ep + 1) : 0;
	if (x == 0.0) {
		n = 1;
		dig[0] = '0';
		exp10 = 0;
	}

	/* value = 0.dig * 10^point; keep the digits before the cut */
	int point = exp10 + 1;
	int keep = point + decimals;
	if (keep < n) {
		bool up = keep >= 0 && dig[keep] >= '5';
		n = keep > 0 ? keep : 0;
		if (up) {
			int i = n - 1;
			while (i >= 0 && dig[i] == '9')
				dig[i--] = '0';
			if (i >= 0) {
				dig[i]++;
			} else { /* 9.99 -> 10.0: one more leading digit */
				memmove(dig + 1, dig, (size_t)n);
				dig[0] = '1';
				n++;
				point++;
			}
		}
	}

	size_t o = 0;
#define PUT(ch)                                                                                    \
	do {                                                                                       \
		if (o + 1 < outlen)                                                                \
			out[o++] = (ch);                                                           \
	} while (0)
	if (neg)
		PUT('-');
	if (point <= 0)
		PUT('0');
	for (int i = 0; i < point; i++)
		PUT(i < n ? dig[i] : '0');
	if (decimals > 0) {
		PUT('.');
		for (int i = point; i < point + decimals; i++)
			PUT(i >= 0 && i < n ? dig[i] : '0');
	}
#undef PUT
	if (outlen)
		out[o] = '\0';
}

static int write_error(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* prefix: the CSV rows' first field (NULL: none); the .hgrm rows have none */
static int write_rows(const struct hdr_hist *h, FILE *out, int ticks, double scale, bool csv,
		      const char *prefix)
{
	struct pct_iter it;
	char v[400], p[64], inv[400];
	pct_init(&it, h, ticks);
	while (pct_next(&it)) {
		double frac = it.percentile / 100.0;
		/* Java tests the level, not "is this the final row" */
		bool full = it.percentile == 100.0;
		int rc;
		fmt_fixed(p, sizeof(p), frac, 12);
		if (!full)
			fmt_fixed(inv, sizeof(inv), 1.0 / (1.0 - frac), 2);
		if (csv) {
			rc = fprintf(out, "%s%s%" PRId64 ",%s,%" PRId64 ",%s\n", prefix ? prefix : "",
				     prefix ? "," : "", it.value, p, it.cumulative,
				     full ? "inf" : inv);
		} else {
			fmt_fixed(v, sizeof(v), (double)it.value / scale, 3);
			if (full)
				rc = fprintf(out, "%12s %s %10" PRId64 "\n", v, p, it.cumulative);
			else
				rc = fprintf(out, "%12s %s %10" PRId64 " %14s\n", v, p,
					     it.cumulative, inv);
		}
		if (rc < 0)
			return write_error();
	}
	return 0;
}

static int write_footer(const struct hdr_hist *h, FILE *out, double scale)
{
	char mean[400], sd[400], max[400];
	fmt_fixed(mean, sizeof(mean), hdr_mean(h) / scale, 3);
	fmt_fixed(sd, sizeof(sd), hdr_stddev(h) / scale, 3);
	fmt_fixed(max, sizeof(max), (double)hdr_max(h) / scale, 3);
	if (fprintf(out,
		    "#[Mean    = %12s, StdDeviation   = %12s]\n"
		    "#[Max     = %12s, Total count    = %12" PRId64 "]\n"
		    "#[Buckets = %12d, SubBuckets     = %12d]\n",
		    mean, sd, max, h->total_count, (int)h->bucket_count,
		    (int)h->sub_bucket_count) < 0)
		return write_error();
	return 0;
}

static int write_common(const struct hdr_hist *h, FILE *out, int ticks, double scale, bool csv)
{
	if (!h || !out || ticks < 0 || !(scale > 0.0) || !isfinite(scale))
		return -EINVAL;
	if (ticks == 0)
		ticks = 5;
	locale_t c, old;
	int rc = c_locale_enter(&c, &old);
	if (rc)
		return rc;
	errno = 0;
	int w;
	if (csv)
		w = fputs("value_ns,percentile,total_count,one_over_one_minus_percentile\n", out);
	else
		w = fprintf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
			    "1/(1-Percentile)");
	rc = w < 0 ? write_error() : 0;
	if (!rc)
		rc = write_rows(h, out, ticks, scale, csv, NULL);
	if (!rc && !csv)
		rc = write_footer(h, out, scale);
	if (!rc && fflush(out) != 0)
		rc = write_error();
	c_locale_leave(c, old);
	return rc;
}

int hdr_write_hgrm(const struct hdr_hist *h, FILE *out, int ticks_per_half_distance,
		   double value_scale)
{
	return write_common(h, out, ticks_per_half_distance, value_scale, false);
}

int hdr_write_csv(const struct hdr_hist *h, FILE *out, int ticks_per_half_distance)
{
	return write_common(h, out, ticks_per_half_distance, 1.0, true);
}

int hdr_write_csv_rows(const struct hdr_hist *h, FILE *out, int ticks_per_half_distance,
		       const char *label)
{
	if (!h || !out || ticks_per_half_distance < 0 || !label || !*label ||
	    strpbrk(label, ",\"\r\n"))
		return -EINVAL;
	locale_t c, old;
	int rc = c_locale_enter(&c, &old);
	if (rc)
		return rc;
	errno = 0;
	rc = write_rows(h, out, ticks_per_half_distance ? ticks_per_half_distance : 5, 1.0, true,
			label);
	if (!rc && fflush(out) != 0)
		rc = write_error();
	c_locale_leave(c, old);
	return rc;
}
