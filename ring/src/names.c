/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * names.c - one name table per ablation enum. Every binary, CSV row and plot
 * prints and parses the variants through these tables, so a result always
 * says exactly which variant produced it. Production has one ablation enum
 * of its own, the backoff; the look-up and gate tables are the lab's
 * (built with -DNR_LAB only).
 */
#include <errno.h>
#include <string.h>

#include "numaring_lab.h"

#ifdef NR_LAB
static const char *const lookup_names[NUMARING_LOOKUP_COUNT_] = {
	[NUMARING_LOOKUP_LIBNUMA] = "libnuma", [NUMARING_LOOKUP_SYSCALL] = "syscall",
	[NUMARING_LOOKUP_TABLE] = "table",     [NUMARING_LOOKUP_CACHED] = "cached",
	[NUMARING_LOOKUP_RSEQ] = "rseq",       [NUMARING_LOOKUP_RDPID] = "rdpid",
	[NUMARING_LOOKUP_NONE] = "none",       [NUMARING_LOOKUP_AUTO] = "auto",
};

static const char *const gate_names[NUMARING_GATE_COUNT_] = {
	[NUMARING_GATE_SHARED] = "shared",
	[NUMARING_GATE_PERNODE] = "pernode",
	[NUMARING_GATE_PERWORKER] = "perworker",
};

static const char *const path_names[NUMARING_PATH_COUNT_] = {
	[NUMARING_PATH_LOCAL] = "local",
	[NUMARING_PATH_TRANSFER] = "transfer",
	[NUMARING_PATH_HELD] = "held",
};

#endif

static const char *const backoff_names[NUMARING_BACKOFF_COUNT_] = {
	[NUMARING_BACKOFF_NONE] = "none",
	[NUMARING_BACKOFF_PAUSE] = "pause",
	[NUMARING_BACKOFF_EXP] = "exp",
	[NUMARING_BACKOFF_YIELD] = "yield",
	[NUMARING_BACKOFF_ADAPTIVE] = "adaptive",
};

static const char *name_of(const char *const *table, unsigned count, unsigned v)
{
	return v < count ? table[v] : "?";
}

static int parse_in(const char *const *table, unsigned count, const char *s, unsigned *out)
{
	if (!s)
		return -EINVAL;
	for (unsigned i = 0; i < count; i++)
		if (strcmp(s, table[i]) == 0) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

#ifdef NR_LAB
const char *numaring_lookup_name(enum numaring_lookup v)
{
	return name_of(lookup_names, NUMARING_LOOKUP_COUNT_, (unsigned)v);
}

const char *numaring_gate_name(enum numaring_gate v)
{
	return name_of(gate_names, NUMARING_GATE_COUNT_, (unsigned)v);
}

const char *numaring_path_name(enum numaring_path v)
{
	return name_of(path_names, NUMARING_PATH_COUNT_, (unsigned)v);
}

#endif

const char *numaring_backoff_name(enum numaring_backoff v)
{
	return name_of(backoff_names, NUMARING_BACKOFF_COUNT_, (unsigned)v);
}

#ifdef NR_LAB
int numaring_lookup_parse(const char *s, enum numaring_lookup *out)
{
	unsigned v;
	if (parse_in(lookup_names, NUMARING_LOOKUP_COUNT_, s, &v) < 0)
		return -EINVAL;
	*out = (enum numaring_lookup)v;
	return 0;
}

int numaring_gate_parse(const char *s, enum numaring_gate *out)
{
	unsigned v;
	if (parse_in(gate_names, NUMARING_GATE_COUNT_, s, &v) < 0)
		return -EINVAL;
	*out = (enum numaring_gate)v;
	return 0;
}

#endif

int numaring_backoff_parse(const char *s, enum numaring_backoff *out)
{
	unsigned v;
	if (parse_in(backoff_names, NUMARING_BACKOFF_COUNT_, s, &v) < 0)
		return -EINVAL;
	*out = (enum numaring_backoff)v;
	return 0;
}
