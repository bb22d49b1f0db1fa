/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Why this file is long: spin checks one model file, and its two modes share
 * the ring's processes, the items' bookkeeping and the end-state checks; the
 * configurations (check.sh) and the injected bugs select parts of it by
 * macro, so splitting it would split what one search must see together.
 *
 * ring.pml - a Promela model of the NumaRing core, for spin.
 *
 *   MODE 1  one ring (ring/src/nr_ring.h): single enqueue/dequeue (Vyukov: cell
 *           seq, tail/head CAS, full/empty detection) and bursts that look at
 *           the cells first and claim only those that are ready (rule 4),
 *           by producers and consumers of each kind.
 *   MODE 2  two rings + the cross-node transfers of ring/src/transfer.c:
 *           numaring_enqueue/_dequeue and their slow paths, push_batch,
 *           pull_batch, place_anywhere, hold/flush_pending, the test-and-set gates
 *           (GATE: 0 shared, 1 per node, 2 per worker) and the orphans left
 *           at numaring_worker_detach.
 *
 * ring/model/README.md maps every block to the C code and lists what is
 * abstracted away. Memory orders are not modelled: each shared access is
 * one sequentially consistent step.
 *
 * Checked properties (all in every configuration):
 *   - no item lost or duplicated: producers' items are distinct (ids
 *     1..NITEMS); deliver() asserts each id arrives once, and the end-state
 *     assertion in init asserts every id arrived exactly once, the rings are
 *     empty, nothing is held or orphaned, every gate is free;
 *   - no deadlock: spin's invalid end states (all processes blocked with
 *     one not at its end);
 *   - a burst never waits: every cell it has claimed is ready when it
 *     writes or reads it (asserted: rule 4's claim that the look and the
 *     CAS together give only ready cells), and with -DNP and weak fairness
 *     (pan -l -f) there is no cycle without progress (an item delivered or
 *     a new item enqueued): no livelock hidden behind a retry loop;
 *   - invariants in every reachable state (monitor process): head <= tail <=
 *     head + CAP for each ring.
 *
 * Configuration macros (spin -D...): see the defaults below.
 */

/* ---- configuration ------------------------------------------------------ */
#ifndef MODE
#define MODE 1
#endif
#ifndef CAP            /* ring capacity, a power of two */
#define CAP 2
#endif
#ifndef BATCH          /* numaring batch (MODE 2); bulk size (MODE 1) */
#define BATCH 2
#endif
#ifndef NPER           /* items per producer */
#define NPER 2
#endif
#ifndef NPER0          /* items of producer 0 (default NPER) */
#define NPER0 NPER
#endif
/*
 * WEAKHEAD: the relaxed load of head that bursts used to bound their claim
 * (the finding of ring/model/README.md, "WEAKHEAD") is gone: bursts look at
 * the cells and read no index of the other side.
 */
#ifdef WEAKHEAD
#error WEAKHEAD modelled the relaxed load of head in the old burst enqueue; bursts no longer read head (ring/model/README.md)
#endif
#ifndef BUG            /* 0; 1..6 inject a known bug (a mutant the check must catch) */
#define BUG 0
#endif
#ifndef WEAKCAS        /* 1: a CAS may fail spuriously (compare_exchange_weak) */
#define WEAKCAS 1
#endif
#ifndef GATE           /* MODE 2: 0 shared, 1 per node, 2 per worker */
#define GATE 0
#endif
/*
 * XFER_MAX (MODE 2, optional): with producers on both nodes, two producers
 * whose rings are full can move batches to each other's ring for ever while
 * no consumer is scheduled; positions then grow without bound and the search
 * does not end. With XFER_MAX defined, push_batch moves items at most
 * XFER_MAX times in a run; after that it finds no room in the other ring
 * (the C code's "room == 0": the path taken when dst is full). The check is
 * then exhaustive for every execution with at most XFER_MAX such transfers.
 */
/* MODE 1: how many producers / consumers of each kind */
#ifndef PS
#define PS 1           /* producers using nr_ring_enqueue */
#endif
#ifndef PB
#define PB 1           /* producers using nr_ring_enqueue_burst (BATCH at a time) */
#endif
#ifndef CS
#define CS 1           /* consumers using nr_ring_dequeue */
#endif
#ifndef CB
#define CB 0           /* consumers using nr_ring_dequeue_burst (BATCH at a time) */
#endif
/* MODE 2: producers and consumers on each node */
#ifndef P0
#define P0 1
#endif
#ifndef P1
#define P1 0
#endif
#ifndef C0
#define C0 0
#endif
#ifndef C1
#define C1 1
#endif

#if MODE == 1
#define NRINGS 1
#define NPROD (PS + PB)
#define NCONS (CS + CB)
#else
#define NRINGS 2
#define NPROD (P0 + P1)
#define NCONS (C0 + C1)
#endif
/* producer 0 has NPER0 items, the others NPER; ids 1..NITEMS */
#define NITEMS (NPER0 + (NPROD - 1) * NPER)
#define FIRST(p) ((p) == 0 -> 1 : NPER0 + ((p) - 1) * NPER + 1)
#define LAST(p) ((p) == 0 -> NPER0 : NPER0 + (p) * NPER)
#define NWORKERS (NPROD + NCONS)
#define NGATES (NWORKERS + 2)
#define MAXPOS 240     /* positions and seq stay below 255 (byte) */

/*
 * A caller's retry after "full" / "empty" blocks until a retry can succeed:
 * some ring has room by tail - head (WAIT_ROOM), or some ring is not empty
 * by tail != head, an orphan is there, or everything was delivered
 * (WAIT_ITEMS). While the condition is false a retry reads the same values
 * and fails again, back in the same state, so blocking removes only those
 * stutter steps. It is what turns a lost item into a deadlock (consumers
 * blocked forever, an invalid end state) instead of an endless retry loop.
 */
#if NRINGS == 1
#define WAIT_ROOM (tail[0] - head[0] < CAP)
#define WAIT_ITEMS (consumed == NITEMS || tail[0] != head[0])
#else
#define WAIT_ROOM (tail[0] - head[0] < CAP || tail[1] - head[1] < CAP)
#define WAIT_ITEMS (consumed == NITEMS || tail[0] != head[0] || tail[1] != head[1] || \
		    orphan_count > 0)
#endif

/* cell of position p in ring r */
#define CELL(r, p) ((r) * CAP + ((p) % CAP))

/* ---- shared state --------------------------------------------------------- */
/* struct nr_ring: tail, head, cells[].seq, cells[].item */
byte tail[NRINGS];
byte head[NRINGS];
byte seq[NRINGS * CAP];
byte item[NRINGS * CAP];

/* struct nr_gate: held (0 free, 1 taken) */
bit gheld[NGATES];

/* q->orphans[], q->orphan_count, q->lock (critical sections are atomic) */
byte orphans[NITEMS + 1];
byte orphan_count;

/* the checker's bookkeeping (not part of the C code) */
byte got[NITEMS + 1];  /* got[id]: how many times id was delivered */
byte consumed;         /* items delivered in all */
byte started;          /* processes started (init waits for all) */
#ifdef XFER_MAX
byte xfers;            /* push_batch calls that moved items (see XFER_MAX) */
#endif

/* ---- one ring: ring/src/nr_ring.h ----------------------------------------------- */

/* CAS of x from pos to nv: success, failure (pos := x), or, with WEAKCAS,
 * a spurious failure (pos unchanged). `done` says which. */
inline cas(X_, POS_, NV_, DONE_)
{
	if
	:: atomic { X_ == POS_ -> X_ = NV_; DONE_ = 1 }
	:: atomic { X_ != POS_ -> POS_ = X_; DONE_ = 0 }
#if WEAKCAS
	:: DONE_ = 0
#endif
	fi
}

/* nr_ring_enqueue(r, it): ok = 1 if it went in, 0 if full */
inline ring_enqueue(R_, IT_, OK_)
{
	pos = tail[R_];                                /* relaxed load of tail */
	OK_ = 2;
	do
	:: OK_ == 2 ->
		sq = seq[CELL(R_, pos)];               /* E1: acquire load of seq */
		if
		:: sq == pos -> cas(tail[R_], pos, pos + 1, cd);
			if
			:: cd -> OK_ = 1
			:: else -> skip                /* nr_backoff_fail; loop */
			fi
		:: sq < pos -> OK_ = 0                  /* dif < 0: full */
		:: sq > pos -> pos = tail[R_]           /* dif > 0: catch up */
		fi
	:: else -> break
	od;
	if
	:: OK_ == 1 ->
		assert(pos < MAXPOS);
		item[CELL(R_, pos)] = IT_;               /* c->item = item (plain) */
		seq[CELL(R_, pos)] = pos + 1            /* E2: release store */
	:: else -> skip
	fi;
	skip;   /* (a break may not jump into a d_step) */
	d_step { pos = 0; sq = 0; cd = 0 }
}

/* nr_ring_dequeue(r): ok = 1 and it = the item, or ok = 0 if empty */
inline ring_dequeue(R_, IT_, OK_)
{
	pos = head[R_];                                /* relaxed load of head */
	OK_ = 2;
	do
	:: OK_ == 2 ->
		sq = seq[CELL(R_, pos)];               /* D1: acquire load of seq */
		if
		:: sq == pos + 1 -> cas(head[R_], pos, pos + 1, cd);
			if
			:: cd -> OK_ = 1
			:: else -> skip
			fi
		:: sq < pos + 1 -> OK_ = 0              /* dif < 0: empty */
#if BUG == 6
		:: sq > pos + 1 -> skip                  /* BUG 6: no catch-up: spins */
#else
		:: sq > pos + 1 -> pos = head[R_]       /* dif > 0: catch up */
#endif
		fi
	:: else -> break
	od;
	if
	:: OK_ == 1 ->
#if BUG == 2
		seq[CELL(R_, pos)] = pos + CAP;         /* BUG 2: D2 before the read */
		IT_ = item[CELL(R_, pos)]
#else
		IT_ = item[CELL(R_, pos)];               /* *item = c->item (plain) */
		seq[CELL(R_, pos)] = pos + CAP          /* D2: release store */
#endif
	:: else -> IT_ = 0
	fi;
	skip;   /* (a break may not jump into a d_step) */
	d_step { pos = 0; sq = 0; cd = 0 }
}

/* nr_ring_enqueue_burst(r, wb + off, n): k = how many went in (wb[]: the
 * calling process's buffer, declared in each proctype). Rule 4: look at the
 * cells from tail on (EB1, one acquire load per step), claim exactly the k
 * seen free with one CAS, then write and publish them without waiting. */
inline ring_enqueue_burst(R_, OFF_, N_, K_)
{
	pos = tail[R_];                                /* relaxed load of tail */
	K_ = 0;
	if
	:: N_ == 0 -> skip
	:: else ->
		cd = 2;
		do
		:: cd == 2 ->
			K_ = 0;
			do                              /* the look: EB1 per cell */
			:: K_ < N_ && seq[CELL(R_, pos + K_)] == pos + K_ -> K_++
			:: else -> break
			od;
			if
			:: K_ == 0 ->
				sq = seq[CELL(R_, pos)]; /* relaxed second look */
				if
				:: sq < pos -> cd = 0    /* full: return 0 */
				:: sq == pos -> skip     /* freed since: look again */
				:: sq > pos -> pos = tail[R_] /* catch up */
				fi
			:: else ->
#if BUG == 1
				K_ = N_;                /* BUG 1: claim n, not the k seen free */
#endif
				cas(tail[R_], pos, pos + K_, cd);
				if
				:: cd -> skip          /* claimed [pos, pos + k) */
				:: else -> cd = 2
				fi
			fi
		:: else -> break
		od;
		i = K_;                 /* rule 6: the last cell first */
		do
		:: i > 0 ->
			i--;
			/* the claimed cell is free: no wait (rule 4) */
			assert(seq[CELL(R_, pos + i)] == pos + i);
			assert(pos + i < MAXPOS);
			item[CELL(R_, pos + i)] = wb[OFF_ + i];
			seq[CELL(R_, pos + i)] = pos + i + 1;  /* EB2: release */
		:: else -> break
		od
	fi;
	skip;   /* (a break may not jump into a d_step) */
	d_step { pos = 0; sq = 0; cd = 0; i = 0 }
}

/* nr_ring_dequeue_burst(r, wb + off, n): k = how many came out. Rule 4, as
 * the enqueue: look (DB1), claim the k cells seen published, read them. */
inline ring_dequeue_burst(R_, OFF_, N_, K_)
{
	pos = head[R_];                                /* relaxed load of head */
	K_ = 0;
	if
	:: N_ == 0 -> skip
	:: else ->
		cd = 2;
		do
		:: cd == 2 ->
			K_ = 0;
			do                              /* the look: DB1 per cell */
			:: K_ < N_ && seq[CELL(R_, pos + K_)] == pos + K_ + 1 -> K_++
			:: else -> break
			od;
			if
			:: K_ == 0 ->
				sq = seq[CELL(R_, pos)]; /* relaxed second look */
				if
				:: sq < pos + 1 -> cd = 0 /* empty: return 0 */
				:: sq == pos + 1 -> skip  /* published since: look again */
				:: sq > pos + 1 -> pos = head[R_] /* catch up */
				fi
			:: else ->
#if BUG == 5
				K_ = N_;                /* BUG 5: claim n, not the k seen published */
#endif
				cas(head[R_], pos, pos + K_, cd);
				if
				:: cd -> skip          /* claimed [pos, pos + k) */
				:: else -> cd = 2
				fi
			fi
		:: else -> break
		od;
		i = K_;                 /* rule 6: the last cell first */
		do
		:: i > 0 ->
			i--;
			/* the claimed cell holds its item: no wait (rule 4) */
			assert(seq[CELL(R_, pos + i)] == pos + i + 1);
			wb[OFF_ + i] = item[CELL(R_, pos + i)];
			seq[CELL(R_, pos + i)] = pos + i + CAP;   /* DB2: release */
		:: else -> break
		od
	fi;
	skip;   /* (a break may not jump into a d_step) */
	d_step { pos = 0; sq = 0; cd = 0; i = 0 }
}

/* the checker: an item reaches the application */
inline deliver(IT_)
{
	d_step {
		assert(IT_ >= 1 && IT_ <= NITEMS);
		assert(got[IT_] == 0);      /* never twice */
		got[IT_]++;
		consumed++;
		IT_ = 0
	}
}

/* head <= tail <= head + CAP in every reachable state */
active proctype monitor()
{
end:	atomic {
		(!(head[0] <= tail[0] && tail[0] <= head[0] + CAP)
#if NRINGS > 1
		 || !(head[1] <= tail[1] && tail[1] <= head[1] + CAP)
#endif
		) -> assert(false)
	}
}

#if MODE == 1
/* ---- MODE 1: one ring --------------------------------------------------------- */

/* producer `id`: items id*NPER+1 .. id*NPER+NPER, each retried until it fits */
proctype producer(byte id; bit bulk)
{
	byte pos, sq, h, i, k, cd, ok, n;
	byte wb[BATCH];              /* the items handed to nr_ring_enqueue_burst */
	byte next = FIRST(id);       /* next item to enqueue */
	started++;
	do
	:: next > LAST(id) -> break
	:: else ->
		if
		:: !bulk ->
			ring_enqueue(0, next, ok);
			if
			:: ok -> progress_enq: ok = 0; next++
			:: else -> WAIT_ROOM         /* full: retry */
			fi
		:: bulk ->
			/* up to BATCH of the remaining items */
			d_step {
				n = 0;
				do
				:: n < BATCH && next + n <= LAST(id) ->
					wb[n] = next + n; n++
				:: else -> break
				od;
				skip
			}
			ring_enqueue_burst(0, 0, n, k);
			if
			:: k > 0 -> progress_benq: next = next + k
			:: else -> WAIT_ROOM         /* full: retry */
			fi;
			d_step {
				k = 0; n = 0;
				for (i : 0 .. BATCH - 1) { wb[i] = 0 }
				i = 0
			}
		fi
	od
}

proctype consumer(bit bulk)
{
	byte pos, sq, h, i, k, cd, ok, it;
	byte wb[BATCH];              /* nr_ring_dequeue_burst's output */
	started++;
	do
	:: consumed == NITEMS -> break
	:: else ->
		if
		:: !bulk ->
			ring_dequeue(0, it, ok);
			if
			:: ok -> progress_deq: deliver(it); ok = 0
			:: else -> WAIT_ITEMS        /* empty: retry */
			fi
		:: bulk ->
			ring_dequeue_burst(0, 0, BATCH, k);
			if
			:: k == 0 -> WAIT_ITEMS      /* empty: retry */
			:: else -> skip
			fi;
			i = 0;
			do
			:: i < k ->
				it = wb[i];
progress_bdeq:			deliver(it);
				wb[i] = 0;
				i++
			:: else -> break
			od;
			skip;
			d_step { i = 0; k = 0 }
		fi
	od
}

init
{
	byte p, c;
	atomic {
		for (c : 0 .. CAP - 1) { seq[c] = c }     /* nr_ring_init */
		p = 0;
		do
		:: p < PS -> run producer(p, 0); p++
		:: p >= PS && p < PS + PB -> run producer(p, 1); p++
		:: else -> break
		od;
		c = 0;
		do
		:: c < CS -> run consumer(0); c++
		:: c >= CS && c < CS + CB -> run consumer(1); c++
		:: else -> break
		od
	}
	(started == NWORKERS && _nr_pr == 2);          /* all done but the monitor */
	d_step {
		for (c : 1 .. NITEMS) { assert(got[c] == 1) }
		assert(consumed == NITEMS);
		assert(head[0] == tail[0] && tail[0] == NITEMS)
	}
}

#else
/* ---- MODE 2: two rings and the cross-node transfers (ring/src/transfer.c) ---------- */

/*
 * A worker's buffers live in one array wb[] (Promela cannot pass an array
 * to an inline): w->xfer is wb[XF .. XF + BATCH), the single item that
 * enqueue_slow hands to place_anywhere is wb[ONE], w->pending is
 * wb[PD .. PD + BATCH).
 */
#define XF 0
#define ONE BATCH
#define PD (BATCH + 1)
#define WBLEN (2 * BATCH + 1)

/*
 * The gate is a test-and-set word taken by whoever runs (not in ticket
 * order: see nr_internal.h). TK_ is kept so that the callers read as the C
 * code's did; it carries nothing.
 */
inline gate_enter(G_, TK_)
{
	atomic { gheld[G_] == 0 -> gheld[G_] = 1 }  /* G1: acquire exchange, poll until it was 0 */
	TK_ = 0
}

inline gate_exit(G_, TK_)
{
	gheld[G_] = 0                            /* G2: release store */
}

/* nr_ring_count(r) -> cnt: head first, then tail (both relaxed) */
inline ring_count(R_, CNT_)
{
	h = head[R_];
	CNT_ = tail[R_];
	if
	:: CNT_ >= h && CNT_ - h <= CAP -> CNT_ = CNT_ - h
	:: else -> CNT_ = CAP                    /* n > capacity: clamp */
	fi;
	h = 0
}

/* nr_ring_free_ready(r, batch) -> cnt: the cells from tail on that are free
 * for their position, at most BATCH (relaxed loads) */
inline ring_free_ready(R_, CNT_)
{
	h = tail[R_];
	CNT_ = 0;
	do
	:: CNT_ < BATCH && seq[CELL(R_, h + CNT_)] == h + CNT_ -> CNT_++
	:: else -> break
	od;
	h = 0
}

/* hold(w, wb + off, n): only while npending == 0 and n <= batch (asserted:
 * the comment in hold() states it, pending[] has room for batch items) */
inline hold(OFF_, N_)
{
	d_step {
		assert(npending == 0 && N_ <= BATCH);
		j = 0;
		do
		:: j < N_ -> wb[PD + j] = wb[OFF_ + j]; j++
		:: else -> break
		od;
		npending = N_;
		j = 0
	}
}

/* place_anywhere(w, wb + off, n) -> placed: local ring first, then the other */
inline place_anywhere(OFF_, N_, PLACED_)
{
	ring_enqueue_burst(node, OFF_, N_, k);
	PLACED_ = k;
	if
	:: PLACED_ < N_ ->
		ring_enqueue_burst(1 - node, OFF_ + PLACED_, N_ - PLACED_, k);
		PLACED_ = PLACED_ + k
	:: else -> skip
	fi;
	k = 0
}

/* flush_pending(w) */
inline flush_pending()
{
	place_anywhere(PD, npending, placed);
	d_step {
		if
		:: placed > 0 ->   /* memmove the rest to the front */
			j = 0;
			do
			:: j + placed < npending -> wb[PD + j] = wb[PD + j + placed]; j++
			:: else -> break
			od;
			do
			:: j < npending -> wb[PD + j] = 0; j++
			:: else -> break
			od;
			npending = npending - placed
		:: else -> skip
		fi;
		j = 0; placed = 0
	}
}

/* push_batch(w, &any_room) -> moved */
inline push_batch(MOVED_, ANY_)
{
	MOVED_ = 0;
	gate_enter(gate, tk);
	ANY_ = 0;                                 /* *any_room = 0 */
	ring_free_ready(1 - node, room);          /* want = nr_ring_free_ready(dst, batch) */
#ifdef XFER_MAX
	if
	:: xfers >= XFER_MAX -> room = 0          /* budget spent: as if dst were full */
	:: else -> skip
	fi;
#endif
	if
	:: room == 0 -> skip                      /* continue: no further node */
	:: else ->
		ANY_ = 1;                         /* *any_room = 1 */
		want = (room < BATCH -> room : BATCH);
		ring_dequeue_burst(node, XF, want, n);
		if
		:: n == 0 -> skip                 /* emptied meanwhile: break */
		:: else ->
			ring_enqueue_burst(1 - node, XF, n, m);
			MOVED_ = m;
#ifdef XFER_MAX
			if
			:: m > 0 -> xfers++
			:: else -> skip
			fi;
#endif
			if
			:: m < n ->
				ring_enqueue_burst(node, XF + m, n - m, back);
				if
				:: m + back < n -> hold(XF + m + back, n - m - back)
				:: else -> skip
				fi
			:: else -> skip
			fi
		fi
	fi;
	#if BUG == 4
	if
	:: room == 0 -> skip                      /* BUG 4: returns holding the gate */
	:: else -> gate_exit(gate, tk)
	fi;
#else
	gate_exit(gate, tk);
#endif
	d_step {
		room = 0; want = 0; n = 0; m = 0; back = 0;
		for (j : XF .. XF + BATCH - 1) { wb[j] = 0 }
		j = 0
	}
}

/* pull_batch(w, &it, 1) -> given */
inline pull_batch(IT_, GIVEN_)
{
	GIVEN_ = 0;
	gate_enter(gate, tk);
	ring_count(1 - node, room);
	if
	:: room == 0 -> skip                      /* continue */
	:: else ->
		ring_dequeue_burst(1 - node, XF, BATCH, n);
		if
		:: n == 0 -> skip                 /* continue */
		:: else ->
			GIVEN_ = 1;
			IT_ = wb[XF];
			if
#if BUG == 3
			:: false ->                /* BUG 3: the rest is dropped */
#else
			:: n > 1 ->
#endif
				ring_enqueue_burst(node, XF + 1, n - 1, m);
				if
				:: 1 + m < n -> hold(XF + 1 + m, n - 1 - m)
				:: else -> skip
				fi
			:: else -> skip
			fi
		fi
	fi;
	gate_exit(gate, tk);
	d_step {
		room = 0; n = 0; m = 0;
		for (j : XF .. XF + BATCH - 1) { wb[j] = 0 }
		j = 0
	}
}

/* numaring_enqueue(w, it) -> ok (0: -ENOBUFS) */
inline nq_enqueue(IT_, OK_)
{
	OK_ = 0;
	if
	:: npending == 0 -> ring_enqueue(node, IT_, OK_)   /* the fast path */
	:: else -> skip
	fi;
	if
	:: OK_ == 0 ->                                  /* enqueue_slow */
		if
		:: npending > 0 ->
			flush_pending();
			if
			:: npending == 0 -> ring_enqueue(node, IT_, OK_)
			:: else -> skip
			fi
		:: else -> skip
		fi;
		/* recheck_on_slow_path: the node never changes in the model */
		anyroom = 1;                       /* int any_room = 1 */
		if
		:: OK_ == 0 && npending == 0 ->
			do
			:: push_batch(moved, anyroom);
				if
				:: npending == 0 -> ring_enqueue(node, IT_, OK_)
				:: else -> skip
				fi;
				if
				:: OK_ -> break
				:: !OK_ && (moved == 0 || npending > 0) -> break
				:: else -> skip
				fi
			od;
			moved = 0
		:: else -> skip
		fi;
		if
		:: OK_ == 0 && !anyroom && npending == 0 -> skip  /* every other ring showed no room: -ENOBUFS */
		:: OK_ == 0 && (anyroom || npending > 0) -> /* place_anywhere(w, &item, 1) */
			wb[ONE] = IT_;
			place_anywhere(ONE, 1, placed);
			OK_ = placed;
			d_step { wb[ONE] = 0; placed = 0 }
		:: else -> skip
		fi;
		anyroom = 0
	:: else -> skip
	fi
}

/* numaring_dequeue(w) -> ok, it */
inline nq_dequeue(IT_, OK_)
{
	if
	:: npending > 0 ->
		d_step { npending--; IT_ = wb[PD + npending]; wb[PD + npending] = 0; OK_ = 1 }
	:: else ->
		ring_dequeue(node, IT_, OK_);
		if
		:: OK_ == 0 ->                      /* dequeue_slow */
			pull_batch(IT_, OK_);
			if
			:: OK_ == 0 && orphan_count > 0 ->  /* relaxed hint */
				atomic {               /* take_orphan, under q->lock */
					if
					:: orphan_count > 0 ->
						IT_ = orphans[orphan_count - 1];
						orphans[orphan_count - 1] = 0;
						orphan_count--;
						OK_ = 1
					:: else -> skip
					fi
				}
			:: else -> skip
			fi
		:: else -> skip
		fi
	fi
}

/* numaring_worker_detach(w) */
inline detach()
{
	if
	:: npending > 0 -> flush_pending()
	:: else -> skip
	fi;
	atomic {                                   /* under q->lock */
		j = 0;
		do
		:: j < npending ->
			orphans[orphan_count] = wb[PD + j]; wb[PD + j] = 0;
			orphan_count++; j++
		:: else -> break
		od;
		npending = 0; j = 0
	}
}

#if GATE == 0
#define GATE_OF(wid, nd) 0
#elif GATE == 1
#define GATE_OF(wid, nd) (nd)
#else
#define GATE_OF(wid, nd) (2 + (wid))
#endif

proctype producer(byte wid; byte node)
{
	byte pos, sq, h, i, j, k, cd, tk, room, want, n, m, back, placed, moved, anyroom, ok, it;
	byte wb[WBLEN];
	byte npending;
	byte gate = GATE_OF(wid, node);
	byte next = FIRST(wid);
	started++;
	do
	:: next > LAST(wid) -> break
	:: else ->
		it = next;
		nq_enqueue(it, ok);
		if
		:: ok -> progress_enq: d_step { next++; ok = 0; it = 0 }
		:: else -> it = 0; WAIT_ROOM           /* -ENOBUFS: the caller retries */
		fi
	od;
	detach()
}

proctype consumer(byte wid; byte node)
{
	byte pos, sq, h, i, j, k, cd, tk, room, want, n, m, back, placed, moved, anyroom, ok, it;
	byte wb[WBLEN];
	byte npending;
	byte gate = GATE_OF(wid, node);
	started++;
	do
	:: consumed == NITEMS -> break
	:: else ->
		nq_dequeue(it, ok);
		if
		:: ok -> progress_deq: deliver(it); ok = 0
		:: else -> WAIT_ITEMS                   /* -ENOENT: retry */
		fi
	od;
	assert(npending == 0);   /* everything delivered: nothing held */
	detach()
}

init
{
	byte w, c;
	atomic {
		for (c : 0 .. NRINGS * CAP - 1) { seq[c] = c % CAP }   /* nr_ring_init */
		w = 0;
		do
		:: w < P0 -> run producer(w, 0); w++
		:: w >= P0 && w < P0 + P1 -> run producer(w, 1); w++
		:: w >= NPROD && w < NPROD + C0 -> run consumer(w, 0); w++
		:: w >= NPROD + C0 && w < NWORKERS -> run consumer(w, 1); w++
		:: else -> break
		od
	}
	(started == NWORKERS && _nr_pr == 2);
	d_step {
		for (c : 1 .. NITEMS) { assert(got[c] == 1) }
		assert(consumed == NITEMS);
		for (c : 0 .. NRINGS - 1) { assert(head[c] == tail[c]) }
		assert(orphan_count == 0);
		for (c : 0 .. NGATES - 1) { assert(gheld[c] == 0) }
	}
}
#endif
