/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numaring_lab.h - the study's ablations, for the benchmarks and experiments
 * (not for production use: numaring.h is the library).
 *
 * The study behind NumaRing (F1-F5) measured what goes wrong in a NUMA queue
 * built the obvious way: a libnuma look-up on every operation, one gate word
 * that every worker writes for cross-node transfers. This interface builds
 * those variants faithfully so that they can be measured against the fix,
 * plus a plain single ring ("flat") that is NumaRing's per-node ring with no
 * NUMA layer. Symbols are versioned NUMARING_LAB_0.1 and later nodes (see
 * libnumaring.map): they may change with any release.
 *
 * Every variant is compiled as its own specialised enqueue and dequeue,
 * chosen when a worker attaches: a variant pays for its own mode only.
 */
#ifndef NUMARING_LAB_H
#define NUMARING_LAB_H

#include <stdint.h>

#include "numaring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a worker learns which node it is on (ablation "lookup", F1/F2). */
enum numaring_lookup {
	NUMARING_LOOKUP_LIBNUMA, /* numa_node_of_cpu(sched_getcpu()) every operation (study's bug) */
	NUMARING_LOOKUP_SYSCALL, /* raw getcpu system call every operation */
	NUMARING_LOOKUP_TABLE,   /* sched_getcpu() + the cpu-to-node table built at create */
	NUMARING_LOOKUP_CACHED,  /* remembered; re-checked every `recheck` ops and on full/empty (fix) */
	NUMARING_LOOKUP_RSEQ,    /* node_id the kernel keeps in the thread's rseq area (Linux >= 6.3) */
	NUMARING_LOOKUP_RDPID,   /* node Linux stores in TSC_AUX, read with the rdpid instruction */
	NUMARING_LOOKUP_NONE,    /* node found at attach, never looked up again (reference) */
	NUMARING_LOOKUP_AUTO,    /* what numaring_create uses: NONE with one node of CPUs, else
	                            RSEQ where supported, else CACHED */
	NUMARING_LOOKUP_COUNT_
};

/* How cross-node batch transfers are coordinated (ablation "gate", F3). */
enum numaring_gate {
	NUMARING_GATE_SHARED,    /* one gate word for every worker (study's bug) */
	NUMARING_GATE_PERNODE,   /* one gate word per node */
	NUMARING_GATE_PERWORKER, /* each worker's own word on its own line (fix; production) */
	NUMARING_GATE_COUNT_
};

/* The ablations; numaring_lab_init gives the production values. */
struct numaring_lab {
	size_t size;                 /* sizeof(struct numaring_lab): set by numaring_lab_init */
	enum numaring_lookup lookup; /* see enum numaring_lookup (default AUTO) */
	unsigned recheck;            /* CACHED: re-check the node every `recheck` operations (>= 1) */
	enum numaring_gate gate;     /* see enum numaring_gate (default PERWORKER) */
	unsigned linger_us;          /* 0 (default): a consumer whose ring is empty takes
	                                whatever another node has. > 0: it takes only a
	                                full batch, unless it has found nothing for this
	                                many microseconds (then whatever there is): fewer,
	                                fuller cross-node transfers, at the price of up to
	                                linger_us of latency; dequeue may report empty
	                                meanwhile. At most 1,000,000 (F5). */
	/* 0.2: the spin lengths of the backoffs (F4's spin sweep). A lab of the
	   0.1 size, without them, gets the production values. */
	unsigned pause_spin;         /* backoff PAUSE: PAUSE instructions per backoff,
	                                1..NUMARING_LAB_SPIN_MAX; 0 (default): the
	                                production NUMARING_PAUSE_SPIN */
	unsigned exp_cap;            /* backoff EXP: the most PAUSEs one backoff spins
	                                (it doubles from 1 per lost race up to this), a
	                                power of two 1..NUMARING_LAB_SPIN_MAX; 0 (default):
	                                the production NUMARING_EXP_MAX_SPIN */
};

/* The longest spin the lab accepts, in PAUSEs: from about 0.2 ms (10-cycle
 * PAUSE at 3 GHz) to about 5 ms (140 cycles at 2 GHz) per backoff. Longer is no
 * backoff any more but a sleep that spins, and a typo's worth of hang. */
#define NUMARING_LAB_SPIN_MAX 65536u

/* numaring_lab_init - the production values: lookup AUTO, recheck 256,
 * gate PERWORKER, linger 0, pause_spin 0 and exp_cap 0 (the constants). */
void numaring_lab_init(struct numaring_lab *lab);

/*
 * numaring_lab_create - numaring_create with the ablations of *lab (NULL:
 * production values). Errors as numaring_create, plus EINVAL for an
 * unknown lookup or gate, CACHED with recheck 0, linger_us above 1,000,000,
 * pause_spin above NUMARING_LAB_SPIN_MAX, exp_cap not a power of two or
 * above NUMARING_LAB_SPIN_MAX (0 is the default for both; the spin lengths
 * are checked whatever the backoff, so that a sweep fails on its first
 * bad value and not on the first run that uses it).
 */
struct numaring *numaring_lab_create(const struct numaring_config *cfg,
				     const struct numaring_lab *lab);

/*
 * numaring_spin_in_force - the spin lengths the queue's backoffs use, in
 * PAUSEs: *pause_spin for PAUSE, *exp_cap for EXP's cap (the lab's values,
 * 0 resolved to the production constants; the constants for a queue of
 * numaring_create). Either pointer may be NULL. Since NUMARING_LAB_0.2.
 */
void numaring_spin_in_force(const struct numaring *q, unsigned *pause_spin, unsigned *exp_cap);

/* The lookup in force: the configured one; AUTO resolved (NONE where the
 * topology has one node with CPUs); TABLE where RSEQ or RDPID was asked for
 * and is not supported here. */
enum numaring_lookup numaring_lookup_in_force(const struct numaring *q);

/* The gate in force. */
enum numaring_gate numaring_gate_in_force(const struct numaring *q);

/* Address and length of node's ring memory (placement tests); NULL for a
 * bad node index. */
const void *numaring_node_ring(const struct numaring *q, unsigned node, size_t *len);

/* 1 if the kernel fills rseq node_id for this thread (AT_RSEQ_FEATURE_SIZE >= 24
 * and glibc registered rseq), else 0. */
int numaring_rseq_node_supported(void);

/* 1 if this CPU has the rdpid instruction and Linux keeps the CPU in TSC_AUX. */
int numaring_rdpid_supported(void);

/*
 * numaring_lab_lookup_run - make n node look-ups the way `mode` does (LIBNUMA,
 * SYSCALL, TABLE, RSEQ or RDPID; TABLE indexes cpu_table[table_len], the
 * caller's CPU-to-node array) in a tight loop, and return the sum of the
 * answers (so the loop is not optimised away). For timing the look-ups
 * themselves: one call per n. Returns 0 for another mode.
 */
uint64_t numaring_lab_lookup_run(enum numaring_lookup mode, unsigned n, const int *cpu_table,
				 unsigned table_len);

const char *numaring_lookup_name(enum numaring_lookup v); /* "cached"; "?" if unknown */
const char *numaring_gate_name(enum numaring_gate v);     /* "perworker" */
/* Parse a name (exact, lower case). Returns 0, or -EINVAL for an unknown name. */
int numaring_lookup_parse(const char *s, enum numaring_lookup *out);
int numaring_gate_parse(const char *s, enum numaring_gate *out);

/* ---- the path of a dequeue (latency by path) -------------------------------- */

/* Where a dequeue found an item. */
enum numaring_path {
	NUMARING_PATH_LOCAL,    /* the ring of the worker's node */
	NUMARING_PATH_TRANSFER, /* a cross-node batch that this very dequeue took from
	                           another node's ring (the items it handed out at once;
	                           the rest of the batch went into the local ring and
	                           comes out of it as LOCAL, or, where that filled
	                           meanwhile, is held and comes out as HELD) */
	NUMARING_PATH_HELD,     /* held off the rings: by this worker (the rest of one
	                           of its transfers that found no room, see
	                           numaring_dequeue), or left with the queue by a
	                           worker that detached when every ring was full */
	NUMARING_PATH_COUNT_
};

/* The paths of one dequeue's items (numaring_dequeue_paths). */
struct numaring_paths {
	unsigned count[NUMARING_PATH_COUNT_]; /* its items from each path; they add up to n */
	unsigned first[NUMARING_PATH_COUNT_]; /* where each path's items start in its
	                                         items[]: a path's items are consecutive,
	                                         items[first[p] .. first[p] + count[p]);
	                                         0 where count[p] is 0 */
};

/*
 * numaring_dequeue_paths - which paths the worker's last dequeue
 * (numaring_dequeue or numaring_dequeue_burst) served its items from, for
 * latency by path. n: how many items that dequeue returned (1 for a
 * numaring_dequeue that returned 0); ask before the worker's next dequeue
 * (its enqueues in between do not matter).
 * Fills *out. Within one dequeue, items come in one of two orders: held
 * items first, then local ones (the worker held items: they come first, see
 * numaring_dequeue); or local, transfer, held (the local ring was empty:
 * after a re-check of the node, a batch from another node, then what
 * detached workers left). Single and burst dequeues alike.
 *
 * Costs nothing on the fast path: a dequeue served by the local ring alone
 * stores nothing more than it counts anyway; only the slow paths (held
 * items handed out, an empty local ring) note their split, a few stores of
 * the worker's own. So the answer is derived, not stored per dequeue, and n
 * is how it tells the last dequeue from earlier ones.
 *
 * Returns 0, or -EINVAL (out untouched) for n == 0 or an n the worker's
 * last dequeue cannot have returned; not every wrong n is caught (an n
 * smaller than a dequeue served locally reads as all local). The owning
 * thread only, like the worker's operations: nothing here is atomic, and
 * the worker's own fields need no ordering. Since NUMARING_LAB_0.3.
 */
int numaring_dequeue_paths(const struct numaring_worker *w, unsigned n,
			   struct numaring_paths *out);

/* "local", "transfer", "held"; "?" if unknown. Since NUMARING_LAB_0.3. */
const char *numaring_path_name(enum numaring_path v);

/* ---- flat: one ring for every thread, no NUMA layer ---------------------- */

/*
 * The per-node ring of NumaRing used alone (a Vyukov-style bounded MPMC ring
 * with bulk claims), so that numaring against flat measures what the NUMA
 * layer adds or costs. Holds exactly `capacity` items. Each thread attaches
 * a handle (it counts the races the thread lost); operations of different
 * handles may run concurrently.
 */
struct numaring_flat;
struct numaring_flat_handle;

/* NULL + errno EINVAL (capacity not a power of two >= 2) or ENOMEM. The ring
 * is placed as each node's ring of numaring_create: at the start of its own
 * page-aligned mapping. */
struct numaring_flat *numaring_flat_create(size_t capacity);
/* The same, with the ring's cells starting `cells_at` bytes past a page
 * boundary (a multiple of 128 below the page size; numaring_flat_create's
 * is the ring's header size, 384): for measuring how the ring's speed
 * depends on where it lies (make bench-placement). NULL + errno EINVAL
 * (bad capacity or cells_at) or ENOMEM. */
struct numaring_flat *numaring_flat_create_placed(size_t capacity, size_t cells_at);
void numaring_flat_destroy(struct numaring_flat *f);
/* Address and length of the mapping that holds f's ring (whole pages), as
 * numaring_node_ring says a node's: for a caller that asks where its pages
 * lie (numaring-bench --queue-mem counts them). Since NUMARING_LAB_0.3. */
const void *numaring_flat_ring(const struct numaring_flat *f, size_t *len);
/* NULL + errno ENOMEM. */
struct numaring_flat_handle *numaring_flat_attach(struct numaring_flat *f);
void numaring_flat_detach(struct numaring_flat_handle *h);
/* 0, or -ENOBUFS when full. */
int numaring_flat_enqueue(struct numaring_flat_handle *h, void *item);
/* 0, or -ENOENT when empty. */
int numaring_flat_dequeue(struct numaring_flat_handle *h, void **item);
/* How many went in / came out (in order). */
unsigned numaring_flat_enqueue_burst(struct numaring_flat_handle *h, void *const *items,
				     unsigned n);
unsigned numaring_flat_dequeue_burst(struct numaring_flat_handle *h, void **items, unsigned n);
/* Races this handle lost (failed CAS attempts). */
uint64_t numaring_flat_failures(const struct numaring_flat_handle *h);

#ifdef __cplusplus
}
#endif
#endif /* NUMARING_LAB_H */
