/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numaring_topology.h - the machine as a numaring queue sees it: which CPUs
 * belong to which node, where each node's memory goes, how far nodes are
 * from each other. For programs that place their threads where the queue
 * expects them (one per node, nearest first), and for the harness.
 *
 * Two sources:
 *   discovered  hwloc's NUMA nodes and distances, restricted to the CPUs this
 *               process may run on, with libnuma saying which nodes have
 *               memory this process may use. No NUMA (libnuma unavailable):
 *               one node with every allowed CPU and no placement.
 *   emulated    a string "0-7;8-15": one cpulist per node, separated by ';';
 *               "-" instead of a cpulist is a memory-only node ("0;1;-").
 *               Optionally followed by '|' and the full distance matrix, row
 *               by row, comma separated: "0;1;2|10,16,22,16,10,16,22,16,10".
 *               Without it, distances are 10 (same node) and 20 (other).
 *               Memory placement is then not real (mem_node = -1).
 *
 * Nodes are numbered 0..nnodes-1 in increasing OS node order (in string
 * order when emulated). Nodes with CPUs this process may use become nodes
 * of the queue, and so do memory-only nodes (no CPUs at all, memory allowed):
 * their ring is overflow that producers push to and consumers steal from,
 * nearest first. A node with CPUs but no memory gets its ring's memory from
 * the nearest node with memory. A node whose CPUs are all outside this
 * process's allowed set gets no ring.
 *
 * The struct is plain data, filled by numaring_topology_get(); it is large
 * (about 80 KiB): allocate it, do not put it on a small stack.
 */
#ifndef NUMARING_TOPOLOGY_H
#define NUMARING_TOPOLOGY_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NUMARING_MAX_NODES 64
#define NUMARING_MAX_CPUS CPU_SETSIZE /* 1024: the size of a cpu_set_t */
#define NUMARING_ERRLEN 256           /* room for any error sentence below */

struct numaring_topology {
	unsigned nnodes;
	int emulated;                                     /* 1: from a string */
	int numa_available;                               /* 0: libnuma says no NUMA (one node) */
	cpu_set_t cpus[NUMARING_MAX_NODES];               /* allowed CPUs of each node */
	int os_node[NUMARING_MAX_NODES];                  /* kernel node number; -1 when emulated */
	int mem_node[NUMARING_MAX_NODES];                 /* kernel node for ring memory; -1: not placed */
	int dist[NUMARING_MAX_NODES][NUMARING_MAX_NODES]; /* 10 = same node */
	/* every node of the machine, CPU-less ones included */
	unsigned n_machine_nodes;
	int machine_os_node[NUMARING_MAX_NODES];
	unsigned long long machine_mem_bytes[NUMARING_MAX_NODES]; /* 0: no memory */
	int machine_ncpus[NUMARING_MAX_NODES]; /* all CPUs of the node, allowed or not */
};

/*
 * numaring_topology_get - what numaring_create uses: spec if not NULL, else
 * the NUMARING_TOPOLOGY environment variable if set, else discovery; always
 * restricted to the calling thread's allowed CPUs.
 * Returns 0, or -EINVAL (malformed string, a CPU named twice or not allowed,
 * an allowed CPU no cpulist names) / -ENODEV (discovery failed), with a
 * sentence naming the problem in err (errlen >= NUMARING_ERRLEN holds any).
 */
int numaring_topology_get(const char *spec, struct numaring_topology *t, char *err,
			  size_t errlen);

/*
 * numaring_cpulist_parse - parse "0-3,8,10-11" (len bytes of s) into *out,
 * cleared first. Blanks around numbers are allowed. Refuses empty lists and
 * items, reversed ranges, numbers >= NUMARING_MAX_CPUS, and anything else,
 * with a sentence in err. Returns 0 or -EINVAL.
 */
int numaring_cpulist_parse(const char *s, size_t len, cpu_set_t *out, char *err,
			   size_t errlen);

/* numaring_cpulist_format - "0-3,8" into buf. Returns the length, or -ENOSPC. */
int numaring_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* NUMARING_TOPOLOGY_H */
