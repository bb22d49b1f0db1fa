/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sharded.c - the simplest NUMA sharding, as the distributed queues with
 * load balancers of Haas et al. shard (cited, not copied): one bounded
 * Vyukov ring per node that has CPUs (numaring's own flat ring, the lab
 * interface), its memory on that node on real topologies; a thread
 * enqueues into its own node's ring and dequeues from it, and only when it
 * is full (empty) searches the other rings, starting at a random one. No
 * batches, no gates, no order across rings (FIFO within one): it asks
 * whether numaring's batch transfers beat plain sharding.
 *
 * Capacity: --capacity is the whole queue's, split among the rings as
 * numaring splits it (each share rounded down to a power of two; holds says
 * what the rings hold together); --capacity-per-node gives each ring it.
 * A thread's node is the node of the CPU it runs on when it attaches (the
 * harness pins workers first); a thread that then moves keeps that home,
 * which costs locality, never correctness.
 */
#define _GNU_SOURCE
#include <numaif.h>
#include <sched.h>

#include "numaring_lab.h"
#include "numaring_topology.h"
#include "peers.h"
#include "work.h"

static const char *const sharded_settings[] = {"topology", NULL};

struct shard_queue {
	unsigned nrings;
	size_t ring_slots;
	struct numaring_flat *ring[NUMARING_MAX_NODES];
	numaring_cpuset_t cpus[NUMARING_MAX_NODES]; /* each ring's node's CPUs */
};

struct shard_thread {
	struct shard_queue *q;
	unsigned home;    /* the ring of the thread's node */
	uint64_t rng;     /* the search's random start (work.h's generator) */
	struct numaring_flat_handle *h[NUMARING_MAX_NODES];
};

/* Make a flat ring of `slots` whose pages the creating thread touches first
 * with the policy bound to mem_node (real nodes; -1: where first touch puts
 * them). The ring's cells come from a fresh mmap written at creation
 * (numaring_flat_create), so the binding places every page. */
static struct numaring_flat *ring_on(size_t slots, int mem_node)
{
	enum { WORDS = NUMARING_MAX_NODES / (8 * sizeof(unsigned long)) + 1 };
	unsigned long mask[WORDS] = {0}, old_mask[WORDS] = {0};
	int old_mode = MPOL_DEFAULT, bound = 0;
	if (mem_node >= 0 && mem_node < NUMARING_MAX_NODES &&
	    get_mempolicy(&old_mode, old_mask, 8 * sizeof old_mask, NULL, 0) == 0) {
		mask[mem_node / (8 * sizeof(unsigned long))] |=
		    1ul << (mem_node % (8 * sizeof(unsigned long)));
		bound = set_mempolicy(MPOL_BIND, mask, 8 * sizeof mask) == 0;
	}
	struct numaring_flat *f = numaring_flat_create(slots);
	/* give the creating thread its policy back (a numactl --membind or
	 * --interleave the user gave the process included) */
	if (bound)
		(void)set_mempolicy(old_mode, old_mode == MPOL_DEFAULT ? NULL : old_mask,
				    old_mode == MPOL_DEFAULT ? 0 : 8 * sizeof old_mask);
	return f;
}

static void sharded_destroy(void *qv)
{
	struct shard_queue *q = qv;
	for (unsigned i = 0; i < q->nrings; i++)
		if (q->ring[i])
			numaring_flat_destroy(q->ring[i]);
	free(q);
}

static void *sharded_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct numaring_topology *t = calloc(1, sizeof *t);
	struct shard_queue *q = calloc(1, sizeof *q);
	char terr[256];
	if (!t || !q) {
		hb_err(err, errlen, "sharded: out of memory");
		goto fail;
	}
	if (numaring_topology_get_sized(hq_setting(p, "topology"), t, sizeof *t, terr,
					sizeof terr) < 0) {
		hb_err(err, errlen, "sharded: %s", terr);
		goto fail;
	}
	for (unsigned n = 0; n < t->nnodes; n++)
		if (numaring_cpuset_count(&t->cpus[n]))
			q->cpus[q->nrings++] = t->cpus[n];
	size_t slots = p->capacity;
	if (!p->capacity_per_node) { /* the whole queue's: numaring's rule */
		size_t share = p->capacity / q->nrings;
		for (slots = 1; slots * 2 <= share;)
			slots *= 2;
	}
	if (slots < 2 || slots < p->batch) {
		hb_err(err, errlen, "sharded: --capacity %zu leaves its %u rings %zu slots each, "
		       "fewer than 2 or than --batch %u", p->capacity, q->nrings, slots, p->batch);
		goto fail;
	}
	q->ring_slots = slots;
	for (unsigned n = 0, i = 0; n < t->nnodes; n++) {
		if (!numaring_cpuset_count(&t->cpus[n]))
			continue;
		if (!(q->ring[i] = ring_on(slots, t->emulated ? -1 : t->mem_node[n]))) {
			hb_err(err, errlen, "sharded: out of memory for %zu slots", slots);
			q->nrings = i;
			goto fail;
		}
		i++;
	}
	free(t);
	return q;
fail:
	if (q)
		sharded_destroy(q);
	free(t);
	return NULL;
}

static size_t sharded_holds(void *qv)
{
	struct shard_queue *q = qv;
	return q->ring_slots * q->nrings;
}

/* Each node's ring, placed on its node by ring_on. */
static unsigned sharded_regions(void *qv, struct hq_region *out, unsigned max)
{
	struct shard_queue *q = qv;
	for (unsigned i = 0; i < q->nrings && i < max; i++)
		out[i].addr = numaring_flat_ring(q->ring[i], &out[i].len);
	return q->nrings;
}

static void sharded_thread_fini(void *qv, void *hv)
{
	struct shard_thread *th = hv;
	(void)qv;
	for (unsigned i = 0; i < th->q->nrings; i++)
		if (th->h[i])
			numaring_flat_detach(th->h[i]);
	free(th);
}

static void *sharded_thread_init(void *qv, char *err, size_t errlen)
{
	struct shard_queue *q = qv;
	struct shard_thread *th = calloc(1, sizeof *th);
	if (!th) {
		hb_err(err, errlen, "sharded: out of memory for a thread handle");
		return NULL;
	}
	th->q = q;
	int cpu = sched_getcpu();
	for (unsigned i = 0; cpu >= 0 && i < q->nrings; i++)
		if (numaring_cpuset_isset(&q->cpus[i], (unsigned)cpu))
			th->home = i;
	th->rng = hb_rng_seed((uint64_t)(uintptr_t)th, (uint64_t)cpu);
	for (unsigned i = 0; i < q->nrings; i++)
		if (!(th->h[i] = numaring_flat_attach(q->ring[i]))) {
			hb_err(err, errlen, "sharded: out of memory for a thread handle");
			sharded_thread_fini(qv, th);
			return NULL;
		}
	return th;
}

/* The k-th ring of the search after home: a random rotation of the others. */
static inline unsigned other(const struct shard_thread *th, unsigned start, unsigned k)
{
	unsigned n = th->q->nrings - 1;
	return (th->home + 1 + (start + k) % n) % th->q->nrings;
}

static int sharded_enqueue(void *hv, void *item)
{
	struct shard_thread *th = hv;
	if (numaring_flat_enqueue(th->h[th->home], item) == 0)
		return 0;
	unsigned n = th->q->nrings - 1;
	if (!n)
		return 1;
	unsigned start = (unsigned)hb_rng_below(&th->rng, n);
	for (unsigned k = 0; k < n; k++)
		if (numaring_flat_enqueue(th->h[other(th, start, k)], item) == 0)
			return 0;
	return 1;
}

static int sharded_dequeue(void *hv, void **item)
{
	struct shard_thread *th = hv;
	if (numaring_flat_dequeue(th->h[th->home], item) == 0)
		return 0;
	unsigned n = th->q->nrings - 1;
	if (!n)
		return 1;
	unsigned start = (unsigned)hb_rng_below(&th->rng, n);
	for (unsigned k = 0; k < n; k++)
		if (numaring_flat_dequeue(th->h[other(th, start, k)], item) == 0)
			return 0;
	return 1;
}

static unsigned sharded_enqueue_burst(void *hv, void *const *items, unsigned n)
{
	struct shard_thread *th = hv;
	unsigned done = numaring_flat_enqueue_burst(th->h[th->home], items, n);
	unsigned others = th->q->nrings - 1;
	if (done == n || !others)
		return done;
	unsigned start = (unsigned)hb_rng_below(&th->rng, others);
	for (unsigned k = 0; k < others && done < n; k++)
		done += numaring_flat_enqueue_burst(th->h[other(th, start, k)], items + done,
						    n - done);
	return done;
}

static unsigned sharded_dequeue_burst(void *hv, void **items, unsigned n)
{
	struct shard_thread *th = hv;
	unsigned got = numaring_flat_dequeue_burst(th->h[th->home], items, n);
	unsigned others = th->q->nrings - 1;
	if (got || !others)
		return got;
	unsigned start = (unsigned)hb_rng_below(&th->rng, others);
	for (unsigned k = 0; k < others && !got; k++)
		got = numaring_flat_dequeue_burst(th->h[other(th, start, k)], items, n);
	return got;
}

/* Only failed_attempts (lost CAS races, over every ring) is counted. */
static void sharded_thread_stats(void *hv, struct hq_stats *out)
{
	struct shard_thread *th = hv;
	for (unsigned i = 0; i < th->q->nrings; i++)
		out->v[HQ_STAT_failed_attempts] += numaring_flat_failures(th->h[i]);
}

const struct hq_ops hq_sharded = {
	.name = "sharded",
	.description = "one flat ring per node, local first then a random search (Haas et al.'s "
		       "sharding; relaxed: FIFO within a ring only)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "per-node",
	.capacity_kind = "split",
	.memory = "per-node",
	.uncounted = "the queue's descriptor and each thread's handle (the rings' addresses)",
	.regions = sharded_regions,
	.settings = sharded_settings,
	.stats_mask = HQ_STAT_BIT(failed_attempts),
	.create = sharded_create,
	.destroy = sharded_destroy,
	.holds = sharded_holds,
	.thread_init = sharded_thread_init,
	.thread_fini = sharded_thread_fini,
	.enqueue = sharded_enqueue,
	.dequeue = sharded_dequeue,
	.enqueue_burst = sharded_enqueue_burst,
	.dequeue_burst = sharded_dequeue_burst,
	.thread_stats = sharded_thread_stats,
};
