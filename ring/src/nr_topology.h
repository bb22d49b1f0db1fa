/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_topology.h - topology discovery and parsing (private to libnumaring;
 * the fuzz targets use it too). What the topology is and how a string
 * describes it: ../numaring_topology.h, whose struct this is.
 */
#ifndef NR_TOPOLOGY_H
#define NR_TOPOLOGY_H

#include <stddef.h>

#include "numaring_topology.h"

#define NR_MAX_NODES NUMARING_MAX_NODES
#define NR_MAX_CPUS NUMARING_MAX_CPUS
#define NR_ERRLEN NUMARING_ERRLEN

/* the library's own name for the public struct */
#define nr_topology numaring_topology

/*
 * nr_cpulist_parse - parse "0-3,8,10-11" into *out (cleared first). Blanks
 * around numbers are allowed. Refuses empty lists and items, reversed ranges,
 * numbers >= NR_MAX_CPUS, and anything else, with a sentence in err.
 * Returns 0 or -EINVAL.
 */
int nr_cpulist_parse(const char *s, size_t len, cpu_set_t *out, char *err, size_t errlen);

/* nr_cpulist_format - "0-3,8" into buf. Returns the length, or -ENOSPC. */
int nr_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/*
 * nr_topology_parse - parse an emulated topology string (see above) into *t.
 * Checks every cpulist, that no CPU is named twice, that the node count is
 * within NR_MAX_NODES, and the distance matrix (n*n values in 1..255, 10 on
 * the diagonal and above it elsewhere). Does not check against the allowed
 * CPUs: see nr_topology_check_allowed. Returns 0 or -EINVAL with err set.
 */
int nr_topology_parse(const char *spec, struct nr_topology *t, char *err, size_t errlen);

/*
 * nr_topology_check_allowed - an emulated topology must name only CPUs this
 * process may use, and every such CPU. Returns 0 or -EINVAL with err set.
 */
int nr_topology_check_allowed(const struct nr_topology *t, const cpu_set_t *allowed, char *err,
			      size_t errlen);

/*
 * nr_topology_discover - the machine's topology restricted to *allowed.
 * Returns 0, or -ENODEV with err set when hwloc fails.
 */
int nr_topology_discover(struct nr_topology *t, const cpu_set_t *allowed, char *err,
			 size_t errlen);

/*
 * nr_topology_get - what numaring_create uses: spec if not NULL, else the
 * NUMARING_TOPOLOGY environment variable if set, else discovery; always
 * restricted to the calling thread's allowed CPUs.
 * Returns 0 or -EINVAL / -ENODEV with err set.
 */
int nr_topology_get(const char *spec, struct nr_topology *t, char *err, size_t errlen);

/* nr_topology_order - the other nodes of `node`, nearest first (ties: the
 * next node numbers after `node` first, so neighbours spread the load). */
void nr_topology_order(const struct nr_topology *t, unsigned node, unsigned char *order);

#endif /* NR_TOPOLOGY_H */
