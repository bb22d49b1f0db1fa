/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lifecycle.c - a queue's life outside its operations: the configuration,
 * create (validate, topology, allocate, place) and destroy, workers'
 * attach and detach, the stats and the public accessors.
 */
#define _GNU_SOURCE
#include "nr_abi.h"
#include "nr_internal.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* configuration                                                        */

void numaring_config_init(struct numaring_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->size = sizeof *cfg;
	cfg->capacity = 1024;
	cfg->batch = 32;
	cfg->backoff = NUMARING_BACKOFF_DEFAULT; /* numaring.h: why */
	cfg->topology = NULL;
}

/*
 * Copy a caller's struct that says its size into ours, which starts with
 * the defaults: a smaller (older) struct leaves the fields it lacks at
 * their defaults. Refuses a size not set (the caller skipped *_init), below
 * the first release's, or above ours (a newer caller: fields we would
 * silently ignore).
 */
static int take_sized(void *ours, size_t ours_size, const void *theirs, size_t min_size,
		      const char *what)
{
	size_t size = *(const size_t *)theirs;
	if (size == 0) {
		nr_set_error("the %s's size is 0: start from %s_init()", what, what);
		return -EINVAL;
	}
	if (size < min_size || size > ours_size) {
		nr_set_error("the %s's size %zu is not one this library knows (%zu..%zu): "
			     "start from %s_init() and rebuild against this numaring.h",
			     what, size, min_size, ours_size, what);
		return -EINVAL;
	}
	memcpy(ours, theirs, size);
	*(size_t *)ours = ours_size;
	return 0;
}

/* The first release's sizes, the smallest structs a caller may pass, are
 * the numbers 0.1 shipped with (nr_abi.h: NR_CONFIG_SIZE_0_1,
 * NR_LAB_SIZE_0_1), never today's sizeof: a field added to a struct must
 * not refuse the older callers. */

/* ------------------------------------------------------------------ */
/* create / destroy                                                     */

/* Step 1 of create: validation. Fills q->cfg (and the lab's q->lab),
 * defaults first. */
static int create_validate(struct numaring *q, const struct numaring_config *cfg,
			   const struct numaring_lab *lab)
{
	if (!cfg) {
		nr_set_error("no config given");
		return -EINVAL;
	}
	numaring_config_init(&q->cfg);
	if (take_sized(&q->cfg, sizeof q->cfg, cfg, NR_CONFIG_SIZE_0_1, "numaring_config") < 0)
		return -EINVAL;
#ifdef NR_LAB
	numaring_lab_init(&q->lab);
	if (lab && take_sized(&q->lab, sizeof q->lab, lab, NR_LAB_SIZE_0_1, "numaring_lab") < 0)
		return -EINVAL;
#else
	(void)lab; /* production has no lab: nr_create is always given NULL */
#endif
	cfg = &q->cfg;
	if (cfg->capacity < 2 || (cfg->capacity & (cfg->capacity - 1)) != 0 ||
	    cfg->capacity > ((size_t)1 << 40)) {
		nr_set_error("capacity %zu is not a power of two between 2 and 2^40",
			     cfg->capacity);
		return -EINVAL;
	}
	if (cfg->batch == 0 || cfg->batch > cfg->capacity) {
		nr_set_error("batch %u is not between 1 and the capacity (%zu)", cfg->batch,
			     cfg->capacity);
		return -EINVAL;
	}
	if ((unsigned)cfg->backoff >= NUMARING_BACKOFF_COUNT_) {
		nr_set_error("unknown backoff mode %d", (int)cfg->backoff);
		return -EINVAL;
	}
#ifdef NR_LAB
	return nr_lab_validate(q);
#else
	return 0;
#endif
}

static void free_ring(struct numaring *q, unsigned i)
{
	if (q->rings[i])
		munmap(q->rings[i], q->ring_bytes);
	q->rings[i] = NULL;
}

/* Step 2 of create: the topology (spec, else NUMARING_TOPOLOGY, else the
 * machine), the CPU and OS-node tables, each node's others nearest first,
 * and the lookup in force. */
static int create_topology(struct numaring *q, const char *spec)
{
	char err[NR_ERRLEN];
	struct nr_topology *topo = nr_alloc(sizeof *topo);
	int rc;
	if (!topo) {
		nr_set_error("out of memory for the topology");
		return -ENOMEM;
	}
	rc = nr_topology_get(spec, topo, err, sizeof err);
	if (rc < 0) {
		nr_set_error("%s", err);
		free(topo);
		return rc;
	}
	q->topo = *topo;
	free(topo);
	q->nnodes = q->topo.nnodes;
#ifdef NR_LAB
	/* libnuma fills its node-to-CPUs cache lazily and without a lock:
	 * fill it now, single-threaded, so that numa_node_of_cpu (the lab's
	 * lookup LIBNUMA) only reads it when workers race. */
	if (numa_available() >= 0) {
		struct bitmask *cpus = numa_allocate_cpumask();
		for (int node = 0; cpus && node <= numa_max_node(); node++)
			numa_node_to_cpus(node, cpus);
		if (cpus)
			numa_free_cpumask(cpus);
	}
#endif
	unsigned cpu_nodes = 0;
	for (unsigned n = 0; n < q->nnodes; n++)
		cpu_nodes += CPU_COUNT(&q->topo.cpus[n]) > 0;
#ifdef NR_LAB
	q->lookup = nr_lookup_resolve(q->lab.lookup, cpu_nodes);
#else
	q->lookup = nr_lookup_resolve(NUMARING_LOOKUP_AUTO, cpu_nodes);
#endif

	for (unsigned c = 0; c < NR_MAX_CPUS; c++)
		q->cpu_node[c] = -1;
	for (unsigned o = 0; o < NR_MAX_NODES * 4; o++)
		q->os_node_idx[o] = -1;
	for (unsigned n = 0; n < q->nnodes; n++) {
		for (unsigned c = 0; c < NR_MAX_CPUS; c++)
			if (CPU_ISSET(c, &q->topo.cpus[n]))
				q->cpu_node[c] = (int16_t)n;
		if (q->topo.os_node[n] >= NR_MAX_NODES * 4) {
			nr_set_error("OS node number %d is above the supported %d",
				     q->topo.os_node[n], NR_MAX_NODES * 4 - 1);
			return -ENODEV;
		}
		if (q->topo.os_node[n] >= 0)
			q->os_node_idx[q->topo.os_node[n]] = (int16_t)n;
		nr_topology_order(&q->topo, n, q->order[n]);
	}
	return 0;
}

/* Step 3 of create: the rings' memory, unplaced (and the lab's node gates). */
static int create_allocate(struct numaring *q)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
#ifdef NR_LAB
	if (nr_lab_allocate(q) < 0)
		return -ENOMEM;
#endif
	q->ring_bytes = (nr_ring_bytes(q->cfg.capacity) + page - 1) / page * page;
	for (unsigned n = 0; n < q->nnodes; n++) {
		void *p;
		if (nr_alloc_fails(q->ring_bytes)) {
			p = MAP_FAILED;
		} else {
			p = mmap(NULL, q->ring_bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		}
		if (p == MAP_FAILED) {
			nr_set_error("out of memory for the ring of node %u (%zu bytes)", n,
				     q->ring_bytes);
			return -ENOMEM;
		}
		q->rings[n] = p;
	}
	return 0;
}

/* Step 4 of create: bind each ring to its node's memory (if the nodes are
 * real), then initialise it: the first touch happens under the binding, so
 * the pages land on that node. A binding the kernel refuses (seccomp,
 * containers) leaves the memory wherever the kernel puts it, and the node
 * then says -1 (numaring_node_memory). */
static void create_place(struct numaring *q)
{
	for (unsigned n = 0; n < q->nnodes; n++) {
		int mem = q->topo.emulated ? -1 : q->topo.mem_node[n];
		int placed = 0;
		if (mem >= 0 && mem < NR_MAX_NODES * 4) {
			unsigned long mask[NR_MAX_NODES * 4 / (8 * sizeof(unsigned long))] = {0};
			mask[(unsigned)mem / (8 * sizeof(unsigned long))] |=
			    1ul << ((unsigned)mem % (8 * sizeof(unsigned long)));
			placed = mbind(q->rings[n], q->ring_bytes, MPOL_BIND, mask,
				       NR_MAX_NODES * 4 + 1, 0) == 0;
		}
		if (!placed)
			q->topo.mem_node[n] = -1;
		nr_ring_init(q->rings[n], q->cfg.capacity);
	}
}

struct numaring *nr_create(const struct numaring_config *cfg, const struct numaring_lab *lab)
{
	struct numaring *q;
	int rc;

	nr_clear_error();
	q = nr_alloc(sizeof *q);
	if (!q) {
		nr_set_error("out of memory for the queue");
		errno = ENOMEM;
		return NULL;
	}
	memset(q, 0, sizeof *q);
	pthread_mutex_init(&q->lock, NULL);
	/* one cleanup path: numaring_destroy frees whatever a step made */
	if ((rc = create_validate(q, cfg, lab)) < 0 ||
	    (rc = create_topology(q, cfg->topology)) < 0 || (rc = create_allocate(q)) < 0) {
		numaring_destroy(q);
		errno = -rc;
		return NULL;
	}
	q->cfg.topology = NULL; /* the caller's string is not kept */
	create_place(q);
	q->clock_ns = nr_clock_read_ns();
	return q;
}

struct numaring *numaring_create(const struct numaring_config *cfg)
{
	return nr_create(cfg, NULL);
}

void numaring_destroy(struct numaring *q)
{
	if (!q)
		return;
	while (q->workers) {
		struct numaring_worker *w = q->workers;
		q->workers = w->next;
		free(w->xfer);
		free(w);
	}
	for (unsigned n = 0; n < NR_MAX_NODES; n++)
		free_ring(q, n);
	pthread_mutex_destroy(&q->lock);
	free(q->orphans);
#ifdef NR_LAB
	free(q->node_gates);
#endif
	free(q);
}

/* ------------------------------------------------------------------ */
/* workers                                                              */

struct numaring_worker *numaring_worker_attach(struct numaring *q)
{
	struct numaring_worker *w;
	void **bufs;

	nr_clear_error();
	w = nr_alloc(sizeof *w);
	bufs = w ? nr_alloc(2 * q->cfg.batch * sizeof(void *)) : NULL;
	if (!w || !bufs) {
		free(w);
		nr_set_error("out of memory for a worker");
		errno = ENOMEM;
		return NULL;
	}
	memset(w, 0, sizeof *w);
	w->q = q;
	w->xfer = bufs;
	w->pending = bufs + q->cfg.batch;
	nr_backoff_init(&w->bo, q->cfg.backoff, nr_pause_spin(q), nr_exp_cap(q), q->clock_ns,
			(uint32_t)((uintptr_t)w / NR_DESTRUCTIVE) * 2654435761u);
	nr_route_attach(w);
#ifdef NR_LAB
	nr_lab_choose_variant(w);
#endif

	/* Reserve room for the items this worker may leave behind at detach,
	 * so that detach never allocates and never loses an item. */
	pthread_mutex_lock(&q->lock);
	size_t need = atomic_load_explicit(&q->orphan_count, memory_order_relaxed) +
		      (size_t)(q->attached + 1) * q->cfg.batch;
	if (need > q->orphans_cap) {
		void **o = nr_alloc(need * sizeof(void *));
		if (!o) {
			pthread_mutex_unlock(&q->lock);
			free(bufs);
			free(w);
			nr_set_error("out of memory for a worker");
			errno = ENOMEM;
			return NULL;
		}
		if (q->orphans)
			memcpy(o, q->orphans,
			       atomic_load_explicit(&q->orphan_count, memory_order_relaxed) *
				   sizeof(void *));
		free(q->orphans);
		q->orphans = o;
		q->orphans_cap = need;
	}
	q->attached++;
	w->next = q->workers;
	if (q->workers)
		q->workers->prev = w;
	q->workers = w;
	pthread_mutex_unlock(&q->lock);
	return w;
}

void numaring_worker_detach(struct numaring_worker *w)
{
	struct numaring *q;
	if (!w)
		return;
	q = w->q;
	if (w->npending)
		nr_flush_pending(w);
	pthread_mutex_lock(&q->lock);
	if (w->npending) {
		size_t n = atomic_load_explicit(&q->orphan_count, memory_order_relaxed);
		memcpy(q->orphans + n, w->pending, w->npending * sizeof(void *));
		/* Relaxed: see take_orphan (transfer.c). */
		atomic_store_explicit(&q->orphan_count, n + w->npending, memory_order_relaxed);
		w->npending = 0;
	}
	q->attached--;
	if (w->prev)
		w->prev->next = w->next;
	else
		q->workers = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&q->lock);
	free(w->xfer);
	free(w);
}

/* ------------------------------------------------------------------ */
/* queries                                                              */

unsigned numaring_node_count(const struct numaring *q)
{
	return q->nnodes;
}

int numaring_worker_node(const struct numaring_worker *w)
{
	return (int)w->node;
}

void numaring_worker_stats(const struct numaring_worker *w, struct numaring_stats *out,
			   size_t out_size)
{
	struct numaring_stats s = w->st;
	/* the fast path counts items, not where they went: local is the rest */
	s.local_ops = s.enqueued + s.dequeued - w->nonlocal;
	s.failed_attempts = w->bo.failures;
	s.gate_backoffs = w->bo.gate_backoffs;
	s.backoff_ns_race = w->bo.ns[NR_BACKOFF_RACE];
	s.backoff_ns_gate = w->bo.ns[NR_BACKOFF_GATE];
	memcpy(out, &s, out_size < sizeof s ? out_size : sizeof s);
}

/* Every counter of struct numaring_stats, in order: numaring_stats_add_sized
 * adds them by name, so a counter added to the struct and not here fails
 * the assert below instead of being silently left out of the sums. */
#define NR_STATS_FIELDS(X)                                                                         \
	X(enqueued)                                                                                \
	X(dequeued) X(local_ops) X(batches_out) X(batches_in) X(items_out) X(items_in) X(lookups)  \
	    X(node_changes) X(failed_attempts) X(gate_waits) X(gate_backoffs) X(backoff_ns_race)   \
		X(backoff_ns_gate)
#define NR_STATS_COUNT_ONE(f) +1
_Static_assert(sizeof(struct numaring_stats) ==
		   (0 NR_STATS_FIELDS(NR_STATS_COUNT_ONE)) * sizeof(uint64_t),
	       "every counter of numaring_stats is in NR_STATS_FIELDS");
/* The stats of 0.1 end at gate_waits (11 counters), those of 0.2 at
 * backoff_ns_gate: NR_STATS_SIZE_0_1 and NR_STATS_SIZE_0_2 (nr_abi.h). */

void numaring_stats_add_sized(struct numaring_stats *acc, const struct numaring_stats *s,
			      size_t size)
{
#define NR_STATS_ADD(f)                                                                            \
	if (offsetof(struct numaring_stats, f) + sizeof acc->f <= size)                            \
		acc->f += s->f;
	NR_STATS_FIELDS(NR_STATS_ADD)
#undef NR_STATS_ADD
}

/*
 * numaring_stats_add in two versions (libnumaring.map): programs linked
 * against 0.1 have 0.1's struct and get nr_stats_add_0_1; programs linked
 * since (and static links: @@ is the default) get 0.2's struct. Each is
 * numaring_stats_add_sized with its release's size, a frozen number: a
 * counter added later is never written into a struct that lacks it (only
 * numaring_stats_add_sized adds it). The .symver directive, not GCC's
 * symver attribute, so that clang builds it too.
 */
void nr_stats_add_0_1(struct numaring_stats *acc, const struct numaring_stats *s);
void nr_stats_add_0_2(struct numaring_stats *acc, const struct numaring_stats *s);
__asm__(".symver nr_stats_add_0_1, numaring_stats_add@NUMARING_0.1");
__asm__(".symver nr_stats_add_0_2, numaring_stats_add@@NUMARING_0.2");

void nr_stats_add_0_1(struct numaring_stats *acc, const struct numaring_stats *s)
{
	numaring_stats_add_sized(acc, s, NR_STATS_SIZE_0_1);
}

void nr_stats_add_0_2(struct numaring_stats *acc, const struct numaring_stats *s)
{
	numaring_stats_add_sized(acc, s, NR_STATS_SIZE_0_2);
}

int numaring_topology_emulated(const struct numaring *q)
{
	return q->topo.emulated;
}

int numaring_node_cpus(const struct numaring *q, unsigned node, char *buf, size_t len)
{
	if (node >= q->nnodes)
		return -EINVAL;
	if (nr_cpulist_format(&q->topo.cpus[node], buf, len) < 0)
		return -ENOSPC;
	return CPU_COUNT(&q->topo.cpus[node]);
}

int numaring_node_os_index(const struct numaring *q, unsigned node)
{
	return node < q->nnodes ? q->topo.os_node[node] : -1;
}

int numaring_node_memory(const struct numaring *q, unsigned node)
{
	return node < q->nnodes ? q->topo.mem_node[node] : -1;
}

int numaring_node_distance(const struct numaring *q, unsigned a, unsigned b)
{
	return a < q->nnodes && b < q->nnodes ? q->topo.dist[a][b] : -1;
}
