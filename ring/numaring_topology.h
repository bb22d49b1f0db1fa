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
 * The struct is plain data, filled by numaring_topology_get_sized(); it is
 * large, sizeof(struct numaring_topology) bytes, most of them
 * NUMARING_MAX_NODES CPU sets of NUMARING_MAX_CPUS / 8 bytes each and the
 * NUMARING_MAX_NODES x NUMARING_MAX_NODES matrix of int distances:
 * allocate it, do not put it on a small stack.
 *
 * ABI: the struct's layout is that of 0.1 and stays so; a later field is
 * added at the end, and a caller says how much of the struct it has by the
 * size it passes (numaring_topology_get_sized), as for the stats.
 *
 * Feature macros: this header defines none. It compiles whatever the
 * includer's feature set; where that declares glibc's cpu_set_t (the
 * includer defined _GNU_SOURCE before its first #include, as C++ compilers
 * do), numaring_cpuset_t is cpu_set_t and <sched.h>'s CPU_* macros apply
 * to the sets; elsewhere numaring_cpuset_isset and numaring_cpuset_count
 * read them (they work in both).
 */
#ifndef NUMARING_TOPOLOGY_H
#define NUMARING_TOPOLOGY_H

#include <sched.h> /* cpu_set_t, where the includer's feature set declares it */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NUMARING_MAX_NODES 64
#define NUMARING_MAX_CPUS 1024 /* CPUs a numaring_cpuset_t holds (glibc's CPU_SETSIZE) */
#define NUMARING_ERRLEN 256    /* room for any error sentence below */

/*
 * numaring_cpuset_t - a set of CPUs 0..NUMARING_MAX_CPUS-1: NUMARING_MAX_CPUS
 * bits in unsigned longs, CPU c in word c / NUMARING_CPUSET_WORD_BITS at bit
 * c % NUMARING_CPUSET_WORD_BITS, the layout of glibc's cpu_set_t. It is
 * cpu_set_t itself where the includer's feature set declares that type
 * (CPU_SETSIZE is then defined), a struct of the same layout elsewhere.
 */
#define NUMARING_CPUSET_WORD_BITS (8 * sizeof(unsigned long))
#ifdef CPU_SETSIZE
typedef cpu_set_t numaring_cpuset_t;
#else
typedef struct numaring_cpuset {
	unsigned long numaring_bits[NUMARING_MAX_CPUS / (8 * sizeof(unsigned long))];
} numaring_cpuset_t;
#endif

/* numaring_cpuset_isset - 1 if CPU cpu is in *set, else 0 (cpu beyond
 * NUMARING_MAX_CPUS included). */
static inline int numaring_cpuset_isset(const numaring_cpuset_t *set, unsigned cpu)
{
	const unsigned long *w = (const unsigned long *)(const void *)set;
	if (cpu >= NUMARING_MAX_CPUS)
		return 0;
	return (int)((w[cpu / NUMARING_CPUSET_WORD_BITS] >> (cpu % NUMARING_CPUSET_WORD_BITS)) & 1ul);
}

/* numaring_cpuset_count - how many CPUs *set holds. */
static inline unsigned numaring_cpuset_count(const numaring_cpuset_t *set)
{
	const unsigned long *w = (const unsigned long *)(const void *)set;
	unsigned n = 0;
	for (size_t i = 0; i < NUMARING_MAX_CPUS / NUMARING_CPUSET_WORD_BITS; i++)
		for (unsigned long x = w[i]; x; x &= x - 1)
			n++;
	return n;
}

struct numaring_topology {
	unsigned nnodes;
	int emulated;                                     /* 1: from a string */
	int numa_available;                               /* 0: libnuma says no NUMA (one node) */
	numaring_cpuset_t cpus[NUMARING_MAX_NODES];       /* allowed CPUs of each node */
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
 * numaring_topology_get_sized - what numaring_create uses, into the first
 * `size` bytes of *t (pass sizeof *t): spec if not NULL, else the
 * NUMARING_TOPOLOGY environment variable if set, else discovery; always
 * restricted to the calling thread's allowed CPUs. A caller built against
 * an older header, with a smaller struct, gets the fields it knows, and no
 * byte of *t past `size` is written.
 * Returns 0, or -EINVAL (size below 0.1's struct or above this library's,
 * *t then untouched; a malformed string, a CPU named twice or not allowed,
 * an allowed CPU no cpulist names) / -ENODEV (discovery failed) / -ENOMEM,
 * with a sentence naming the problem in err (errlen >= NUMARING_ERRLEN holds
 * any). Since NUMARING_0.3.
 */
int numaring_topology_get_sized(const char *spec, struct numaring_topology *t, size_t size,
				char *err, size_t errlen);

/*
 * numaring_topology_get - the 0.1 entry, unsized: numaring_topology_get_sized
 * with the size of 0.1's struct (today's struct is that one). It will never
 * write a field added after 0.1: new code calls numaring_topology_get_sized.
 */
int numaring_topology_get(const char *spec, struct numaring_topology *t, char *err,
			  size_t errlen);

/*
 * numaring_cpulist_parse - parse "0-3,8,10-11" (len bytes of s) into *out,
 * cleared first. Blanks around numbers are allowed. Refuses empty lists and
 * items, reversed ranges, numbers >= NUMARING_MAX_CPUS, and anything else,
 * with a sentence in err. Returns 0 or -EINVAL.
 */
int numaring_cpulist_parse(const char *s, size_t len, numaring_cpuset_t *out, char *err,
			   size_t errlen);

/* numaring_cpulist_format - "0-3,8" into buf. Returns the length, or -ENOSPC. */
int numaring_cpulist_format(const numaring_cpuset_t *set, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* NUMARING_TOPOLOGY_H */
