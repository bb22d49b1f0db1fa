/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * errors.c - the harness's one error formatter (see errors.h).
 */
#define _GNU_SOURCE
#include "errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *hb_prog = "numaring-bench";

void hb_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The line whole, then one fprintf: stderr is unbuffered, and piece by piece
 * would be a write per piece. Out of memory: piece by piece, under the
 * stream's lock (other threads' lines still do not mix in). */
static void say(const char *suffix, const char *fmt, va_list ap)
{
	char *msg = NULL;
	va_list ap2;
	va_copy(ap2, ap);
	if (vasprintf(&msg, fmt, ap2) >= 0) {
		fprintf(stderr, "%s: %s%s\n", hb_prog, msg, suffix);
		free(msg);
	} else {
		flockfile(stderr);
		fprintf(stderr, "%s: ", hb_prog);
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, "%s\n", suffix);
		funlockfile(stderr);
	}
	va_end(ap2);
}

void hb_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

int hb_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(" (see --help)", fmt, ap);
	va_end(ap);
	return 2;
}
