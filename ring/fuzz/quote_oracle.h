/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * quote_oracle.h - what the parsers' error messages must say about the input
 * (for fuzz_cpulist.c and fuzz_topology.c).
 *
 * ring/src/nr_topology.c quotes the input in its messages with quote(). Its
 * contract (the comment above quote() and QUOTE_BUF there):
 *
 *   - at most the first 40 bytes of the input are shown;
 *   - a printable byte is shown as itself, any other byte as \xNN (its value
 *     in two hex digits);
 *   - "..." follows when the input had more than 40 bytes, and only then;
 *   - QUOTE_BUF bytes hold any quote whole, so a quote in a message is never
 *     cut (only the message itself may be, at the caller's error buffer).
 *
 * This oracle does not produce a quote and compare strings (that would be
 * the same code written twice, which shares its bugs): it reads the quote in
 * the message and decodes it against the bytes it claims to show. Walking
 * the input byte by byte, a printable byte must appear as itself and any
 * other byte as a backslash, 'x' and two hex digits (either case) whose
 * value is that byte; then "..." exactly when bytes were left over; then the
 * closing '"'. "Printable" is the C locale's: 0x20..0x7e, written here as a
 * range, not isprint(), so a quote() that ran in another locale and let
 * bytes >= 0x80 through raw would be caught. Everything about the sizes
 * follows: a quote of n input bytes is between min(n, 40) and
 * 4 * min(n, 40) + 3 characters long.
 *
 * Printable bytes are shown raw, '\\' included, so a quote does not decode on
 * its own ("\x41" may be four bytes or one); only decoding against the input
 * is exact, which is what the fuzzers need: they know the input.
 *
 * The oracles check that the text after `cpulist "`, `distance matrix "` or
 * `topology "` is the quote of the whole list or string, and that the text
 * after `: expected ... at "` / `: unexpected "` is the quote of some suffix
 * of it. A message cut at the error buffer's end may stop anywhere: with
 * cut, running out of message counts as agreeing.
 */
#ifndef QUOTE_ORACLE_H
#define QUOTE_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* the most input bytes a quote shows (quote()'s contract) */
#define QUOTE_SHOWN 40

/* Does msg start with want? If cut is true, msg may also end early (it was
 * cut at the error buffer's size). Returns the rest of msg after want, or
 * NULL; "" when msg ended inside want. msg == NULL gives NULL, so that
 * calls chain. */
static const char *eat(const char *msg, const char *want, bool cut)
{
	if (!msg)
		return NULL;
	size_t m = strlen(msg), w = strlen(want);
	if (m >= w)
		return strncmp(msg, want, w) == 0 ? msg + w : NULL;
	return cut && strncmp(msg, want, m) == 0 ? msg + m : NULL;
}

/* 0..15 for a hex digit of either case, else -1 */
static int quote_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * q starts with the quote of s[0..len), decoded against s as described at
 * the top. Returns the text after the quote (the closing '"' is the
 * caller's), "" when q ended inside it and cut is set, or NULL when q says
 * something else. q == NULL gives NULL.
 */
static const char *quote_match(const char *q, const unsigned char *s, size_t len, bool cut)
{
	size_t shown = len < QUOTE_SHOWN ? len : QUOTE_SHOWN;
	if (!q)
		return NULL;
	for (size_t i = 0; i < shown; i++) {
		if (*q == '\0')
			return cut ? q : NULL;
		if (s[i] >= 0x20 && s[i] <= 0x7e) {
			if ((unsigned char)*q != s[i])
				return NULL;
			q++;
			continue;
		}
		/* \xNN, its digits s[i]'s value; the message may be cut inside */
		for (int k = 0; k < 4; k++) {
			bool ok;
			if (q[k] == '\0')
				return cut ? q + k : NULL;
			switch (k) {
			case 0: ok = q[0] == '\\'; break;
			case 1: ok = q[1] == 'x'; break;
			case 2: ok = quote_hexval(q[2]) == s[i] >> 4; break;
			default: ok = quote_hexval(q[3]) == (s[i] & 15); break;
			}
			if (!ok)
				return NULL;
		}
		q += 4;
	}
	return len > shown ? eat(q, "...", cut) : q;
}

/* q is `"QUOTE"` with QUOTE the quote of s[0..len): the text after it, or
 * NULL (see quote_match for cut). */
static const char *eat_quoted(const char *q, const char *s, size_t len, bool cut)
{
	q = eat(q, "\"", cut);
	q = quote_match(q, (const unsigned char *)s, len, cut);
	return eat(q, "\"", cut);
}

/* rest is `QUOTE"...` where QUOTE is the quote of s[i..len) for some i */
static bool suffix_quote_ok(const char *rest, const char *s, size_t len, bool cut)
{
	for (size_t i = 0; i <= len; i++)
		if (eat(quote_match(rest, (const unsigned char *)s + i, len - i, cut), "\"", cut))
			return true;
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
	const char *rest = eat_quoted(eat(eat(msg, head, cut), " ", cut), s, len, cut);
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
