/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * numaring.c - NumaRing (this project, ring/), driven through its public API
 * exactly as an application would: the public API (numaring.h) from the
 * defaults, capacity (the whole queue's, split among its rings, or each
 * ring's with --capacity-per-node) and batch from the run's parameters, and the ablations
 * through the lab interface (numaring_lab.h) from the settings lookup,
 * recheck, gate, linger; backoff (hq_params.backoff: --backoff parsed once) and
 * topology are production settings; one
 * worker attached per thread, the single and burst operations, the
 * worker's stats, and the lab's path of each dequeue (latency by path).
 */
#include <errno.h>
#include <limits.h>

#include "numaring.h"
#include "numaring_lab.h"
#include "numaring_ops.h"
#include "numaring_topology.h"
#include "peers.h"

static const char *const nrq_settings[] = {"lookup",   "recheck", "gate",	   "backoff",
					    "topology", "linger",  "pause-spin", "exp-cap", NULL};

/* The settings into cfg and lab; 0, or -1 with a sentence in err. */
static int nrq_configure(const struct hq_params *p, struct numaring_config *cfg,
			 struct numaring_lab *lab, char *err, size_t errlen)
{
	const char *v;
	if ((v = hq_setting(p, "lookup")) && numaring_lookup_parse(v, &lab->lookup) < 0)
		return hb_err(err, errlen, "numaring: unknown lookup \"%s\"", v), -1;
	if ((v = hq_setting(p, "gate")) && numaring_gate_parse(v, &lab->gate) < 0)
		return hb_err(err, errlen, "numaring: unknown gate \"%s\"", v), -1;
	if (p->backoff) /* parsed once, by --backoff (hq_params) */
		cfg->backoff = *p->backoff;
	if ((v = hq_setting(p, "recheck"))) {
		char *end;
		errno = 0;
		unsigned long r = strtoul(v, &end, 10);
		if (errno || *end || !*v || r < 1 || r > UINT_MAX)
			return hb_err(err, errlen, "numaring: recheck \"%s\" is not 1..%u", v,
				      UINT_MAX),
			       -1;
		lab->recheck = (unsigned)r;
	}
	if ((v = hq_setting(p, "linger"))) {
		char *end;
		errno = 0;
		unsigned long l = strtoul(v, &end, 10);
		if (errno || *end || !*v || l > 1000000)
			return hb_err(err, errlen, "numaring: linger \"%s\" is not 0..1000000 us", v),
			       -1;
		lab->linger_us = (unsigned)l;
	}
	/* the lab's spin lengths (0 or absent: production's); the library checks them */
	if ((v = hq_setting(p, "pause-spin")))
		lab->pause_spin = (unsigned)strtoul(v, NULL, 10);
	if ((v = hq_setting(p, "exp-cap")))
		lab->exp_cap = (unsigned)strtoul(v, NULL, 10);
	cfg->topology = hq_setting(p, "topology");
	return 0;
}

/* The adapter's handle: the queue and the slots of each of its rings. */
struct nrq {
	struct numaring *q;
	size_t ring_slots;
};

/*
 * The queue's rings for this config: one per node with CPUs this process may
 * use, plus one per memory-only node, as numaring_create makes them: the
 * nodes of the topology it reads (numaring_topology.h). 0 with a sentence in
 * err.
 */
static unsigned nrq_rings(const struct numaring_config *cfg, char *err, size_t errlen)
{
	struct numaring_topology *t = calloc(1, sizeof *t);
	char terr[NUMARING_ERRLEN];
	unsigned n = 0;
	if (!t)
		hb_err(err, errlen, "numaring: out of memory");
	else if (numaring_topology_get_sized(cfg->topology, t, sizeof *t, terr, sizeof terr) < 0)
		hb_err(err, errlen, "numaring_create: %s", terr);
	else
		n = t->nnodes;
	free(t);
	return n;
}

/*
 * Slots per ring. capacity_per_node: p->capacity itself. Else --capacity is
 * the whole queue's, as for every other queue: each of the n rings gets
 * capacity / n, rounded down to a power of two (the rings' size) when it is
 * not one, so the queue holds that x n (nrq_holds), which the run reports
 * next to the capacity asked. 0 with a sentence in err.
 */
static size_t nrq_ring_slots(const struct hq_params *p, const struct numaring_config *cfg,
			     char *err, size_t errlen)
{
	if (p->capacity_per_node)
		return p->capacity;
	unsigned n = nrq_rings(cfg, err, errlen);
	if (!n)
		return 0;
	size_t share = p->capacity / n, slots = 1;
	while (slots * 2 <= share)
		slots *= 2;
	if (slots < 2)
		return hb_err(err, errlen,
			      "numaring: --capacity %zu gives its %u rings fewer than 2 slots each",
			      p->capacity, n),
		       0;
	if (p->batch > slots)
		return hb_err(err, errlen,
			      "numaring: --batch %u is larger than the %zu slots per ring that "
			      "--capacity %zu gives its %u rings (--capacity-per-node sets a ring's)",
			      p->batch, slots, p->capacity, n),
		       0;
	return slots;
}

static void *nrq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct numaring_config cfg;
	struct numaring_lab lab;
	struct nrq *a;

	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.batch = p->batch;
	if (nrq_configure(p, &cfg, &lab, err, errlen) < 0)
		return NULL;
	if (!(cfg.capacity = nrq_ring_slots(p, &cfg, err, errlen)))
		return NULL;
	if (!(a = calloc(1, sizeof *a))) {
		hb_err(err, errlen, "numaring: out of memory");
		return NULL;
	}
	a->ring_slots = cfg.capacity;
	if (!(a->q = numaring_lab_create(&cfg, &lab))) {
		hb_err(err, errlen, "numaring_create: %s", numaring_last_error());
		free(a);
		return NULL;
	}
	return a;
}

/* Every node's ring, memory-only nodes' included. */
static size_t nrq_holds(void *q)
{
	struct nrq *a = q;
	return a->ring_slots * numaring_node_count(a->q);
}

/* Each node's ring, as the library placed it (on its node's memory). */
static unsigned nrq_regions(void *q, struct hq_region *out, unsigned max)
{
	struct nrq *a = q;
	unsigned n = numaring_node_count(a->q);
	for (unsigned i = 0; i < n && i < max; i++)
		out[i].addr = numaring_node_ring(a->q, i, &out[i].len);
	return n;
}

static void nrq_destroy(void *q)
{
	struct nrq *a = q;
	numaring_destroy(a->q);
	free(a);
}

static void *nrq_thread_init(void *q, char *err, size_t errlen)
{
	struct numaring_worker *w = numaring_worker_attach(((struct nrq *)q)->q);
	if (!w)
		hb_err(err, errlen, "numaring_worker_attach: %s", numaring_last_error());
	return w;
}

static void nrq_thread_fini(void *q, void *h)
{
	(void)q;
	numaring_worker_detach(h);
}

/* The harness's paths are the ring's, in its order (checked below). */
static int nrq_dequeue_paths(void *h, unsigned got, struct hq_paths *out)
{
	struct numaring_paths p;
	if (numaring_dequeue_paths(h, got, &p) != 0)
		return -1;
	for (int k = 0; k < HQ_PATH_COUNT_; k++) {
		out->first[k] = p.first[k];
		out->count[k] = p.count[k];
	}
	return 0;
}
_Static_assert((int)HQ_PATH_local == (int)NUMARING_PATH_LOCAL &&
		       (int)HQ_PATH_transfer == (int)NUMARING_PATH_TRANSFER &&
		       (int)HQ_PATH_held == (int)NUMARING_PATH_HELD &&
		       (int)HQ_PATH_COUNT_ == (int)NUMARING_PATH_COUNT_,
	       "the harness's paths are numaring's, in its order");

static void nrq_thread_stats(void *h, struct hq_stats *out)
{
	struct numaring_stats s;
	numaring_worker_stats(h, &s, sizeof s);
	out->v[HQ_STAT_local_ops] += s.local_ops;
	out->v[HQ_STAT_batches_out] += s.batches_out;
	out->v[HQ_STAT_batches_in] += s.batches_in;
	out->v[HQ_STAT_items_out] += s.items_out;
	out->v[HQ_STAT_items_in] += s.items_in;
	out->v[HQ_STAT_lookups] += s.lookups;
	out->v[HQ_STAT_node_changes] += s.node_changes;
	out->v[HQ_STAT_failed_attempts] += s.failed_attempts;
	out->v[HQ_STAT_gate_waits] += s.gate_waits;
	out->v[HQ_STAT_gate_backoffs] += s.gate_backoffs;
	out->v[HQ_STAT_backoff_ns_race] += s.backoff_ns_race;
	out->v[HQ_STAT_backoff_ns_gate] += s.backoff_ns_gate;
}

/* The lookup falls back to table where the kernel or CPU lacks rseq/rdpid. */
static const char *nrq_setting_in_force(void *q, const char *name)
{
	static _Thread_local char buf[16];
	unsigned pause_spin, exp_cap;
	if (strcmp(name, "lookup") == 0)
		return numaring_lookup_name(numaring_lookup_in_force(((struct nrq *)q)->q));
	if (strcmp(name, "pause-spin") == 0 || strcmp(name, "exp-cap") == 0) {
		numaring_spin_in_force(((struct nrq *)q)->q, &pause_spin, &exp_cap);
		snprintf(buf, sizeof buf, "%u", name[0] == 'p' ? pause_spin : exp_cap);
		return buf;
	}
	return NULL;
}

const struct hq_ops hq_numaring = {
	.name = "numaring",
	.description = "NumaRing: one bounded MPMC ring per NUMA node, batches move between nodes",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "per-node",
	.capacity_kind = "split",
	.memory = "per-node",
	.uncounted = "the queue's header and its workers' state, which the library allocates itself",
	.regions = nrq_regions,
	.settings = nrq_settings,
	.stats_mask = HQ_STATS_ALL,
	.create = nrq_create,
	.destroy = nrq_destroy,
	.holds = nrq_holds,
	.thread_init = nrq_thread_init,
	.thread_fini = nrq_thread_fini,
	.enqueue = nrq_enqueue,
	.dequeue = nrq_dequeue,
	.enqueue_burst = nrq_enqueue_burst,
	.dequeue_burst = nrq_dequeue_burst,
	.thread_stats = nrq_thread_stats,
	.dequeue_paths = nrq_dequeue_paths,
	.setting_in_force = nrq_setting_in_force,
};
