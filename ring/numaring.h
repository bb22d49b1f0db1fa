/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numaring.h - a topology-aware, NUMA-local multi-producer multi-consumer queue.
 *
 * One bounded MPMC ring per NUMA node, its memory on that node. A worker
 * enqueues to and dequeues from the ring of the node it runs on. When that
 * ring is full (enqueue) or empty (dequeue), a batch of items moves to or
 * from another node's ring in one transfer, other nodes tried nearest first.
 *
 * Items are opaque pointer-sized values; any value is legal, NULL included.
 *
 * Threads and handles
 *   A thread calls numaring_worker_attach() once and passes the worker to
 *   every operation. A worker belongs to one thread at a time: its operations
 *   must not run concurrently with each other. Different workers may run any
 *   operation concurrently with any other worker's.
 *
 *   | may run concurrently with ->   | create | destroy | attach | detach | enq/deq | stats |
 *   |--------------------------------|--------|---------|--------|--------|---------|-------|
 *   | attach / detach (other worker) |   -    |   no    |  yes   |  yes   |   yes   |  yes  |
 *   | enqueue / dequeue (other wkr)  |   -    |   no    |  yes   |  yes   |   yes   |  yes  |
 *   | stats (same worker)            |   -    |   no    |  yes   |  no    |   no    |  yes  |
 *
 * Ordering
 *   Each node's ring is FIFO: items one worker enqueues on a node come out
 *   of that node's ring in the order they went in, and a burst keeps its
 *   order. Across nodes there is no order: a batch moved to another node
 *   is dequeued there, after or before items that were already there. A
 *   worker that took a batch but found its own ring full hands the rest out
 *   first (its next dequeues), newest of them first (LIFO among held items).
 *
 * Progress
 *   No lock, no system call and no allocation on any enqueue or dequeue
 *   (the rare cross-node transfer included). As in DPDK's rte_ring and
 *   Vyukov's bounded queue, a thread preempted between claiming a slot and
 *   publishing it delays the threads that reach that slot next; nothing
 *   else can stall an operation. Such a wait spins for a few microseconds
 *   and then yields the CPU (and naps after a while), so that a preempted
 *   thread gets to run when threads outnumber CPUs.
 *
 * Configuration
 *   numaring_config_init() gives the production configuration: on a
 *   machine (or topology) with one node of CPUs the worker's node cannot
 *   change and is never looked up after attach; on several it is read from
 *   the kernel's rseq area where the kernel keeps it there (Linux >= 6.3),
 *   else cached and re-checked every 256 operations and whenever the local
 *   ring is full or empty; cross-node transfers
 *   coordinate through each worker's own word (no line that every worker
 *   writes). Each worker runs an enqueue and dequeue specialised for that
 *   configuration, chosen at attach. The study's ablations (other look-ups,
 *   shared gates) are in numaring_lab.h, for the benchmarks only.
 *
 * ABI
 *   Structs the caller passes in or gets out carry their size: a program
 *   built against an older, smaller struct keeps working with a newer
 *   library (fields it does not know take their defaults, counters it does
 *   not know are not written). The library takes any size from the first
 *   release's, a number frozen when it shipped, up to its own. Symbols are
 *   versioned (libnumaring.map); a function whose meaning changes keeps
 *   its old version beside the new. docs/ring.md, "ABI", says what holds
 *   and how it is tested.
 *
 * Errors
 *   The library never prints and never exits. Functions return -errno or
 *   NULL + errno; numaring_last_error() gives a sentence naming the problem.
 */
#ifndef NUMARING_H
#define NUMARING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NUMARING_VERSION_MAJOR 0
#define NUMARING_VERSION_MINOR 3

/* What a worker does after losing a race for a slot (another worker's CAS
 * won). NONE retries at once. PAUSE and EXP calm a line that workers of one
 * node hammer; YIELD gives the CPU away (a system call) when workers
 * outnumber CPUs.
 *
 * The default is ADAPTIVE (NUMARING_BACKOFF_DEFAULT), chosen by make
 * bench-backoff (scripts/runner/bench_backoff.py: every backoff against none
 * and against the best of them, single operations, 2 threads, medians of 10
 * shuffled interleaved rounds; the evidence is the CSV it writes,
 * results/<host>/bench/bench-backoff.csv, and docs/ring.md's "The default
 * backoff" reads it). The target (issue 45): within 10% of the best
 * backoff where races are lost (pairs and mixed), and no more than 5%
 * below none where they are not or seldom are (prodcons, local work). A
 * backoff runs only after a lost race, so it costs nothing where races are
 * not lost (prodcons at 1P1C lost none: every backoff "not exercised").
 * Where they are, without local work, two workers that keep meeting on one
 * line do best when one of them stays away long enough for the other to
 * run alone: a fixed PAUSE or EXP's per-operation doubling (which starts
 * again at one PAUSE every operation, and so stays short) left most of the
 * throughput unused, and YIELD (a system call) got part of it. ADAPTIVE
 * keeps its length across operations, so sustained contention reaches
 * the cap and a calm spell starts again at one PAUSE. On the AMD EPYC
 * f26m2 VM (2 vCPUs) it was the best of the five in pairs and mixed, and
 * with 300 ns of local work within the noise of none; on the Intel hosts
 * it has not been measured yet (the previous default, EXP, was chosen
 * there from the F4 sweeps, where it "lost on neither CPU").
 * NONE stays for programs whose workers never share a slot's line. */
enum numaring_backoff {
	NUMARING_BACKOFF_NONE,  /* retry at once */
	NUMARING_BACKOFF_PAUSE, /* a fixed spin of NUMARING_PAUSE_SPIN PAUSE instructions */
	NUMARING_BACKOFF_EXP,   /* PAUSE spin doubling per lost race of one operation, 1 to
	                           NUMARING_EXP_MAX_SPIN (the lab may set both lengths:
	                           numaring_lab.h) */
	NUMARING_BACKOFF_YIELD, /* sched_yield() */
	NUMARING_BACKOFF_ADAPTIVE, /* EXP whose length is the worker's: doubling per race lost
	                              soon after its last backoff, 1 to NUMARING_EXP_MAX_SPIN,
	                              back to 1 after a calm spell (docs/ring.md); the default */
	NUMARING_BACKOFF_COUNT_
};

/* The production default of numaring_config_init (above: why). */
#define NUMARING_BACKOFF_DEFAULT NUMARING_BACKOFF_ADAPTIVE

#define NUMARING_PAUSE_SPIN 32u
#define NUMARING_EXP_MAX_SPIN 1024u

struct numaring_config {
	size_t size;                   /* sizeof(struct numaring_config): set by numaring_config_init */
	size_t capacity;               /* slots per node ring; a power of two >= 2 */
	unsigned batch;                /* items per cross-node transfer, 1..capacity */
	enum numaring_backoff backoff; /* see enum numaring_backoff */
	const char *topology;          /* NULL: NUMARING_TOPOLOGY if set, else discover.
	                                  "0-7;8-15": one cpulist per emulated node
	                                  (numaring_topology.h) */
};

/* Per-worker counters. Written only by the owning thread. New counters are
 * added at the end (see numaring_worker_stats); the comment says the release
 * that added them.
 *
 * Time in backoff (backoff_ns_race, backoff_ns_gate) is sampled, so that
 * measuring it costs two clock reads on one backoff in 16 (not counted in
 * the time) and nothing on an operation that wins its race: each backoff
 * is timed with probability 1/16 (a per-worker pseudo-random draw,
 * independent of the attempt number, so that no periodic pattern of
 * backoffs is seen through the sample) and a timed one adds 16 times its
 * duration. The sum is an unbiased estimate;
 * its relative standard error is about sqrt(15 (1 + cv^2) / n) for n
 * backoffs whose durations have coefficient of variation cv: about 12% at
 * 1,000 backoffs of equal length, 1.2% at 100,000. A timed backoff is
 * measured between two CLOCK_MONOTONIC reads less the cost of one read
 * (the shortest of 32 back-to-back pairs, measured at create), so a single
 * timing is good to the clock's jitter, some ns: comparable to one PAUSE
 * on some CPUs, which is the first backoff of EXP. Backoff NONE runs no
 * backoff and leaves both at 0. */
struct numaring_stats {
	uint64_t enqueued;        /* items this worker put into the queue */
	uint64_t dequeued;        /* items this worker took out of the queue */
	uint64_t local_ops;       /* items served by the ring of the worker's own node */
	uint64_t batches_out;     /* transfers that moved items from the worker's node to another */
	uint64_t batches_in;      /* transfers that moved items from another node to the worker's */
	uint64_t items_out;       /* items moved by batches_out */
	uint64_t items_in;        /* items moved by batches_in */
	uint64_t lookups;         /* node look-ups through the CPU table or a system call
	                             (re-checks; not the rseq read every operation makes) */
	uint64_t node_changes;    /* look-ups whose answer differed from the previous node */
	uint64_t failed_attempts; /* lost races on a ring index: a CAS that failed, or a
	                             position another worker had taken (each is followed
	                             by a backoff). Not a full or empty ring (the call
	                             returns), not a gate found held (gate_waits) */
	uint64_t gate_waits;      /* transfers that found the gate held by another worker */
	/* 0.2 */
	uint64_t gate_backoffs;   /* backoffs run between the polls of gate waits (none with
	                             backoff NONE; none after a wait's spinning budget,
	                             when it yields instead) */
	uint64_t backoff_ns_race; /* ns spent in backoff after lost races (sampled: above) */
	uint64_t backoff_ns_gate; /* ns spent in backoff inside gate waits (sampled); not
	                             the wait's own polls, yields and naps */
};

struct numaring;
struct numaring_worker;

/*
 * numaring_config_init - fill *cfg with the defaults: size, capacity 1024,
 * batch 32, backoff NUMARING_BACKOFF_DEFAULT (ADAPTIVE), topology NULL. With no other change
 * numaring_create() works on any Linux machine. Always start from it: a
 * config whose size is not set is refused.
 */
void numaring_config_init(struct numaring_config *cfg);

/*
 * numaring_create - discover the topology (or parse the emulated one) and
 * allocate one ring per node that has CPUs, its memory on that node (or on
 * the nearest node with memory), plus one per memory-only node. "Allowed
 * CPUs" are those the calling thread may run on (sched_getaffinity): create
 * the queue before pinning threads.
 *
 * Returns the queue, or NULL with errno:
 *   EINVAL  the config is invalid (size not set by numaring_config_init,
 *           capacity not a power of two >= 2, batch 0 or > capacity, unknown
 *           backoff, a malformed
 *           topology string, a CPU named twice or not allowed to this process,
 *           an allowed CPU that no cpulist names); nothing is allocated.
 *   ENOMEM  an allocation failed; nothing is leaked.
 *   ENODEV  topology discovery failed.
 * numaring_last_error() then says which.
 * May be called from any thread, concurrently with anything but itself on
 * the same config storage.
 */
struct numaring *numaring_create(const struct numaring_config *cfg);

/*
 * numaring_destroy - free the queue. Every worker must be detached, or at
 * least quiescent: workers still attached are freed with the queue and their
 * handles become invalid. Items still inside are dropped (they are the
 * caller's values; nothing is done to them). NULL is a no-op.
 */
void numaring_destroy(struct numaring *q);

/*
 * numaring_worker_attach - make a worker handle for the calling thread, with
 * its node found now and its operations chosen for the queue's
 * configuration. One per thread; it may be handed to another thread only
 * while unused (it follows the thread's node by itself).
 * Returns NULL with errno ENOMEM when allocation fails.
 */
struct numaring_worker *numaring_worker_attach(struct numaring *q);

/*
 * numaring_worker_detach - release a worker. Items it still holds from an
 * interrupted transfer (see numaring_dequeue) are put back into a ring, or,
 * if every ring is full, into the queue's overflow list where dequeues find
 * them; none is lost. NULL is a no-op.
 *
 * A thread that exits without detaching loses nothing as long as another
 * thread detaches its handle later (the held items move then). A thread
 * killed *inside* an operation (pthread_cancel, a signal handler that never
 * returns) is another matter, as for every lock-free ring of this family
 * (Vyukov's, DPDK's rte_ring): a slot it had claimed but not yet published
 * stays claimed, and a gate it held stays held, so its ring, or the
 * transfers behind that gate, wait for it for ever. Do not cancel a thread
 * while it is in a numaring call.
 */
void numaring_worker_detach(struct numaring_worker *w);

/*
 * numaring_enqueue - put item into the ring of the worker's node. If that
 * ring is full, move a batch of its oldest items to the nearest node's ring
 * that has room, then retry; if no other ring has room for a batch, put the
 * item straight into any ring with a free slot.
 * Returns 0, or -ENOBUFS when no ring had room.
 */
int numaring_enqueue(struct numaring_worker *w, void *item);

/*
 * numaring_dequeue - take an item, into *item. Items the worker holds from
 * its own previous transfer come first, then its node's ring; if that is
 * empty, a batch is taken from the nearest non-empty node's ring: one item
 * is returned, the rest go into the local ring (any that do not fit because
 * producers filled it meanwhile are held by this worker and returned by its
 * next dequeues, or put back by its next enqueue or its detach).
 * Returns 0, or -ENOENT when nothing was found anywhere.
 */
int numaring_dequeue(struct numaring_worker *w, void **item);

/*
 * numaring_enqueue_burst - enqueue up to n items in order, as many as there
 * is room for, moving batches across nodes as numaring_enqueue does.
 * Returns how many went in (the first that many of items[]).
 */
unsigned numaring_enqueue_burst(struct numaring_worker *w, void *const *items, unsigned n);

/*
 * numaring_dequeue_burst - dequeue up to n items into items[]. Takes from the
 * local ring first; only when it gives nothing is a batch taken from
 * another node. Returns how many came out (0: nothing found anywhere).
 */
unsigned numaring_dequeue_burst(struct numaring_worker *w, void **items, unsigned n);

/* numaring_node_count - number of rings (nodes with CPUs) in the queue. */
unsigned numaring_node_count(const struct numaring *q);

/* numaring_worker_node - the node index this worker last routed to. */
int numaring_worker_node(const struct numaring_worker *w);

/*
 * numaring_worker_stats - copy the worker's counters into *out, of size
 * out_size (pass sizeof *out): a caller built with an older, smaller struct
 * gets the counters it knows. Call it from the owning thread, or from
 * another one after synchronising with the owner (for example after
 * pthread_join); the counters are not atomic.
 */
void numaring_worker_stats(const struct numaring_worker *w, struct numaring_stats *out,
			   size_t out_size);

/*
 * numaring_stats_add - acc += s (for summing workers), unsized: it assumes
 * the struct of the release the program was linked against. Its 0.1 entry
 * (NUMARING_0.1, what programs linked against 0.1 call) adds 0.1's counters,
 * up to gate_waits; programs linked since get NUMARING_0.2's, which adds
 * 0.2's, every counter this header declares today. Neither writes past its
 * release's struct, and neither will add a counter added later: new code
 * calls numaring_stats_add_sized(acc, s, sizeof *acc). Touches nothing
 * else; any thread, on storage no other thread is writing.
 */
void numaring_stats_add(struct numaring_stats *acc, const struct numaring_stats *s);

/*
 * numaring_stats_add_sized - acc += s for the counters that lie wholly
 * within the first `size` bytes of the struct (pass sizeof *acc, the size
 * both were declared with): a caller with an older, smaller struct adds the
 * counters it knows, and the bytes of acc beyond `size` are neither read
 * nor written, nor are those of s. A size above this library's struct adds
 * the counters the library knows. Since NUMARING_0.2.
 */
void numaring_stats_add_sized(struct numaring_stats *acc, const struct numaring_stats *s,
			      size_t size);

/* ---- what the queue is running with ---------------------------------- */

/* numaring_topology_emulated - 1 if nodes come from a topology string
 * (memory placement then not real), 0 if discovered from the machine. */
int numaring_topology_emulated(const struct numaring *q);

/* numaring_node_cpus - write node's CPU list ("0-3,8") into buf; returns the
 * number of CPUs, or -EINVAL for a bad node index, -ENOSPC if buf is short. */
int numaring_node_cpus(const struct numaring *q, unsigned node, char *buf, size_t len);

/* numaring_node_os_index - the OS (kernel) number of the node, -1 if emulated. */
int numaring_node_os_index(const struct numaring *q, unsigned node);

/* numaring_node_memory - the OS node the ring's memory was placed on, -1 if
 * placement is not real (emulated topology, or no NUMA support). */
int numaring_node_memory(const struct numaring *q, unsigned node);

/* numaring_node_distance - distance from node a to node b (10 = local), as
 * the firmware reports it; emulated topologies use 10 and 20. -1 on bad index. */
int numaring_node_distance(const struct numaring *q, unsigned a, unsigned b);

/* ---- names ---------------------------------------------------------------- */

/* "exp"; "?" if unknown. */
const char *numaring_backoff_name(enum numaring_backoff v);
/* Parse a name (exact, lower case). Returns 0, or -EINVAL for an unknown name. */
int numaring_backoff_parse(const char *s, enum numaring_backoff *out);

/*
 * numaring_last_error - a sentence describing the last failure of a
 * numaring_* call in this thread ("" if none). Valid until the next call.
 */
const char *numaring_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* NUMARING_H */
