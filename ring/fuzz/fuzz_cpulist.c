/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_cpulist.c - libFuzzer target for nr_cpulist_parse / nr_cpulist_format
 * (ring/src/nr_topology.h).
 *
 * Input: the raw bytes, handed to the parser with their exact length (the
 * parser takes a length, not a C string, so libFuzzer's exact-size heap copy
 * lets ASan catch any read past the end).
 *
 * Findings (crash / abort):
 *   - any sanitizer report (over-read, overflow, UB);
 *   - an error message that is not NUL-terminated inside err[0..errlen);
 *   - an error message that misquotes the input: `cpulist "Q"` must carry
 *     Q = the quote of the whole list and `at "R"` / `unexpected "R"` the
 *     quote of a suffix of it (quote_oracle.h);
 *   - an accepted list that is empty (the parser refuses empty lists);
 *   - a round-trip mismatch: parse(format(set)) != set;
 *   - format into a too-small buffer that neither fails with -ENOSPC nor
 *     writes the full string; a write past that buffer (ASan).
 *
 * Build: see scripts/fuzz.mk (clang -fsanitize=fuzzer,address,undefined).
 */
#define _GNU_SOURCE
#include "nr_topology.h"
#include "quote_oracle.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest format of a cpu_set_t: every other CPU of 0..1023 is
 * "0,2,...,1022", about 2.1 KB; 8 KB leaves room. */
#define FMT_MAX 8192

static void fail(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "fuzz_cpulist: %s; input (%zu bytes): \"", what, size);
	for (size_t i = 0; i < size && i < 200; i++)
		fprintf(stderr, (data[i] >= 0x20 && data[i] < 0x7f) ? "%c" : "\\x%02x", data[i]);
	fprintf(stderr, "\"\n");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cpu_set_t set, again;
	/* an exact-size error buffer, its size taken from the input, so that
	 * ASan sees a message written past it */
	size_t errlen = 1 + (size ? data[size - 1] % 64 : 0);
	char *err = malloc(errlen);
	if (!err)
		return 0;
	memset(err, 'X', errlen);

	int rc = nr_cpulist_parse((const char *)data, size, &set, err, errlen);
	if (rc != 0 && rc != -EINVAL)
		fail("parse returned neither 0 nor -EINVAL", data, size);
	if (rc < 0) {
		if (!memchr(err, '\0', errlen))
			fail("error message not NUL-terminated", data, size);
		free(err);
		/* the full message, checked against the input it quotes */
		char full[NR_ERRLEN];
		nr_cpulist_parse((const char *)data, size, &set, full, sizeof full);
		if (strncmp(full, "cpulist \"", 9) == 0) {
			const char *why = check_list_message(full, "cpulist", (const char *)data, size,
							     strlen(full) == sizeof full - 1);
			if (why) {
				fprintf(stderr, "message: %s\n", full);
				fail(why, data, size);
			}
		}
		return 0;
	}
	free(err);
	if (CPU_COUNT(&set) == 0)
		fail("accepted an empty cpulist", data, size);

	static char buf[FMT_MAX];
	int n = nr_cpulist_format(&set, buf, sizeof buf);
	if (n < 0 || (size_t)n >= sizeof buf || strlen(buf) != (size_t)n)
		fail("format failed or returned a wrong length", data, size);

	char e2[NR_ERRLEN];
	if (nr_cpulist_parse(buf, (size_t)n, &again, e2, sizeof e2) != 0) {
		fprintf(stderr, "formatted \"%s\" refused: %s\n", buf, e2);
		fail("round trip: format's output is refused by parse", data, size);
	}
	if (!CPU_EQUAL(&set, &again)) {
		fprintf(stderr, "formatted \"%s\"\n", buf);
		fail("round trip: parse(format(set)) != set", data, size);
	}

	/* Too-small buffers: exactly sized on the heap, so an overflow is an
	 * ASan report. Must fail with -ENOSPC, or (only when it fits) succeed. */
	size_t small = (size_t)(size ? data[0] : 0) % ((size_t)n + 2);
	char *sb = malloc(small ? small : 1);
	if (!sb)
		return 0;
	int m = nr_cpulist_format(&set, sb, small);
	if (small > (size_t)n) {
		if (m != n || strcmp(sb, buf) != 0)
			fail("format into a buffer that fits gave another result", data, size);
	} else if (m != -ENOSPC) {
		fail("format into a buffer too small did not return -ENOSPC", data, size);
	}
	free(sb);
	return 0;
}
