/*
 * nr_topology.h - which CPUs belong to which node, where each node's memory
 * goes, and how far nodes are from each other (internal to libnumaring; the
 * harness and the fuzz targets use it too).
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
 */
#ifndef NR_TOPOLOGY_H
#define NR_TOPOLOGY_H

#include <sched.h>
#include <stddef.h>

#define NR_MAX_NODES 64
#define NR_MAX_CPUS CPU_SETSIZE /* 1024: the size of a cpu_set_t */
#define NR_ERRLEN 256

struct nr_topology {
	unsigned nnodes;
	int emulated;                         /* 1: from a string */
	int numa_available;                   /* 0: libnuma says no NUMA (one node) */
	cpu_set_t cpus[NR_MAX_NODES];         /* allowed CPUs of each node */
	int os_node[NR_MAX_NODES];            /* kernel node number; -1 when emulated */
	int mem_node[NR_MAX_NODES];           /* kernel node for the ring memory; -1: not placed */
	int dist[NR_MAX_NODES][NR_MAX_NODES]; /* 10 = same node */
	/* every node of the machine, CPU-less ones included (for --show-topology) */
	unsigned n_machine_nodes;
	int machine_os_node[NR_MAX_NODES];
	unsigned long long machine_mem_bytes[NR_MAX_NODES]; /* 0: no memory */
	int machine_ncpus[NR_MAX_NODES];      /* all CPUs of the node, allowed or not */
};

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
