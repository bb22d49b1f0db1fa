/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_abi.h - the sizes of the public structs as each release shipped them,
 * frozen as numbers, and the static asserts that today's declarations still
 * have them (private to libnumaring; ring/tests/test_abi_old.c includes it
 * too, against the copy of the 0.1 headers in ring/tests/abi-0.1/).
 *
 * Why numbers: a size written as sizeof or offsetof of today's struct moves
 * when the struct does, and "the first release's size" then refuses the
 * very callers it names. These are what programs built against each
 * release have compiled in; they never change. A struct that grows gets a
 * new line here with its release's size, the asserts below keep every
 * older field where it was, and the library accepts any size from the
 * first release's up to its own (create: take_sized in lifecycle.c; the
 * topology: numaring_topology_get_sized; the stats: whole counters within
 * the caller's size).
 *
 * The numbers are those of LP64 Linux (x86-64, aarch64, and the other
 * 64-bit ones): the ABI the library was released and tested on. Another
 * data model lays the structs out differently (size_t and pointers of 4
 * bytes; unsigned long long aligned to 4 or 8 by the ABI), so its numbers
 * are to be recorded from a build of ring/tests/abi-0.1 there, not guessed.
 */
#ifndef NR_ABI_H
#define NR_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "numaring.h"
#include "numaring_lab.h"
#include "numaring_topology.h"

#if !(defined(__LP64__) || defined(_LP64)) || UINTPTR_MAX != UINT64_MAX
#error "numaring's frozen struct sizes are recorded for LP64 only (ring/src/nr_abi.h)"
#endif

/* struct numaring_config: size, capacity, batch, backoff, topology. */
#define NR_CONFIG_SIZE_0_1 32u
/* struct numaring_stats: 0.1's 11 counters (enqueued .. gate_waits); 0.2
 * added gate_backoffs, backoff_ns_race, backoff_ns_gate. */
#define NR_STATS_SIZE_0_1 88u
#define NR_STATS_SIZE_0_2 112u
/* struct numaring_lab: 0.1 ends at linger_us; 0.2 added pause_spin, exp_cap. */
#define NR_LAB_SIZE_0_1 24u
#define NR_LAB_SIZE_0_2 32u
/* struct numaring_topology: 0.1's, written whole by numaring_topology_get. */
#define NR_TOPOLOGY_SIZE_0_1 26136u

/* The newest release's size of each: the largest a caller may pass. */
#define NR_CONFIG_SIZE_NEWEST NR_CONFIG_SIZE_0_1
#define NR_STATS_SIZE_NEWEST NR_STATS_SIZE_0_2
#define NR_LAB_SIZE_NEWEST NR_LAB_SIZE_0_2
#define NR_TOPOLOGY_SIZE_NEWEST NR_TOPOLOGY_SIZE_0_1

/* ---- the fields of 0.1 where 0.1 had them --------------------------------- */

#define NR_ABI_AT(type, field, off)                                                         \
	_Static_assert(offsetof(struct type, field) == (off),                               \
		       #type "." #field " is no longer at offset " #off " (its 0.1 place)")

NR_ABI_AT(numaring_config, size, 0);
NR_ABI_AT(numaring_config, capacity, 8);
NR_ABI_AT(numaring_config, batch, 16);
NR_ABI_AT(numaring_config, backoff, 20);
NR_ABI_AT(numaring_config, topology, 24);
_Static_assert(sizeof(size_t) == 8 && sizeof(enum numaring_backoff) == 4 &&
		       sizeof(const char *) == 8,
	       "numaring_config's 0.1 fields keep their widths");
_Static_assert(offsetof(struct numaring_config, topology) + sizeof(const char *) ==
		       NR_CONFIG_SIZE_0_1,
	       "numaring_config's 0.1 fields end at NR_CONFIG_SIZE_0_1");

NR_ABI_AT(numaring_stats, enqueued, 0);
NR_ABI_AT(numaring_stats, dequeued, 8);
NR_ABI_AT(numaring_stats, local_ops, 16);
NR_ABI_AT(numaring_stats, batches_out, 24);
NR_ABI_AT(numaring_stats, batches_in, 32);
NR_ABI_AT(numaring_stats, items_out, 40);
NR_ABI_AT(numaring_stats, items_in, 48);
NR_ABI_AT(numaring_stats, lookups, 56);
NR_ABI_AT(numaring_stats, node_changes, 64);
NR_ABI_AT(numaring_stats, failed_attempts, 72);
NR_ABI_AT(numaring_stats, gate_waits, 80);
_Static_assert(offsetof(struct numaring_stats, gate_waits) + sizeof(uint64_t) ==
		       NR_STATS_SIZE_0_1,
	       "numaring_stats's 0.1 counters end at NR_STATS_SIZE_0_1");

NR_ABI_AT(numaring_lab, size, 0);
NR_ABI_AT(numaring_lab, lookup, 8);
NR_ABI_AT(numaring_lab, recheck, 12);
NR_ABI_AT(numaring_lab, gate, 16);
NR_ABI_AT(numaring_lab, linger_us, 20);
_Static_assert(offsetof(struct numaring_lab, linger_us) + sizeof(unsigned) == NR_LAB_SIZE_0_1,
	       "numaring_lab's 0.1 fields end at NR_LAB_SIZE_0_1");

/* The topology: 64 nodes, CPU sets of 1024 bits. */
_Static_assert(NUMARING_MAX_NODES == 64 && NUMARING_MAX_CPUS == 1024,
	       "numaring_topology's arrays keep their 0.1 lengths");
_Static_assert(sizeof(((const struct numaring_topology *)0)->cpus[0]) == NUMARING_MAX_CPUS / 8,
	       "a node's CPU set is NUMARING_MAX_CPUS bits, as 0.1's cpu_set_t");
NR_ABI_AT(numaring_topology, nnodes, 0);
NR_ABI_AT(numaring_topology, emulated, 4);
NR_ABI_AT(numaring_topology, numa_available, 8);
NR_ABI_AT(numaring_topology, cpus, 16);
NR_ABI_AT(numaring_topology, os_node, 8208);
NR_ABI_AT(numaring_topology, mem_node, 8464);
NR_ABI_AT(numaring_topology, dist, 8720);
NR_ABI_AT(numaring_topology, n_machine_nodes, 25104);
NR_ABI_AT(numaring_topology, machine_os_node, 25108);
NR_ABI_AT(numaring_topology, machine_mem_bytes, 25368);
NR_ABI_AT(numaring_topology, machine_ncpus, 25880);
_Static_assert(offsetof(struct numaring_topology, machine_ncpus) + NUMARING_MAX_NODES * sizeof(int) ==
		       NR_TOPOLOGY_SIZE_0_1,
	       "numaring_topology's 0.1 fields end at NR_TOPOLOGY_SIZE_0_1");

/* ---- the fields of 0.2 where 0.2 had them --------------------------------- */

NR_ABI_AT(numaring_stats, gate_backoffs, 88);
NR_ABI_AT(numaring_stats, backoff_ns_race, 96);
NR_ABI_AT(numaring_stats, backoff_ns_gate, 104);
NR_ABI_AT(numaring_lab, pause_spin, 24);
NR_ABI_AT(numaring_lab, exp_cap, 28);

/* ---- today's structs are the newest release's ------------------------------
 * Not checked against an older copy of the headers (ring/tests/abi-0.1 defines
 * NR_ABI_OLD_HEADERS): there the structs are the older release's. A field added
 * to a struct fails here until its release's size is written above and made
 * the NEWEST. */
#ifndef NR_ABI_OLD_HEADERS
_Static_assert(sizeof(struct numaring_config) == NR_CONFIG_SIZE_NEWEST,
	       "numaring_config changed size: write its release's NR_CONFIG_SIZE_x_y, and give "
	       "numaring_config_init a new symbol version (its 0.1 entry writes 0.1's size)");
_Static_assert(sizeof(struct numaring_stats) == NR_STATS_SIZE_NEWEST,
	       "numaring_stats changed size: write its release's NR_STATS_SIZE_x_y");
_Static_assert(sizeof(struct numaring_lab) == NR_LAB_SIZE_NEWEST,
	       "numaring_lab changed size: write its release's NR_LAB_SIZE_x_y");
_Static_assert(sizeof(struct numaring_topology) == NR_TOPOLOGY_SIZE_NEWEST,
	       "numaring_topology changed size: write its release's NR_TOPOLOGY_SIZE_x_y");
#endif

#endif /* NR_ABI_H */
