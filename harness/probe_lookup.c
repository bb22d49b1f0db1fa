/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_lookup.c - the probe's node look-up costs (lookup_ns): each mode of
 * the library (numaring_lookup) timed in batches on the first CPU, the
 * modes interleaved; a row per mode, "<mode>-unsupported" where the host
 * lacks it. See probe.h.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "errors.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "probe_rows.h"

#define LK_BATCHES_FULL	 31u
#define LK_BATCHES_QUICK 11u
#define LK_PER_FULL	 20000u
#define LK_PER_QUICK	 4000u

enum { LK_LIBNUMA, LK_SYSCALL, LK_TABLE, LK_RSEQ, LK_RDPID, LK_N };
/* The modes timed, and their names: the library's (numaring_lookup_name). */
static const enum numaring_lookup lk_mode[LK_N] = {
    [LK_LIBNUMA] = NUMARING_LOOKUP_LIBNUMA, [LK_SYSCALL] = NUMARING_LOOKUP_SYSCALL,
    [LK_TABLE] = NUMARING_LOOKUP_TABLE,	    [LK_RSEQ] = NUMARING_LOOKUP_RSEQ,
    [LK_RDPID] = NUMARING_LOOKUP_RDPID,
};
#define lk_name(m) numaring_lookup_name(lk_mode[m])

struct lk_arg {
	const int *table; /* CPU -> queue node, NUMARING_MAX_CPUS entries */
	unsigned nb, per;
	int supported[LK_N];
	uint64_t *ticks; /* [LK_N][nb] */
	uint64_t sink;
};

/* One batch of n look-ups of `mode`, timed. The loop runs inside the library
 * (numaring_lab_lookup_run): one call per batch, the look-ups themselves
 * inlined there as in the queue's fast path. */
static uint64_t lk_batch(int mode, unsigned n, const int *table, uint64_t *sink)
{
	uint64_t t0 = hc_now();
	uint64_t s = numaring_lab_lookup_run(lk_mode[mode], n, table, NUMARING_MAX_CPUS);
	uint64_t t1 = hc_now();
	*sink += s;
	return t1 - t0;
}

static void lk_body(void *arg, unsigned idx)
{
	struct lk_arg *a = arg;
	(void)idx;
	a->supported[LK_LIBNUMA] = a->supported[LK_SYSCALL] = a->supported[LK_TABLE] = 1;
	a->supported[LK_RSEQ] = numaring_rseq_node_supported();
	a->supported[LK_RDPID] = numaring_rdpid_supported();
	/* warm-up: one batch of each, then the modes interleaved batch by batch so
	 * that the machine's drift falls on every mode alike */
	for (int m = 0; m < LK_N; m++)
		if (a->supported[m])
			(void)lk_batch(m, a->per, a->table, &a->sink);
	for (unsigned b = 0; b < a->nb; b++)
		for (int m = 0; m < LK_N; m++)
			if (a->supported[m])
				a->ticks[(size_t)m * a->nb + b] =
				    lk_batch(m, a->per, a->table, &a->sink);
}

int hp_probe_lookup(struct hp_probe *p)
{
	struct lk_arg a;
	memset(&a, 0, sizeof a);
	a.nb = p->quick ? LK_BATCHES_QUICK : LK_BATCHES_FULL;
	a.per = p->quick ? LK_PER_QUICK : LK_PER_FULL;
	a.table = p->node_of;
	a.ticks = calloc((size_t)LK_N * a.nb, sizeof *a.ticks);
	double *ns = calloc(a.nb, sizeof *ns);
	int rc = 0;
	if (!a.ticks || !ns) {
		hb_err(p->err, p->errlen, "probe: out of memory for the look-up measurement");
		rc = -ENOMEM;
		goto out;
	}
	hp_progress(p, "lookup: on cpu %d, %u batches of %u look-ups per mode", p->cpu[0], a.nb,
		    a.per);
	rc = hp_gang_run(p, &p->cpu[0], 1, lk_body, &a, "look-up");
	if (rc)
		goto out;
	for (int m = 0; m < LK_N; m++) {
		char method[32];
		struct hp_row *r;
		if (!a.supported[m]) {
			snprintf(method, sizeof method, "%s-unsupported", lk_name(m));
			r = hp_add_row(p, HP_KIND(lookup_ns), "ns", method);
		} else {
			r = hp_add_row(p, HP_KIND(lookup_ns), "ns", lk_name(m));
		}
		if (!r) {
			hb_err(p->err, p->errlen, "probe: out of memory for the result rows");
			rc = -ENOMEM;
			goto out;
		}
		if (!a.supported[m]) {
			hp_progress(p, "lookup %s: unsupported here", lk_name(m));
			continue;
		}
		for (unsigned b = 0; b < a.nb; b++)
			ns[b] = hc_to_ns(a.ticks[(size_t)m * a.nb + b]) / a.per;
		struct hp_stats s = hp_summarise(ns, a.nb);
		r->value = s.med;
		r->spread = s.p90 - s.p10;
		hp_progress(p, "lookup %s: %.2f ns", lk_name(m), s.med);
	}
out:
	free(ns);
	free(a.ticks);
	return rc;
}
