/*
 * registry.c - every adapter of harness/peers/, in the order --help lists
 * them, and lookup by name.
 */
#include "peers.h"

const struct hq_ops *const hq_all[] = {
	&hq_numaring, &hq_flat, &hq_ck, &hq_rte, &hq_moodycamel, &hq_urcu, &hq_mutex, &hq_faa,
	NULL,
};

const struct hq_ops *hq_find(const char *name)
{
	for (const struct hq_ops *const *o = hq_all; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}
