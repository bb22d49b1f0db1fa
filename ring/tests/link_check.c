/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * link_check.c - a program that uses libnumaring as a user's program does:
 * only <numaring.h>, linked with -lnumaring against the shared library (see
 * the Makefile's test-ring). Exit 0 and one line when an item goes through
 * and numaring_stats_add keeps both its versions: a program linked against
 * 0.1 (here: a reference bound to numaring_stats_add@NUMARING_0.1, as the
 * linker recorded it for such programs) adds 0.1's counters and writes
 * nothing past its struct; one linked now adds every counter.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "numaring.h"

/* What a program linked against 0.1 calls for numaring_stats_add. */
void old_stats_add(struct numaring_stats *acc, const struct numaring_stats *s);
__asm__(".symver old_stats_add, numaring_stats_add@NUMARING_0.1");

/* 1 if both versions of numaring_stats_add add what they should. */
static int stats_add_versions(void)
{
	struct numaring_stats acc, s;
	memset(&s, 0, sizeof s);
	s.gate_waits = 2;    /* the last counter of 0.1 */
	s.gate_backoffs = 3; /* 0.2 */
	s.backoff_ns_gate = 5;
	memset(&acc, 0, sizeof acc);
	old_stats_add(&acc, &s);
	if (acc.gate_waits != 2 || acc.gate_backoffs != 0 || acc.backoff_ns_gate != 0)
		return 0;
	numaring_stats_add(&acc, &s);
	return acc.gate_waits == 4 && acc.gate_backoffs == 3 && acc.backoff_ns_gate == 5;
}

int main(void)
{
	struct numaring_config cfg;
	numaring_config_init(&cfg);
	struct numaring *q = numaring_create(&cfg);
	if (!q) {
		fprintf(stderr, "link_check: numaring_create: %s\n", numaring_last_error());
		return 1;
	}
	struct numaring_worker *w = numaring_worker_attach(q);
	void *out = NULL;
	int ok = w && numaring_enqueue(w, (void *)(uintptr_t)42) == 0 &&
		 numaring_dequeue(w, &out) == 0 && (uintptr_t)out == 42 &&
		 numaring_dequeue(w, &out) == -ENOENT;
	numaring_worker_detach(w);
	numaring_destroy(q);
	if (!ok) {
		fprintf(stderr, "link_check: the item did not go through\n");
		return 1;
	}
	if (!stats_add_versions()) {
		fprintf(stderr, "link_check: numaring_stats_add@NUMARING_0.1 and @@NUMARING_0.2 do "
				"not add 0.1's counters and all counters\n");
		return 1;
	}
	printf("link_check: libnumaring.so %d.%d: an item went through; numaring_stats_add "
	       "in its 0.1 and 0.2 versions\n",
	       NUMARING_VERSION_MAJOR, NUMARING_VERSION_MINOR);
	return 0;
}
