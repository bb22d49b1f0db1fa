/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * registry.c - every adapter of harness/peers/, in the order --help lists
 * them (the fault adapters of the harness's own tests last), lookup by
 * name, and the helpers of queue.h.
 */
#include "peers.h"

const struct hq_ops *const hq_all[] = {
	&hq_numaring, &hq_flat,  &hq_ck,    &hq_rte, &hq_moodycamel, &hq_boost,
	&hq_tbb,      &hq_scq,   &hq_lcrq, &hq_xenium_ms, &hq_xenium_ramalhete, &hq_xenium_kfifo,
	&hq_sharded, &hq_urcu, &hq_mutex, &hq_faa,     &hq_null,
	&hq_fault_drop, &hq_fault_dup, &hq_fault_corrupt, &hq_fault_reorder, NULL,
};

const struct hq_ops *hq_find(const char *name)
{
	for (const struct hq_ops *const *o = hq_all; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}

int hq_takes(const struct hq_ops *o, const char *name)
{
	for (const char *const *s = o->settings; s && *s; s++)
		if (strcmp(*s, name) == 0)
			return 1;
	return 0;
}

const char *hq_setting(const struct hq_params *p, const char *name)
{
	for (unsigned i = 0; i < p->nsettings; i++)
		if (strcmp(p->settings[i].name, name) == 0)
			return p->settings[i].value;
	return NULL;
}

static const char *const stat_names[HQ_STAT_COUNT_] = {
#define HQ_STAT_NAME(n) #n,
	HQ_STATS(HQ_STAT_NAME)
#undef HQ_STAT_NAME
};

const char *hq_stat_name(enum hq_stat s)
{
	return (unsigned)s < HQ_STAT_COUNT_ ? stat_names[s] : "?";
}

static const char *const path_names[HQ_PATH_COUNT_] = {
#define HQ_PATH_NAME(n) #n,
	HQ_PATHS(HQ_PATH_NAME)
#undef HQ_PATH_NAME
};

const char *hq_path_name(enum hq_path p)
{
	return (unsigned)p < HQ_PATH_COUNT_ ? path_names[p] : "?";
}
