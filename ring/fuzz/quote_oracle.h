/*
 * quote_oracle.h - what the parsers' error messages must say about the input
 * (for fuzz_cpulist.c and fuzz_topology.c).
 *
 * ring/src/nr_topology.c quotes the input in its messages with quote(): at most
 * 40 bytes, printable ones as they are, others as \xNN, "..." when the input
 * was longer, and never more than the buffer it is given. ref_quote() is
 * that specification, written again; the oracles check that the text after
 * `cpulist "` or `distance matrix "` is the quote of the whole list, and
 * that the text after `: expected ... at "` / `: unexpected "` is the quote
 * of some suffix of it. A message cut at the error buffer's end may stop
 * anywhere.
 */
#ifndef QUOTE_ORACLE_H
#define QUOTE_ORACLE_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* quote() of nr_topology.c, by its comment, into buf[buflen] */
static const char *ref_quote(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t n = len < 40 ? len : 40, o = 0;
	for (size_t i = 0; i < n && o + 5 < buflen; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (isprint(ch))
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x", ch);
	}
	if (len > n && o + 4 < buflen) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o < buflen ? o : buflen - 1] = '\0';
	return buf;
}

/* Does msg start with want? If cut is true, msg may also end early (it was
 * cut at the error buffer's size). Returns the rest of msg after want, or
 * NULL; "" when msg ended inside want. */
static const char *eat(const char *msg, const char *want, bool cut)
{
	size_t m = strlen(msg), w = strlen(want);
	if (m >= w)
		return strncmp(msg, want, w) == 0 ? msg + w : NULL;
	return cut && strncmp(msg, want, m) == 0 ? msg + m : NULL;
}

/* rest is `QUOTE"...` where QUOTE is quote(s + i, len - i) for some i, with
 * a buffer that holds any quote whole (QUOTE_BUF of nr_topology.c) */
static bool suffix_quote_ok(const char *rest, const char *s, size_t len, bool cut)
{
	char ref[256], want[260];
	for (size_t i = 0; i <= len; i++) {
		ref_quote(s + i, len - i, ref, sizeof ref);
		snprintf(want, sizeof want, "%s\"", ref);
		if (eat(rest, want, cut))
			return true;
	}
	return false;
}

/*
 * msg quotes the list s[0..len) after `head "` (head: "cpulist" or
 * "distance matrix"), then possibly a suffix of it after ` at "` or
 * `unexpected "`. Returns NULL when it does, else what is wrong.
 */
static const char *check_list_message(const char *msg, const char *head, const char *s,
				      size_t len, bool cut)
{
	char ref[256], want[300];
	snprintf(want, sizeof want, "%s \"%s\"", head, ref_quote(s, len, ref, sizeof ref));
	const char *rest = eat(msg, want, cut);
	if (!rest)
		return "the list is not quoted as quote() promises";
	/* the templates that quote a suffix of the list next (the quoted text
	 * itself may contain anything, so only the template is looked at) */
	static const char *const next[] = {
	    ": expected a CPU number at \"",
	    ": expected the end of a range at \"",
	    ": expected a distance 1..255 at \"",
	    ": unexpected \"",
	};
	for (size_t k = 0; k < sizeof next / sizeof next[0]; k++) {
		const char *r2 = eat(rest, next[k], cut);
		if (r2 && *r2 && !suffix_quote_ok(r2, s, len, cut))
			return "the text after 'at \"' / 'unexpected \"' is not the quote of a suffix of the list";
		if (r2)
			break;
	}
	return NULL;
}

#endif /* QUOTE_ORACLE_H */
