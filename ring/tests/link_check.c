/*
 * link_check.c - a program that uses libnumaring as a user's program does:
 * only <numaring.h>, linked with -lnumaring against the shared library (see
 * the Makefile's test-ring). Exit 0 and one line when an item goes through.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "numaring.h"
#include "numaring_lab.h"

int main(void)
{
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	struct numaring *q = numaring_lab_create(&cfg, &lab);
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
	printf("link_check: libnumaring.so %d.%d: an item went through\n", NUMARING_VERSION_MAJOR,
	       NUMARING_VERSION_MINOR);
	return 0;
}
