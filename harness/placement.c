/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * placement.c - where numaring-bench's threads run (--pin, --smt) and where
 * their memory goes: CPUs chosen from the run's topology (real or emulated)
 * and the machine's cores (hwloc), never from a table of hosts.
 *
 * The choice itself (hb_place, hb_sharing_of) is a pure function of a CPU
 * map, so that the tests can feed it hosts this machine is not (two
 * sockets of 16 cores with two hyperthreads each); hb_cpumap_discover makes
 * the map of the machine the run is on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "errors.h"
#include "run.h"

void hb_pin_self(int cpu, int *pin_errno)
{
	cpu_set_t s;
	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	*pin_errno = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* ---- the CPU map ------------------------------------------------------------ */

int hb_cpumap_discover(const struct numaring_topology *t, struct hb_cpumap *m, char *err, size_t errlen)
{
	hwloc_topology_t topo;
	memset(m, 0, sizeof *m);
	if (hwloc_topology_init(&topo) < 0) {
		hb_err(err, errlen, "hwloc_topology_init failed: %s", strerror(errno));
		return -1;
	}
	/* cores and PUs are all we ask: no I/O devices or caches to discover
	 * (hwloc spends most of its time on those on a large host) */
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	if (hwloc_topology_load(topo) < 0) {
		hb_err(err, errlen, "hwloc_topology_load failed: %s", strerror(errno));
		hwloc_topology_destroy(topo);
		return -1;
	}
	int all_cores = 1;
	for (unsigned k = 0; k < t->nnodes; k++)
		for (int c = 0; c < NUMARING_MAX_CPUS; c++) {
			if (!CPU_ISSET(c, &t->cpus[k]))
				continue;
			hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)c);
			hwloc_obj_t core =
				pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : NULL;
			if (!core || core->logical_index >= NUMARING_MAX_CPUS)
				all_cores = 0;
			m->cpu[m->n++] = (struct hb_cpu){c, (int)k, core ? (int)core->logical_index : -1};
		}
	hwloc_topology_destroy(topo);
	/* hwloc without cores (some virtual machines) or a CPU it does not
	 * know: count every CPU as a core of its own rather than guess */
	m->cores_known = all_cores && m->n > 0;
	if (!m->cores_known)
		for (unsigned i = 0; i < m->n; i++)
			m->cpu[i].core = m->cpu[i].cpu;
	return 0;
}

const struct hb_cpu *hb_cpumap_find(const struct hb_cpumap *m, int cpu)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->cpu[i].cpu == cpu)
			return &m->cpu[i];
	return NULL;
}

void hb_cpumap_count(const struct hb_cpumap *m, unsigned *cpus, unsigned *cores,
		     unsigned *threads_per_core)
{
	unsigned *per_core = calloc(NUMARING_MAX_CPUS, sizeof *per_core), nc = 0, most = 0;
	*cpus = m->n;
	for (unsigned i = 0; per_core && i < m->n; i++) {
		int c = m->cpu[i].core;
		if (c < 0 || c >= NUMARING_MAX_CPUS)
			continue;
		nc += per_core[c]++ == 0;
		if (per_core[c] > most)
			most = per_core[c];
	}
	free(per_core);
	*cores = nc;
	*threads_per_core = most;
}

/* ---- the plan (pure) --------------------------------------------------------- */

static int by_node_core_cpu(const void *a_, const void *b_)
{
	const struct hb_cpu *a = a_, *b = b_;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

/* The map sorted by node, core and CPU; NULL when out of memory. */
static struct hb_cpu *sorted_copy(const struct hb_cpumap *m)
{
	struct hb_cpu *s = malloc((m->n ? m->n : 1) * sizeof *s);
	if (!s)
		return NULL;
	memcpy(s, m->cpu, m->n * sizeof *s);
	qsort(s, m->n, sizeof *s, by_node_core_cpu);
	return s;
}

int hb_place(enum hb_pin pin, enum hb_smt smt, unsigned np, unsigned nc, const cpu_set_t *list,
	     const unsigned *nodes, const struct hb_cpumap *m, struct hb_placement *p, char *err,
	     size_t errlen)
{
	unsigned n = np + nc;
	for (unsigned i = 0; i < n; i++)
		p->cpu[i] = -1;
	p->main_cpu = -1;
	if (pin == HB_PIN_NONE)
		return 0;
	if (m->n == 0) {
		hb_err(err, errlen, "no CPU to place the threads on");
		return -1;
	}
	struct hb_cpu *s = sorted_copy(m);
	/* the CPUs the threads take, node by node: slot[first[k] .. first[k] + count[k]) */
	int *slot = malloc(m->n * sizeof *slot), *tcore = malloc((n ? n : 1) * sizeof *tcore);
	unsigned first[NUMARING_MAX_NODES], count[NUMARING_MAX_NODES], nn = 0, ns = 0;
	int gnode[NUMARING_MAX_NODES]; /* the run's node of each group of slots */
	int rc = 0;
	if (!s || !slot || !tcore) {
		hb_err(err, errlen, "out of memory for the placement");
		rc = -1;
		goto out;
	}
	for (unsigned i = 0; i < m->n; i++) {
		int new_node = i == 0 || s[i].node != s[i - 1].node;
		int new_core = new_node || s[i].core != s[i - 1].core;
		if (new_node && nn < NUMARING_MAX_NODES) {
			first[nn] = ns;
			gnode[nn] = s[i].node;
			count[nn++] = 0;
		}
		/* --smt cores: the core's first CPU only (its siblings stay idle) */
		if (smt == HB_SMT_CORES && !new_core)
			continue;
		slot[ns++] = s[i].cpu;
		count[nn - 1]++;
	}

	switch (pin) {
	case HB_PIN_LIST: {
		unsigned i = 0;
		for (int c = 0; c < NUMARING_MAX_CPUS && i < n; c++) {
			if (!CPU_ISSET(c, list))
				continue;
			if (!hb_cpumap_find(m, c)) {
				hb_err(err, errlen, "names CPU %d, which this run may not use", c);
				rc = -1;
				goto out;
			}
			p->cpu[i++] = c;
		}
		break;
	}
	case HB_PIN_COMPACT: {
		/* threads in the order P0, C0, P1, C1, ..., then the rest */
		unsigned k = 0, pi = 0, ci = 0;
		while (pi < np || ci < nc) {
			if (pi < np)
				p->cpu[pi++] = slot[k++ % ns];
			if (ci < nc)
				p->cpu[np + ci++] = slot[k++ % ns];
		}
		break;
	}
	case HB_PIN_SCATTER: {
		unsigned cursor[NUMARING_MAX_NODES] = {0};
		for (unsigned i = 0; i < n; i++) {
			unsigned rank = i < np ? i : i - np, k = rank % nn;
			p->cpu[i] = slot[first[k] + cursor[k]++ % count[k]];
		}
		break;
	}
	case HB_PIN_SPLIT:
		if (nc == 0) { /* a symmetric workload: options.c refuses it first */
			hb_err(err, errlen,
			       "split needs producers and consumers; these threads "
			       "have no sides");
			rc = -1;
			goto out;
		}
		if (nn < 2) {
			hb_err(err, errlen, "split needs two nodes with CPUs; this run has %u", nn);
			rc = -1;
			goto out;
		}
		for (unsigned i = 0; i < n; i++) {
			unsigned k = i < np ? 0 : nn - 1, rank = i < np ? i : i - np;
			p->cpu[i] = slot[first[k] + rank % count[k]];
		}
		break;
	case HB_PIN_NODES: {
		/* the groups of the two nodes; on one node, P0, C0, P1, C1.. in
		 * turn over its cores, as compact does */
		unsigned k[2] = {nn, nn};
		for (unsigned g = 0; g < nn; g++)
			for (int side = 0; side < 2; side++)
				if (gnode[g] == (int)nodes[side])
					k[side] = g;
		for (int side = 0; side < 2; side++)
			if (k[side] == nn) {
				hb_err(err, errlen, "node %u has no CPU in this run", nodes[side]);
				rc = -1;
				goto out;
			}
		int same = k[0] == k[1];
		for (unsigned i = 0; i < n; i++) {
			int side = i >= np;
			unsigned rank = side ? i - np : i, g = k[side];
			unsigned at = same ? 2 * rank + (unsigned)side : rank;
			p->cpu[i] = slot[first[g] + at % count[g]];
		}
		break;
	}
	default:
		break;
	}

	/* The main thread: a CPU of a core no thread uses, else a CPU no
	 * thread uses (a busy core's sibling), else none. It sleeps through
	 * the window, but wakes to read the counts and may take a CPU from a
	 * worker when it shares one. */
	int free_cpu = -1;
	for (unsigned i = 0; i < n; i++) {
		const struct hb_cpu *c = hb_cpumap_find(m, p->cpu[i]);
		tcore[i] = c ? c->core : -1;
	}
	for (unsigned i = 0; i < m->n && p->main_cpu < 0; i++) {
		int cpu_busy = 0, core_busy = 0;
		for (unsigned t = 0; t < n; t++) {
			cpu_busy |= p->cpu[t] == s[i].cpu;
			core_busy |= tcore[t] == s[i].core;
		}
		if (!core_busy)
			p->main_cpu = s[i].cpu;
		else if (!cpu_busy && free_cpu < 0)
			free_cpu = s[i].cpu;
	}
	if (p->main_cpu < 0)
		p->main_cpu = free_cpu;
out:
	free(s);
	free(slot);
	free(tcore);
	return rc;
}

void hb_sharing_of(const struct hb_cpumap *m, const int *cpu, unsigned n, struct hb_sharing *sh)
{
	memset(sh, 0, sizeof *sh);
	int *core = malloc((n ? n : 1) * sizeof *core);
	if (!core)
		return; /* out of memory: unknown */
	for (unsigned i = 0; i < n; i++) {
		const struct hb_cpu *c = cpu[i] >= 0 ? hb_cpumap_find(m, cpu[i]) : NULL;
		if (!c)
			goto out; /* where an unpinned thread runs is the scheduler's choice */
		core[i] = c->core;
	}
	sh->known = n > 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned same_core = 0;
		int counted_before = 0;
		for (unsigned j = 0; j < n; j++) {
			if (core[j] != core[i])
				continue;
			same_core++;
			counted_before |= j < i;
			if (cpu[j] != cpu[i])
				sh->smt_shared = 1;
		}
		if (same_core > sh->threads_per_core)
			sh->threads_per_core = same_core;
		sh->cores += !counted_before;
	}
out:
	free(core);
}

/* ---- the options' plan ------------------------------------------------------- */

int hb_plan_cpus(const struct hb_options *o, const struct hb_cpumap *m, struct hb_placement *p)
{
	char err[NUMARING_ERRLEN];
	/* a symmetric workload's threads are placed as producers alone: compact
	 * fills a node's cores first, scatter alternates the nodes */
	unsigned np = hb_symmetric(o) ? o->threads : o->producers;
	unsigned nc = hb_symmetric(o) ? 0 : o->consumers;
	if (hb_place(o->pin, o->smt, np, nc, &o->pin_cpus, o->pin_nodes, m, p, err, sizeof err) == 0)
		return 0;
	if (o->pin == HB_PIN_LIST)
		hb_say("--pin %s %s (see --show-topology)", o->pin_list, err);
	else if (o->pin == HB_PIN_NODES)
		hb_say("--pin %s: %s (see --show-topology)", o->pin_list, err);
	else if (o->pin == HB_PIN_SPLIT)
		hb_say("--pin %s (use --topology to emulate two)", err);
	else
		hb_say("--pin %s: %s", hb_pin_name(o->pin), err);
	return 2;
}

/* Say so when the plan pins two threads to one CPU while another CPU of the
 * run stays idle (scatter and split on nodes with few CPUs): spinning threads
 * sharing a CPU convoy, which is then what the run measures. */
void hb_warn_crowding(const struct hb_options *o, const struct numaring_topology *t,
			  const int *cpu)
{
	unsigned n = o->threads;
	int crowded = -1;
	cpu_set_t used, avail;
	CPU_ZERO(&used);
	CPU_ZERO(&avail);
	for (unsigned k = 0; k < t->nnodes; k++)
		CPU_OR(&avail, &avail, &t->cpus[k]);
	for (unsigned i = 0; i < n; i++) {
		if (cpu[i] < 0)
			continue;
		if (CPU_ISSET(cpu[i], &used) && crowded < 0)
			crowded = cpu[i];
		CPU_SET(cpu[i], &used);
	}
	if (crowded >= 0 && CPU_COUNT(&used) < CPU_COUNT(&avail))
		hb_say("note: --pin %s puts two or more threads on CPU %d while %d of this run's "
		       "CPUs stay idle; threads that spin while sharing a CPU convoy",
		       hb_pin_name(o->pin), crowded, CPU_COUNT(&avail) - CPU_COUNT(&used));
}

/* ---- memory of a thread's own ------------------------------------------------ */

/*
 * First touch rather than numa_alloc_onnode: the node that matters is the
 * real node of the CPU the thread runs on, which on an emulated topology is
 * not the run's node index, and first touch finds it without a translation;
 * it also honours a memory policy the user gave the process (numactl
 * --membind or --interleave) instead of overriding it. Fresh pages from
 * mmap, because memory malloc recycles may have been touched already by a
 * thread of an earlier run on another node.
 */
void *hb_local_alloc(size_t size, int *node)
{
	*node = -1;
	if (size == 0)
		size = 1;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, size); /* the first touch: every page, from this thread's CPU */
	int status = -1;
	void *pages[1] = {p};
	/* nodes NULL: ask where the page is, move nothing */
	if (move_pages(0, 1, pages, NULL, &status, 0) == 0 && status >= 0)
		*node = status;
	return p;
}

void hb_local_free(void *p, size_t size)
{
	if (p)
		munmap(p, size ? size : 1);
}
