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
 * Progress
 *   The lock-free modes (gate PERWORKER) take no lock, make no system call
 *   and allocate nothing on the fast path, with lookup NONE, CACHED, TABLE,
 *   RSEQ or RDPID (LIBNUMA and SYSCALL are system calls by definition; YIELD
 *   backoff calls sched_yield after a failed attempt). As in DPDK's rte_ring
 *   and Vyukov's bounded queue, a thread preempted between claiming a slot
 *   and publishing it delays the threads that reach that slot next; nothing
 *   else can stall an operation. Gates SHARED and PERNODE serialise the
 *   cross-node slow path on one word that every worker (of a node) writes:
 *   that is the study's finding F3 built faithfully so it can be measured.
 *   The word is taken by whoever runs (test-and-set), and every wait spins
 *   for a time budget and then yields, so a preempted thread slows the
 *   others but never stalls them (bench-oversub measures it).
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
#define NUMARING_VERSION_MINOR 1

/* How a worker learns which node it is on (ablation "lookup"). */
enum numaring_lookup {
	NUMARING_LOOKUP_LIBNUMA, /* numa_node_of_cpu(sched_getcpu()) every operation (study's bug) */
	NUMARING_LOOKUP_SYSCALL, /* raw getcpu system call every operation */
	NUMARING_LOOKUP_TABLE,   /* sched_getcpu() + the cpu-to-node table built at create */
	NUMARING_LOOKUP_CACHED,  /* remembered; re-checked every `recheck` ops and on full/empty (fix) */
	NUMARING_LOOKUP_RSEQ,    /* node_id the kernel keeps in the thread's rseq area (Linux >= 6.3) */
	NUMARING_LOOKUP_RDPID,   /* node Linux stores in TSC_AUX, read with the rdpid instruction */
	NUMARING_LOOKUP_NONE,    /* node found at attach, never looked up again (reference) */
	NUMARING_LOOKUP_COUNT_
};

/* How cross-node batch transfers are coordinated (ablation "gate"). */
enum numaring_gate {
	NUMARING_GATE_SHARED,    /* one gate word for every worker (study's bug) */
	NUMARING_GATE_PERNODE,   /* one gate word per node */
	NUMARING_GATE_PERWORKER, /* each worker's own counter on its own line (fix) */
	NUMARING_GATE_COUNT_
};

/* What a worker does after a failed attempt (ablation "backoff"). */
enum numaring_backoff {
	NUMARING_BACKOFF_NONE,  /* retry at once */
	NUMARING_BACKOFF_PAUSE, /* a fixed spin of NUMARING_PAUSE_SPIN PAUSE instructions */
	NUMARING_BACKOFF_EXP,   /* exponential PAUSE spin, 1 doubling to NUMARING_EXP_MAX_SPIN */
	NUMARING_BACKOFF_YIELD, /* sched_yield() */
	NUMARING_BACKOFF_COUNT_
};

#define NUMARING_PAUSE_SPIN 32u
#define NUMARING_EXP_MAX_SPIN 1024u

struct numaring_config {
	size_t capacity;               /* slots per node ring; a power of two >= 2 */
	unsigned batch;                /* items per cross-node transfer, 1..capacity */
	enum numaring_lookup lookup;   /* see enum numaring_lookup */
	unsigned recheck;              /* CACHED: re-check the node every `recheck` operations (>= 1) */
	enum numaring_gate gate;       /* see enum numaring_gate */
	enum numaring_backoff backoff; /* see enum numaring_backoff */
	const char *topology;          /* NULL: NUMARING_TOPOLOGY if set, else discover.
	                                  "0-7;8-15": one cpulist per emulated node. */
	unsigned linger_us;            /* 0 (default): a consumer whose ring is empty takes
	                                  whatever another node has. > 0: it takes only a
	                                  full batch, unless it has found nothing for this
	                                  many microseconds (then whatever there is): fewer,
	                                  fuller cross-node transfers, at the price of up to
	                                  linger_us of latency; dequeue may report empty
	                                  meanwhile. At most 1,000,000. */
};

/* Per-worker counters. Written only by the owning thread. */
struct numaring_stats {
	uint64_t enqueued;        /* items this worker put into the queue */
	uint64_t dequeued;        /* items this worker took out of the queue */
	uint64_t local_ops;       /* items served by the ring of the worker's own node */
	uint64_t batches_out;     /* transfers that moved items from the worker's node to another */
	uint64_t batches_in;      /* transfers that moved items from another node to the worker's */
	uint64_t items_out;       /* items moved by batches_out */
	uint64_t items_in;        /* items moved by batches_in */
	uint64_t lookups;         /* node look-ups made (CACHED: re-checks only) */
	uint64_t node_changes;    /* look-ups whose answer differed from the previous node */
	uint64_t failed_attempts; /* lost CAS races, full/empty retries and gate polls */
	uint64_t gate_waits;      /* transfers that found the gate held by another worker */
};

struct numaring;
struct numaring_worker;

/*
 * numaring_config_init - fill *cfg with the defaults: capacity 1024, batch 32,
 * lookup CACHED with recheck 256, gate PERWORKER, backoff NONE, topology NULL.
 * With no other change numaring_create() works on any Linux machine.
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
 *   EINVAL  the config is invalid (capacity not a power of two >= 2, batch 0
 *           or > capacity, unknown enum, CACHED with recheck 0, a malformed
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
 * its node found now (by the configured lookup, or TABLE for NONE). One per
 * thread; it may be handed to another thread only while unused.
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
 * numaring_worker_stats - copy the worker's counters into *out. Call it from
 * the owning thread, or from another one after synchronising with the owner
 * (for example after pthread_join); the counters are not atomic.
 */
void numaring_worker_stats(const struct numaring_worker *w, struct numaring_stats *out);

/* numaring_stats_add - acc += s, field by field (for summing workers). */
void numaring_stats_add(struct numaring_stats *acc, const struct numaring_stats *s);

/* ---- what the queue is running with ---------------------------------- */

/* numaring_lookup_in_force - the lookup in use: the configured one, or TABLE
 * where RSEQ or RDPID is not supported here. */
enum numaring_lookup numaring_lookup_in_force(const struct numaring *q);

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

/* numaring_node_ring - address and length of node's ring memory (placement tests). */
const void *numaring_node_ring(const struct numaring *q, unsigned node, size_t *len);

/* ---- support probes (no queue needed) --------------------------------- */

/* 1 if the kernel fills rseq node_id for this thread (AT_RSEQ_FEATURE_SIZE >= 24
 * and glibc registered rseq), else 0. */
int numaring_rseq_node_supported(void);

/* 1 if this CPU has the rdpid instruction, else 0. */
int numaring_rdpid_supported(void);

/* ---- names: one table per enum, parse and print through it ------------ */

const char *numaring_lookup_name(enum numaring_lookup v);   /* "cached"; "?" if unknown */
const char *numaring_gate_name(enum numaring_gate v);       /* "perworker" */
const char *numaring_backoff_name(enum numaring_backoff v); /* "exp" */
/* Parse a name (exact, lower case). Return 0, or -EINVAL for an unknown name. */
int numaring_lookup_parse(const char *s, enum numaring_lookup *out);
int numaring_gate_parse(const char *s, enum numaring_gate *out);
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
