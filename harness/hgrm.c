/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hgrm.c - the .hgrm reader (see hgrm.h for the contract): a line-by-line
 * state machine over the header, the rows and the three footer lines.
 *
 * The input is untrusted (the fuzzer feeds it arbitrary bytes): every line
 * is copied into a fixed buffer of HDR_HGRM_MAX_LINE + 1 bytes before it is
 * looked at, so nothing reads past text + len and no line can grow a buffer.
 * Numbers are checked for plain decimal syntax before strtod sees them
 * (strtod would also take exponents, hex, inf and nan).
 *
 * Built into the tests and the fuzzer only, never into numaring-bench
 * (Makefile: test-harness checks numaring-bench's symbols).
 */
#include "hgrm.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct parser {
	const char *p, *end; /* unread input */
	size_t lineno;       /* of the line in buf */
	char buf[HDR_HGRM_MAX_LINE + 1];
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int perr(struct parser *ps, const char *fmt, ...)
{
	if (ps->err && ps->errlen) {
		int n = snprintf(ps->err, ps->errlen, "line %zu: ", ps->lineno);
		if (n >= 0 && (size_t)n < ps->errlen) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
		/* quoted input may be binary garbage: keep the message printable */
		for (char *c = ps->err; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
	}
	return -EINVAL;
}

/* Next line into ps->buf (NUL-terminated, without "\n" or "\r\n").
 * Returns 1, 0 at end of input, or -EINVAL. Reads only inside [p, end). */
static int next_line(struct parser *ps)
{
	if (ps->p >= ps->end)
		return 0;
	ps->lineno++;
	size_t avail = (size_t)(ps->end - ps->p);
	/* look no further than one byte past the longest line allowed */
	size_t scan = avail < HDR_HGRM_MAX_LINE + 1 ? avail : HDR_HGRM_MAX_LINE + 1;
	const char *nl = memchr(ps->p, '\n', scan);
	size_t n = nl ? (size_t)(nl - ps->p) : scan;
	if (n > HDR_HGRM_MAX_LINE)
		return perr(ps, "line longer than %d bytes", HDR_HGRM_MAX_LINE);
	memcpy(ps->buf, ps->p, n);
	ps->buf[n] = '\0';
	ps->p += n + (nl ? 1 : 0);
	if (n && ps->buf[n - 1] == '\r')
		ps->buf[--n] = '\0';
	if (memchr(ps->buf, '\0', n))
		return perr(ps, "NUL byte inside the line");
	return 1;
}

static bool is_blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			return false;
	return true;
}

/* Split s (modified) at spaces and tabs; at most max tokens, returns how many
 * there are (max + 1 when there are more). */
static int split(char *s, char **tok, int max)
{
	int n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* [+-]? digits [. digits*]  or  [+-]? . digits  -- no exponent, hex, inf or
 * nan: strtod would take those, a .hgrm never has them */
static bool decimal_syntax(const char *s)
{
	size_t digits = 0;
	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	return digits > 0 && *s == '\0';
}

/* a plain decimal into *v; "what" names the column in the message */
static int parse_double(struct parser *ps, const char *s, const char *what, double *v)
{
	if (!decimal_syntax(s))
		return perr(ps, "%s is not a number: \"%.40s\"", what, s);
	char *end;
	errno = 0;
	double d = strtod(s, &end); /* in the "C" locale, see hdr_parse_hgrm */
	if (*end != '\0')
		return perr(ps, "%s is not a number: \"%.40s\"", what, s);
	if (!isfinite(d))
		return perr(ps, "%s is out of range: \"%.40s\"", what, s);
	*v = d;
	return 0;
}

static int parse_count(struct parser *ps, const char *s, const char *what, int64_t *v)
{
	int64_t x = 0;
	const char *q = s;
	if (*q == '+')
		q++;
	if (!*q)
		return perr(ps, "%s is not a whole number: \"%.40s\"", what, s);
	for (; *q; q++) {
		if (*q < '0' || *q > '9')
			return perr(ps, "%s is not a whole number: \"%.40s\"", what, s);
		if (x > (INT64_MAX - (*q - '0')) / 10)
			return perr(ps, "%s is out of range: \"%.40s\"", what, s);
		x = x * 10 + (*q - '0');
	}
	*v = x;
	return 0;
}

static bool is_inf_word(const char *s)
{
	if (*s == '+')
		s++;
	return strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0;
}

static const char *skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copy the number that starts at s (up to one of stop) into out. */
static const char *take_field(const char *s, const char *stop, char *out, size_t outlen)
{
	size_t n = strcspn(s, stop);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--; /* "123   ]" */
	if (n == 0 || n >= outlen)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\0';
	return s + strcspn(s, stop);
}

/* "#[K1 = N1, K2 = N2]" with any spacing; the numbers are copied out. */
static bool footer_fields(const char *line, const char *k1, const char *k2, char *n1, char *n2,
			  size_t nlen)
{
	const char *s = skip_sp(line);
	if (strncmp(s, "#[", 2) != 0)
		return false;
	s = skip_sp(s + 2);
	if (strncmp(s, k1, strlen(k1)) != 0)
		return false;
	s = skip_sp(s + strlen(k1));
	if (*s != '=')
		return false;
	s = take_field(skip_sp(s + 1), ",]", n1, nlen);
	if (!s || *s != ',')
		return false;
	s = skip_sp(s + 1);
	if (strncmp(s, k2, strlen(k2)) != 0)
		return false;
	s = skip_sp(s + strlen(k2));
	if (*s != '=')
		return false;
	s = take_field(skip_sp(s + 1), ",]", n2, nlen);
	if (!s || *s != ']')
		return false;
	return *skip_sp(s + 1) == '\0';
}

static int parse_nonneg(struct parser *ps, const char *s, const char *what, double *v)
{
	int rc = parse_double(ps, s, what, v);
	if (!rc && *v < 0.0)
		return perr(ps, "%s is negative: \"%.40s\"", what, s);
	return rc;
}

static int parse_int_field(struct parser *ps, const char *s, const char *what, int *v)
{
	int64_t x;
	int rc = parse_count(ps, s, what, &x);
	if (rc)
		return rc;
	if (x < 1 || x > INT_MAX)
		return perr(ps, "%s out of range: %" PRId64, what, x);
	*v = (int)x;
	return 0;
}

static int parse_row(struct parser *ps, struct hdr_hgrm_row *r, const struct hdr_hgrm_row *prev)
{
	char *tok[4];
	int n = split(ps->buf, tok, 4);
	if (n < 3 || n > 4)
		return perr(ps, "a row has 3 or 4 columns, found %s", n > 4 ? "more" : "fewer");
	int rc;
	if ((rc = parse_nonneg(ps, tok[0], "Value", &r->value)) ||
	    (rc = parse_nonneg(ps, tok[1], "Percentile", &r->percentile)) ||
	    (rc = parse_count(ps, tok[2], "TotalCount", &r->total_count)))
		return rc;
	if (r->percentile > 1.0)
		return perr(ps, "Percentile %.40s is above 1", tok[1]);
	if (n == 3 || is_inf_word(tok[3])) {
		/* Java leaves the column out, HdrHistogram_c prints inf */
		if (r->percentile != 1.0)
			return perr(ps, "1/(1-Percentile) %s below percentile 1",
				    n == 3 ? "missing" : "infinite");
		r->inverse = INFINITY;
	} else {
		if ((rc = parse_double(ps, tok[3], "1/(1-Percentile)", &r->inverse)))
			return rc;
		if (r->inverse < 1.0)
			return perr(ps, "1/(1-Percentile) %.40s is below 1", tok[3]);
	}
	if (prev) {
		if (r->percentile < prev->percentile)
			return perr(ps, "Percentile decreases (%.12f after %.12f)", r->percentile,
				    prev->percentile);
		if (r->value < prev->value)
			return perr(ps, "Value decreases (%.3f after %.3f)", r->value, prev->value);
		if (r->total_count < prev->total_count)
			return perr(ps, "TotalCount decreases (%" PRId64 " after %" PRId64 ")",
				    r->total_count, prev->total_count);
	}
	return 0;
}

static int push_row(struct hdr_hgrm *g, size_t *cap, const struct hdr_hgrm_row *r)
{
	if (g->nrows == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		if (ncap > SIZE_MAX / sizeof(*g->rows))
			return -ENOMEM;
		struct hdr_hgrm_row *nr = realloc(g->rows, ncap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		g->rows = nr;
		*cap = ncap;
	}
	g->rows[g->nrows++] = *r;
	return 0;
}

static bool is_header(char *line)
{
	static const char *const want[4] = {"Value", "Percentile", "TotalCount",
					    "1/(1-Percentile)"};
	char *tok[4];
	if (split(line, tok, 4) != 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (strcmp(tok[i], want[i]) != 0)
			return false;
	return true;
}

enum { P_HEADER, P_ROWS, P_MAX, P_BUCKETS, P_END };

static int parse(struct parser *ps, struct hdr_hgrm *g)
{
	static const char *const expect[] = {
	    "the header line \"Value Percentile TotalCount 1/(1-Percentile)\"",
	    "a row or the footer line \"#[Mean = ..., StdDeviation = ...]\"",
	    "the footer line \"#[Max = ..., Total count = ...]\"",
	    "the footer line \"#[Buckets = ..., SubBuckets = ...]\"",
	};
	size_t cap = 0;
	int state = P_HEADER, rc;
	char a[64], b[64];

	if (ps->p == ps->end) {
		ps->lineno = 1;
		return perr(ps, "empty input");
	}
	while ((rc = next_line(ps)) > 0) {
		if (is_blank(ps->buf))
			continue;
		switch (state) {
		case P_HEADER:
			if (!is_header(ps->buf))
				return perr(ps, "expected %s", expect[P_HEADER]);
			state = P_ROWS;
			break;
		case P_ROWS:
			if (*skip_sp(ps->buf) == '#') {
				if (!footer_fields(ps->buf, "Mean", "StdDeviation", a, b, sizeof(a)))
					return perr(ps, "expected %s", expect[P_ROWS]);
				if ((rc = parse_nonneg(ps, a, "Mean", &g->mean)) ||
				    (rc = parse_nonneg(ps, b, "StdDeviation", &g->stddev)))
					return rc;
				state = P_MAX;
			} else {
				struct hdr_hgrm_row r;
				rc = parse_row(ps, &r, g->nrows ? &g->rows[g->nrows - 1] : NULL);
				if (!rc)
					rc = push_row(g, &cap, &r);
				if (rc)
					return rc;
			}
			break;
		case P_MAX:
			if (!footer_fields(ps->buf, "Max", "Total count", a, b, sizeof(a)))
				return perr(ps, "expected %s", expect[P_MAX]);
			if ((rc = parse_nonneg(ps, a, "Max", &g->max)) ||
			    (rc = parse_count(ps, b, "Total count", &g->total_count)))
				return rc;
			if (g->nrows ? g->rows[g->nrows - 1].total_count != g->total_count
				     : g->total_count != 0)
				return perr(ps, "Total count %" PRId64 " differs from the last row's %" PRId64,
					    g->total_count,
					    g->nrows ? g->rows[g->nrows - 1].total_count : 0);
			state = P_BUCKETS;
			break;
		case P_BUCKETS:
			if (!footer_fields(ps->buf, "Buckets", "SubBuckets", a, b, sizeof(a)))
				return perr(ps, "expected %s", expect[P_BUCKETS]);
			if ((rc = parse_int_field(ps, a, "Buckets", &g->buckets)) ||
			    (rc = parse_int_field(ps, b, "SubBuckets", &g->sub_buckets)))
				return rc;
			state = P_END;
			break;
		default:
			return perr(ps, "unexpected text after the footer");
		}
	}
	if (rc < 0)
		return rc;
	if (state != P_END) {
		ps->lineno++;
		return perr(ps, "input ends where %s was expected", expect[state]);
	}
	return 0;
}

int hdr_parse_hgrm(const char *text, size_t len, struct hdr_hgrm *out, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	struct parser ps = {.lineno = 0, .err = err, .errlen = errlen};
	if (text) { /* NULL + 0 is undefined: leave p == end == NULL */
		ps.p = text;
		ps.end = text + len;
	} else if (len) {
		if (err && errlen)
			snprintf(err, errlen, "no text");
		return -EINVAL;
	}

	/* strtod in the "C" locale: a .hgrm is a file format, and another
	 * locale would stop at the '.' of "1.5"; uselocale is per thread */
	int rc = -ENOMEM;
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c != (locale_t)0) {
		locale_t old = uselocale(c);
		rc = parse(&ps, out);
		uselocale(old);
		freelocale(c);
	}
	if (rc) {
		if (rc == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		hdr_hgrm_free(out);
	}
	return rc;
}

void hdr_hgrm_free(struct hdr_hgrm *g)
{
	if (!g)
		return;
	free(g->rows);
	memset(g, 0, sizeof(*g));
}

double hdr_hgrm_value_at(const struct hdr_hgrm *g, double percentile)
{
	if (!g || g->nrows == 0 || !g->rows)
		return NAN;
	if (!(percentile > 0.0))
		percentile = 0.0;
	if (percentile > 100.0)
		percentile = 100.0;
	/* the file holds 12 decimals: 0.999 and 99.9/100 differ in the 17th */
	double want = percentile / 100.0 - 5e-13;
	for (size_t i = 0; i < g->nrows; i++)
		if (g->rows[i].percentile >= want)
			return g->rows[i].value;
	return g->rows[g->nrows - 1].value;
}
