/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * qmem.c - where the queue's memory goes (--queue-mem) and where its pages
 * are: the harness's one allocator of queue memory (peers/hq_mem.h, the
 * adapters' side), the plan it follows and the count of pages (qmem.h, the
 * harness's side).
 *
 * Placing means the kernel's NUMA policies, never a copy of our own: a
 * fresh mapping bound (mbind) to the plan's node or interleaved over its
 * nodes, and, for the memory the harness cannot reach (a library's own
 * allocations), the creating and the working threads' policy
 * (set_mempolicy). Whatever the policy, the allocator keeps a table of the
 * spans it handed out, so that the count looks up every page of them.
 *
 * Under first-touch, and wherever nothing is placed (emulated nodes, no
 * NUMA), the memory comes from the heap as before the allocator existed:
 * the same calls in the same order, so a run without --queue-mem lays its
 * queue out as it always did (the table lives in its own mapping, off the
 * heap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "errors.h"
#include "peers.h"
#include "qmem.h"
#include "options.h"

/* maxnode of mbind, set_mempolicy and get_mempolicy: the kernel reads one
 * bit fewer than it is told */
#define MAXNODE (HB_QMEM_MAX_NODES + 1)
/* hq_node_alloc's placed chunks: below 2 MiB, so that no chunk is one
 * transparent huge page, which would put a whole chunk on one node of an
 * interleave */
#define CHUNK_BYTES ((size_t)1 << 20)

/* How a span was made, so that it is given back the same way. */
enum how {
	HOW_HEAP,  /* posix_memalign / malloc: free() */
	HOW_MAP,   /* a placed mapping of hq_alloc: munmap */
	HOW_CHUNK, /* a placed chunk of hq_node_alloc: munmap in hb_qmem_release */
};

struct span {
	uintptr_t addr; /* 0: a free slot of the table */
	size_t len;     /* a chunk's: the part handed out so far */
	size_t cap;     /* a chunk's whole length (else len) */
	enum how how;
};

static struct {
	pthread_mutex_t lock;
	struct hb_qmem plan;  /* zeroed: first-touch, nothing placed */
	struct span *tab;     /* open addressing on addr, linear probing */
	size_t cap, n;        /* cap: a power of two, 0 before the first span */
	uintptr_t chunk;      /* the chunk hq_node_alloc cuts from; 0: none */
	_Atomic unsigned refused; /* bindings and policies the kernel refused */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t page_bytes(void)
{
	static size_t p;
	if (!p)
		p = (size_t)sysconf(_SC_PAGESIZE);
	return p;
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

/* ---- the table of spans (g.lock held) ----------------------------------------- */

static size_t home_of(uintptr_t a, size_t cap)
{
	return (size_t)(((uint64_t)a * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (cap - 1);
}

static long tab_find(uintptr_t a)
{
	if (!g.cap)
		return -1;
	for (size_t i = home_of(a, g.cap);; i = (i + 1) & (g.cap - 1)) {
		if (g.tab[i].addr == a)
			return (long)i;
		if (!g.tab[i].addr)
			return -1;
	}
}

static void tab_put(struct span *tab, size_t cap, const struct span *s)
{
	size_t i = home_of(s->addr, cap);
	while (tab[i].addr)
		i = (i + 1) & (cap - 1);
	tab[i] = *s;
}

/* Room for one more span, the table at most half full. 0, or -1 (no memory). */
static int tab_room(void)
{
	if ((g.n + 1) * 2 <= g.cap)
		return 0;
	size_t cap = g.cap ? 2 * g.cap : 1024;
	/* a mapping of its own: the heap stays as the queues left it */
	struct span *tab = mmap(NULL, cap * sizeof *tab, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tab == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < g.cap; i++)
		if (g.tab[i].addr)
			tab_put(tab, cap, &g.tab[i]);
	if (g.tab)
		munmap(g.tab, g.cap * sizeof *g.tab);
	g.tab = tab;
	g.cap = cap;
	return 0;
}

static int tab_add(uintptr_t addr, size_t len, enum how how)
{
	if (tab_room() < 0)
		return -1;
	struct span s = {addr, len, len, how};
	tab_put(g.tab, g.cap, &s);
	g.n++;
	return 0;
}

/* Remove slot i; the entries after it that probed past it move back. */
static void tab_remove(size_t i)
{
	size_t mask = g.cap - 1;
	g.tab[i].addr = 0;
	for (size_t j = (i + 1) & mask; g.tab[j].addr; j = (j + 1) & mask) {
		size_t k = home_of(g.tab[j].addr, g.cap);
		/* j's entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		g.tab[i] = g.tab[j];
		g.tab[j].addr = 0;
		i = j;
	}
	g.n--;
}

/* ---- placing ---------------------------------------------------------------- */

/* A fresh mapping of len bytes (whole pages) under the plan's policy: its
 * pages come from the plan's nodes whichever thread touches them first.
 * NULL when out of memory. A binding the kernel refuses (seccomp, a
 * container) leaves the pages to first touch, counted in g.refused. */
static void *placed_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mbind(p, len, (int)g.plan.mode, g.plan.mask, MAXNODE, 0) != 0)
		atomic_fetch_add(&g.refused, 1);
	return p;
}

void hb_qmem_enter(struct hb_qmem_thread *s)
{
	s->set = 0;
	if (!g.plan.placing)
		return;
	if (get_mempolicy(&s->mode, s->mask, MAXNODE, NULL, 0) == 0 &&
	    set_mempolicy(g.plan.mode, g.plan.mask, MAXNODE) == 0)
		s->set = 1;
	else
		atomic_fetch_add(&g.refused, 1);
}

void hb_qmem_leave(struct hb_qmem_thread *s)
{
	/* the thread's own policy back (a numactl --membind or --interleave
	 * the user gave the process included) */
	if (s->set)
		(void)set_mempolicy(s->mode, s->mode == MPOL_DEFAULT ? NULL : s->mask,
				    s->mode == MPOL_DEFAULT ? 0 : MAXNODE);
	s->set = 0;
}

/* ---- the adapters' side (hq_mem.h) ----------------------------------------------- */

void *hq_alloc(size_t len)
{
	len = round_up(len ? len : 1, HQ_LINE);
	int placing = g.plan.placing; /* set before any queue is made */
	void *p = NULL;
	if (placing)
		p = placed_map(round_up(len, page_bytes()));
	else if (posix_memalign(&p, HQ_LINE, len) != 0)
		p = NULL;
	if (!p)
		return NULL;
	memset(p, 0, len); /* the first touch: placed, or the creating thread's node */
	pthread_mutex_lock(&g.lock);
	int rc = tab_add((uintptr_t)p, len, placing ? HOW_MAP : HOW_HEAP);
	pthread_mutex_unlock(&g.lock);
	if (rc == 0)
		return p;
	if (placing)
		munmap(p, round_up(len, page_bytes()));
	else
		free(p);
	return NULL;
}

void hq_free(void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&g.lock);
	long i = tab_find((uintptr_t)p);
	struct span s = i >= 0 ? g.tab[i] : (struct span){0};
	if (i >= 0)
		tab_remove((size_t)i);
	pthread_mutex_unlock(&g.lock);
	if (i < 0 || (s.how != HOW_HEAP && s.how != HOW_MAP)) {
		hb_say("hq_free: %p is not memory of hq_alloc (an adapter's bug)", p);
		abort();
	}
	if (s.how == HOW_MAP)
		munmap(p, round_up(s.len, page_bytes()));
	else
		free(p);
}

/* len bytes on align from the current chunk, a new one when it is full
 * (g.lock held). NULL when out of memory. */
static void *chunk_cut(size_t len, size_t align)
{
	long i = g.chunk ? tab_find(g.chunk) : -1;
	if (i >= 0) {
		struct span *c = &g.tab[i];
		size_t at = round_up(c->len, align);
		if (at + len <= c->cap) {
			c->len = at + len;
			return (void *)(c->addr + at);
		}
	}
	size_t cap = round_up(len > CHUNK_BYTES ? len : CHUNK_BYTES, page_bytes());
	void *p = placed_map(cap);
	if (!p)
		return NULL;
	if (tab_add((uintptr_t)p, len, HOW_CHUNK) < 0) {
		munmap(p, cap);
		return NULL;
	}
	g.tab[tab_find((uintptr_t)p)].cap = cap;
	g.chunk = (uintptr_t)p;
	return p;
}

void *hq_node_alloc(size_t len, size_t align)
{
	void *p = NULL;
	if (!align)
		align = 16;
	if (align & (align - 1) || align > 4096)
		return NULL;
	len = len ? len : 1;
	if (g.plan.placing) {
		pthread_mutex_lock(&g.lock);
		p = chunk_cut(len, align);
		pthread_mutex_unlock(&g.lock);
		return p;
	}
	/* as the queue's own allocator would: malloc where its alignment does */
	if (align <= 16)
		p = malloc(len);
	else if (posix_memalign(&p, align, len) != 0)
		p = NULL;
	if (!p)
		return NULL;
	pthread_mutex_lock(&g.lock);
	int rc = tab_add((uintptr_t)p, len, HOW_HEAP);
	pthread_mutex_unlock(&g.lock);
	if (rc < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void hq_node_free(void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&g.lock);
	long i = tab_find((uintptr_t)p);
	/* a placed chunk's piece goes back with the chunk (hb_qmem_release);
	 * a chunk's first piece has the chunk's address: it stays */
	int heap = i >= 0 && g.tab[i].how == HOW_HEAP;
	if (heap)
		tab_remove((size_t)i);
	pthread_mutex_unlock(&g.lock);
	if (heap)
		free(p);
}

void *hq_thread_alloc(size_t len)
{
	void *p;
	len = round_up(len ? len : 1, HQ_LINE);
	if (posix_memalign(&p, HQ_LINE, len) != 0)
		return NULL;
	memset(p, 0, len);
	return p;
}

/* ---- the harness's side (qmem.h) -------------------------------------------------- */

/* the policies' names live with the allocator, which the adapters' tests
 * link without the option parser (options.h declares them) */
static const char *const qmem_names[HB_QMEM_COUNT_] = {
	[HB_QMEM_FIRST_TOUCH] = "first-touch", [HB_QMEM_PRODUCERS] = "producers",
	[HB_QMEM_CONSUMERS] = "consumers",     [HB_QMEM_INTERLEAVE] = "interleave",
	[HB_QMEM_NODE] = "node",
};

const char *hb_qmem_policy_name(enum hb_qmem_policy p)
{
	return (unsigned)p < HB_QMEM_COUNT_ ? qmem_names[p] : "?";
}

void hb_qmem_policy_format(enum hb_qmem_policy p, int node, char *buf, size_t len)
{
	if (p == HB_QMEM_NODE)
		snprintf(buf, len, "node:%d", node);
	else
		snprintf(buf, len, "%s", hb_qmem_policy_name(p));
}


void hb_qmem_use(const struct hb_qmem *qm)
{
	pthread_mutex_lock(&g.lock);
	g.plan = *qm;
	pthread_mutex_unlock(&g.lock);
}

const struct hb_qmem *hb_qmem_in_use(void)
{
	return &g.plan;
}

const char *hb_qmem_mode_name(const struct hb_qmem *qm)
{
	return !qm->placing ? NULL : qm->mode == MPOL_INTERLEAVE ? "interleave" : "bind";
}

unsigned hb_qmem_refused(void)
{
	return atomic_load(&g.refused);
}

int hb_qmem_by_threads(const struct hq_ops *ops)
{
	return ops->memory && strcmp(ops->memory, "running") == 0;
}

int hb_qmem_own_placement(const struct hq_ops *ops)
{
	return ops->memory && strcmp(ops->memory, "per-node") == 0;
}

void hb_qmem_release(void)
{
	pthread_mutex_lock(&g.lock);
	for (size_t i = 0; i < g.cap;) {
		struct span s = g.tab[i];
		if (!s.addr || s.how != HOW_CHUNK) {
			i++;
			continue;
		}
		tab_remove(i); /* slot i may now hold another span: look again */
		munmap((void *)s.addr, s.cap);
	}
	g.chunk = 0;
	pthread_mutex_unlock(&g.lock);
}

/* 1 if OS node n has memory this process may use. */
static int node_usable(int n)
{
	if (numa_available() < 0)
		return n == 0; /* no NUMA: the one node */
	if (n < 0 || n > numa_max_node())
		return 0;
	struct bitmask *mems = numa_get_mems_allowed();
	int ok = mems && numa_bitmask_isbitset(mems, (unsigned)n);
	if (mems)
		numa_bitmask_free(mems);
	return ok && numa_node_size64(n, NULL) > 0;
}

/* "0,1": the usable nodes, for the message that names what there is. */
static void usable_nodes(char *buf, size_t len)
{
	size_t at = 0;
	int max = numa_available() < 0 ? 0 : numa_max_node();
	buf[0] = '\0';
	for (int n = 0; n <= max && n < HB_QMEM_MAX_NODES && at < len; n++)
		if (node_usable(n))
			at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", n);
}

/* The memory node of the topology's node holding CPU cpu; -1 if none. */
static int memory_node_of_cpu(const struct numaring_topology *t, int cpu)
{
	for (unsigned k = 0; cpu >= 0 && k < t->nnodes; k++)
		if (CPU_ISSET(cpu, &t->cpus[k]))
			return t->mem_node[k] >= 0 ? t->mem_node[k] : t->os_node[k];
	return -1;
}

static void mask_set(struct hb_qmem *qm, int node)
{
	const unsigned w = 8 * sizeof(unsigned long);
	if (node >= 0 && node < HB_QMEM_MAX_NODES)
		qm->mask[(unsigned)node / w] |= 1ul << ((unsigned)node % w);
}

/* qm->nodes from qm->mask: "1", "0,1". */
static void mask_names(struct hb_qmem *qm)
{
	const unsigned w = 8 * sizeof(unsigned long);
	size_t at = 0;
	for (unsigned n = 0; n < HB_QMEM_MAX_NODES && at < sizeof qm->nodes; n++)
		if (qm->mask[n / w] >> (n % w) & 1)
			at += (size_t)snprintf(qm->nodes + at, sizeof qm->nodes - at, "%s%u",
					       at ? "," : "", n);
}

/* The checks that need the machine (the parser's were the words). 0, or 2
 * after one message. */
static int plan_check(const struct hb_options *o)
{
	char asked[32], have[256];
	hb_qmem_policy_format(o->queue_mem, o->queue_mem_node, asked, sizeof asked);
	if (o->queue_mem == HB_QMEM_NODE && !node_usable(o->queue_mem_node)) {
		usable_nodes(have, sizeof have);
		hb_say("--queue-mem %s: this machine has no node %d with memory this process may "
		       "use (nodes with memory: %s; see --show-topology)",
		       asked, o->queue_mem_node, have);
		return 2;
	}
	if ((o->queue_mem == HB_QMEM_PRODUCERS || o->queue_mem == HB_QMEM_CONSUMERS) &&
	    o->pin == HB_PIN_NONE) {
		hb_say("--queue-mem %s puts the queue on the node of the %s' CPUs, which --pin "
		       "none leaves to the scheduler: pin the threads",
		       asked, o->queue_mem == HB_QMEM_PRODUCERS ? "producers" : "consumers");
		return 2;
	}
	return 0;
}

int hb_qmem_plan(const struct hb_options *o, const struct numaring_topology *t, const int *cpus,
		 struct hb_qmem *qm)
{
	memset(qm, 0, sizeof *qm);
	qm->policy = o->queue_mem;
	qm->node = -1;
	qm->emulated = t->emulated;
	int rc = plan_check(o);
	if (rc)
		return rc;
	if (o->queue_mem == HB_QMEM_NODE)
		qm->node = o->queue_mem_node;
	if (o->queue_mem == HB_QMEM_FIRST_TOUCH) {
		qm->why_not = "first-touch: where the creating thread's first touch puts it, and "
			      "what the queue allocates as it runs where the working thread's does";
		return 0;
	}
	if (t->emulated) {
		qm->why_not = "emulated nodes (--topology, NUMARING_TOPOLOGY) have no memory of "
			      "their own: nothing is placed";
		return 0;
	}
	if (!t->numa_available) {
		qm->why_not = "no NUMA (libnuma unavailable): nothing is placed";
		return 0;
	}
	switch (o->queue_mem) {
	case HB_QMEM_PRODUCERS:
		qm->node = memory_node_of_cpu(t, cpus[0]);
		break;
	case HB_QMEM_CONSUMERS: /* symmetric: thread 0 is the first consumer too */
		qm->node = memory_node_of_cpu(t, cpus[hb_symmetric(o) ? 0 : o->producers]);
		break;
	case HB_QMEM_INTERLEAVE:
		for (unsigned k = 0; k < t->nnodes; k++)
			mask_set(qm, t->mem_node[k] >= 0 ? t->mem_node[k] : t->os_node[k]);
		break;
	default:
		break;
	}
	if (o->queue_mem != HB_QMEM_INTERLEAVE) {
		if (qm->node < 0 || qm->node >= HB_QMEM_MAX_NODES) {
			qm->why_not = "the threads' CPUs are on no node of the topology";
			return 0;
		}
		mask_set(qm, qm->node);
	}
	qm->mode = o->queue_mem == HB_QMEM_INTERLEAVE ? MPOL_INTERLEAVE : MPOL_BIND;
	qm->placing = 1;
	mask_names(qm);
	return 0;
}

/* ---- the count of pages ---------------------------------------------------------------- */

static size_t pages_in(uintptr_t addr, size_t len)
{
	size_t ps = page_bytes();
	if (!len)
		return 0;
	return ((addr + len - 1) / ps - addr / ps) + 1;
}

static size_t add_pages(uintptr_t *out, uintptr_t addr, size_t len)
{
	size_t n = pages_in(addr, len), ps = page_bytes();
	for (size_t i = 0; i < n; i++)
		out[i] = (addr / ps + i) * ps;
	return n;
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return (x > y) - (x < y);
}

/* Each page of page[0..n) looked up (nodes NULL: where it is, nothing
 * moves), into pg. 0, or -errno of move_pages. */
static int look_up(uintptr_t *page, size_t n, struct hb_qmem_pages *pg)
{
	enum { BATCH = 1024 };
	void *addr[BATCH];
	int status[BATCH];
	for (size_t at = 0; at < n; at += BATCH) {
		size_t k = n - at < BATCH ? n - at : BATCH;
		for (size_t i = 0; i < k; i++)
			addr[i] = (void *)page[at + i];
		if (move_pages(0, k, addr, NULL, status, 0) != 0)
			return -errno;
		for (size_t i = 0; i < k; i++)
			if (status[i] >= 0 && status[i] < HB_QMEM_MAX_NODES)
				pg->on[status[i]]++;
			else /* -ENOENT: never touched; -EFAULT: given back meanwhile */
				pg->absent++;
	}
	return 0;
}

void hb_qmem_count(const struct hq_ops *ops, void *q, struct hb_qmem_pages *pg)
{
	enum { MAX_REGIONS = 2 * NUMARING_MAX_NODES };
	struct hq_region reg[MAX_REGIONS];
	memset(pg, 0, sizeof *pg);
	if (g.plan.emulated) {
		pg->why_not = "emulated nodes: nothing is placed, no page is counted";
		return;
	}
	unsigned nreg = ops->regions ? ops->regions(q, reg, MAX_REGIONS) : 0;
	nreg = nreg < MAX_REGIONS ? nreg : MAX_REGIONS;
	/* the table held through the look-up: a span given back meanwhile would
	 * be counted as the queue's */
	pthread_mutex_lock(&g.lock);
	size_t n = 0;
	for (size_t i = 0; i < g.cap; i++)
		if (g.tab[i].addr)
			n += pages_in(g.tab[i].addr, g.tab[i].len);
	for (unsigned i = 0; i < nreg; i++)
		n += pages_in((uintptr_t)reg[i].addr, reg[i].len);
	uintptr_t *page = malloc((n ? n : 1) * sizeof *page);
	if (!page) {
		pthread_mutex_unlock(&g.lock);
		pg->why_not = "out of memory for the list of pages";
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < g.cap; i++)
		if (g.tab[i].addr) {
			k += add_pages(page + k, g.tab[i].addr, g.tab[i].len);
			pg->regions++;
		}
	for (unsigned i = 0; i < nreg; i++)
		k += add_pages(page + k, (uintptr_t)reg[i].addr, reg[i].len);
	pg->regions += nreg;
	/* spans share pages (a heap's small pieces): each page once */
	qsort(page, k, sizeof *page, by_address);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || page[i] != page[u - 1])
			page[u++] = page[i];
	pg->pages = u;
	int rc = look_up(page, u, pg);
	pthread_mutex_unlock(&g.lock);
	free(page);
	if (rc < 0) {
		memset(pg->on, 0, sizeof pg->on);
		pg->absent = 0;
		pg->why_not = "move_pages refused to say where the pages are";
		return;
	}
	pg->counted = 1;
}

void hb_qmem_pages_format(const struct hb_qmem_pages *pg, const struct numaring_topology *t,
			  char *buf, size_t len)
{
	int listed[HB_QMEM_MAX_NODES] = {0};
	size_t at = 0;
	buf[0] = '\0';
	if (!pg->counted) {
		snprintf(buf, len, "%s", t->emulated ? "not placed" : "");
		return;
	}
	/* every node of the machine with memory, a 0 included; then any other
	 * node a page was on */
	for (unsigned m = 0; m < t->n_machine_nodes; m++) {
		int n = t->machine_os_node[m];
		if (n < 0 || n >= HB_QMEM_MAX_NODES || !t->machine_mem_bytes[m] || listed[n])
			continue;
		listed[n] = 1;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%d:%llu",
				       at ? ";" : "", n, pg->on[n]);
	}
	for (int n = 0; n < HB_QMEM_MAX_NODES; n++)
		if (pg->on[n] && !listed[n])
			at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%d:%llu",
					       at ? ";" : "", n, pg->on[n]);
	if (!at)
		snprintf(buf, len, "0:0");
}
