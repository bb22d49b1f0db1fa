/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lab_queue.c - the lab's side of the queue (numaring_lab.h; only in
 * libnumaring_lab): the ablations' settings and their checks, one variant of
 * the operations per look-up and the jump to the worker's, and the lab's
 * accessors. Compiled with -DNR_LAB only; the rest of the queue is the
 * production sources compiled the same way.
 */
#define _GNU_SOURCE
#include "nr_fastpath.h"

#include <errno.h>
#include <string.h>

#ifndef NR_LAB
#error "lab_queue.c is the lab's: build it with -DNR_LAB (libnumaring_lab)"
#endif

/* ------------------------------------------------------------------ */
/* settings                                                             */

void numaring_lab_init(struct numaring_lab *lab)
{
	memset(lab, 0, sizeof *lab);
	lab->size = sizeof *lab;
	lab->lookup = NUMARING_LOOKUP_AUTO;
	lab->recheck = NR_RECHECK_EVERY;
	lab->gate = NUMARING_GATE_PERWORKER;
	lab->linger_us = 0;
	lab->pause_spin = 0; /* NUMARING_PAUSE_SPIN */
	lab->exp_cap = 0;    /* NUMARING_EXP_MAX_SPIN */
}

int nr_lab_validate(struct numaring *q)
{
	const struct numaring_lab *lab = &q->lab;
	if ((unsigned)lab->lookup >= NUMARING_LOOKUP_COUNT_) {
		nr_set_error("unknown lookup mode %d", (int)lab->lookup);
		return -EINVAL;
	}
	if ((unsigned)lab->gate >= NUMARING_GATE_COUNT_) {
		nr_set_error("unknown gate mode %d", (int)lab->gate);
		return -EINVAL;
	}
	if (lab->linger_us > 1000000u) {
		nr_set_error("linger_us %u is above 1000000", lab->linger_us);
		return -EINVAL;
	}
	if (lab->pause_spin > NUMARING_LAB_SPIN_MAX) {
		nr_set_error("pause_spin %u is above %u PAUSEs", lab->pause_spin,
			     NUMARING_LAB_SPIN_MAX);
		return -EINVAL;
	}
	if (lab->exp_cap > NUMARING_LAB_SPIN_MAX || (lab->exp_cap & (lab->exp_cap - 1)) != 0) {
		nr_set_error("exp_cap %u is not a power of two between 1 and %u PAUSEs",
			     lab->exp_cap, NUMARING_LAB_SPIN_MAX);
		return -EINVAL;
	}
	/* 0: the production constants; in force from here on */
	if (q->lab.pause_spin == 0)
		q->lab.pause_spin = NUMARING_PAUSE_SPIN;
	if (q->lab.exp_cap == 0)
		q->lab.exp_cap = NUMARING_EXP_MAX_SPIN;
	if ((lab->lookup == NUMARING_LOOKUP_CACHED || lab->lookup == NUMARING_LOOKUP_AUTO) &&
	    lab->recheck == 0) {
		nr_set_error("lookup %s needs recheck >= 1", numaring_lookup_name(lab->lookup));
		return -EINVAL;
	}
	return 0;
}

int nr_lab_allocate(struct numaring *q)
{
	q->node_gates = nr_alloc(q->nnodes * sizeof *q->node_gates);
	if (!q->node_gates) {
		nr_set_error("out of memory for the node gates");
		return -ENOMEM;
	}
	memset(q->node_gates, 0, q->nnodes * sizeof *q->node_gates);
	return 0;
}

struct numaring *numaring_lab_create(const struct numaring_config *cfg,
				     const struct numaring_lab *lab)
{
	return nr_create(cfg, lab);
}

/* ------------------------------------------------------------------ */
/* the variants                                                         */

/*
 * The four operations compiled for one look-up each (DPDK's constant-flag
 * pattern), over the cores production uses (nr_fastpath.h).
 * numaring_worker_attach points a worker at its queue's set, and every
 * variant, production's three included, is reached through the same jump, so
 * the variants differ by their look-up alone. `make test-ring`
 * disassembles the none, rseq and cached ones (scripts/check_fastpath.sh), and
 * takes the libnuma one as its control.
 */
#define NR_VARIANT(name, MODE)                                                              \
	static int nr_enqueue_##name(struct numaring_worker *w, void *item)                 \
	{                                                                                   \
		return nr_enqueue_core(w, item, MODE);                                      \
	}                                                                                   \
	static int nr_dequeue_##name(struct numaring_worker *w, void **item)                \
	{                                                                                   \
		return nr_dequeue_core(w, item, MODE);                                      \
	}                                                                                   \
	static unsigned nr_enqueue_burst_##name(struct numaring_worker *w, void *const *items, \
						unsigned n)                                 \
	{                                                                                   \
		return nr_enqueue_burst_core(w, items, n, MODE);                            \
	}                                                                                   \
	static unsigned nr_dequeue_burst_##name(struct numaring_worker *w, void **items,     \
						unsigned n)                                 \
	{                                                                                   \
		return nr_dequeue_burst_core(w, items, n, MODE);                            \
	}

NR_VARIANT(libnuma, NUMARING_LOOKUP_LIBNUMA)
NR_VARIANT(syscall, NUMARING_LOOKUP_SYSCALL)
NR_VARIANT(table, NUMARING_LOOKUP_TABLE)
NR_VARIANT(cached, NUMARING_LOOKUP_CACHED)
NR_VARIANT(rseq, NUMARING_LOOKUP_RSEQ)
NR_VARIANT(rdpid, NUMARING_LOOKUP_RDPID)
NR_VARIANT(none, NUMARING_LOOKUP_NONE)

void nr_lab_choose_variant(struct numaring_worker *w)
{
#define NR_CHOOSE(name)                                                                     \
	do {                                                                                \
		w->enq = nr_enqueue_##name;                                                 \
		w->deq = nr_dequeue_##name;                                                 \
		w->enq_burst = nr_enqueue_burst_##name;                                     \
		w->deq_burst = nr_dequeue_burst_##name;                                     \
	} while (0)
	switch (w->q->lookup) {
	case NUMARING_LOOKUP_LIBNUMA: NR_CHOOSE(libnuma); break;
	case NUMARING_LOOKUP_SYSCALL: NR_CHOOSE(syscall); break;
	case NUMARING_LOOKUP_TABLE: NR_CHOOSE(table); break;
	case NUMARING_LOOKUP_RSEQ: NR_CHOOSE(rseq); break;
	case NUMARING_LOOKUP_RDPID: NR_CHOOSE(rdpid); break;
	case NUMARING_LOOKUP_NONE: NR_CHOOSE(none); break;
	case NUMARING_LOOKUP_CACHED:
	case NUMARING_LOOKUP_AUTO:
	case NUMARING_LOOKUP_COUNT_:
	default: NR_CHOOSE(cached); break;
	}
#undef NR_CHOOSE
}

/* The lab's public operations: a jump to the worker's variant. */
int numaring_enqueue(struct numaring_worker *w, void *item)
{
	return w->enq(w, item);
}

int numaring_dequeue(struct numaring_worker *w, void **item)
{
	return w->deq(w, item);
}

unsigned numaring_enqueue_burst(struct numaring_worker *w, void *const *items, unsigned n)
{
	return w->enq_burst(w, items, n);
}

unsigned numaring_dequeue_burst(struct numaring_worker *w, void **items, unsigned n)
{
	return w->deq_burst(w, items, n);
}

/* ------------------------------------------------------------------ */
/* the lab's accessors and probes                                       */

void numaring_spin_in_force(const struct numaring *q, unsigned *pause_spin, unsigned *exp_cap)
{
	if (pause_spin)
		*pause_spin = q->lab.pause_spin;
	if (exp_cap)
		*exp_cap = q->lab.exp_cap;
}

enum numaring_lookup numaring_lookup_in_force(const struct numaring *q)
{
	return q->lookup;
}

enum numaring_gate numaring_gate_in_force(const struct numaring *q)
{
	return q->lab.gate;
}

const void *numaring_node_ring(const struct numaring *q, unsigned node, size_t *len)
{
	if (node >= q->nnodes)
		return NULL;
	if (len)
		*len = q->ring_bytes;
	return q->rings[node];
}

/* ------------------------------------------------------------------ */
/* the path of a dequeue                                                */

/*
 * The slow paths note the split of the last dequeue that left the fast
 * path, with st.dequeued as it stood then (nr_note_paths, nr_internal.h); the fast
 * path adds to st.dequeued only what the local ring served. So `since`, what
 * st.dequeued gained after the note, is local, and:
 *   since >= n  the last dequeue came after the noted one and took its n
 *               items from the local ring alone (a dequeue that leaves the
 *               fast path notes itself);
 *   since <  n  the noted dequeue is the last one: its split, plus `since`
 *               local items its burst took after the held ones; then the
 *               split must add up to n.
 */
int numaring_dequeue_paths(const struct numaring_worker *w, unsigned n,
			   struct numaring_paths *out)
{
	/* the orders a dequeue hands its items out in (see the header) */
	static const enum numaring_path held_first[] = {NUMARING_PATH_HELD, NUMARING_PATH_LOCAL,
							NUMARING_PATH_TRANSFER};
	static const enum numaring_path local_first[] = {NUMARING_PATH_LOCAL,
							 NUMARING_PATH_TRANSFER, NUMARING_PATH_HELD};
	struct numaring_paths p;
	uint64_t since = w->st.dequeued - w->path_mark;
	memset(&p, 0, sizeof p);
	if (n == 0)
		return -EINVAL;
	if (since >= n) {
		p.count[NUMARING_PATH_LOCAL] = n;
	} else {
		uint64_t sum = since;
		for (unsigned k = 0; k < NUMARING_PATH_COUNT_; k++) {
			p.count[k] = w->path_count[k];
			sum += w->path_count[k];
		}
		if (sum != n)
			return -EINVAL;
		p.count[NUMARING_PATH_LOCAL] += (unsigned)since;
	}
	const enum numaring_path *order = w->path_held_first && since < n ? held_first
									   : local_first;
	unsigned at = 0;
	for (unsigned k = 0; k < NUMARING_PATH_COUNT_; k++) {
		if (p.count[order[k]])
			p.first[order[k]] = at;
		at += p.count[order[k]];
	}
	*out = p;
	return 0;
}

int numaring_rseq_node_supported(void)
{
	return nr_rseq_node_ok();
}

int numaring_rdpid_supported(void)
{
	return nr_rdpid_ok();
}
