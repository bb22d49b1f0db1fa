/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pingpong.h - a cache line's trip between two CPUs, timed by ping-pong on
 * one 64-byte line: the probe's c2c rows (probe_c2c.c) and each run's
 * hand-over distance (bench.c: summary.csv's c2c_one_way_before_ns and
 * c2c_one_way_after_ns, the run's first producer's and first consumer's
 * CPUs just before and just after the run).
 *
 * Why each run measures its own: under a hypervisor two vCPUs need not stay
 * on the same two physical cores. On the development VM the one-way trip
 * between its two vCPUs was seen to flip between two values several times
 * apart from one second to the next; a run's throughput follows it. The probe
 * measures one moment; the runs' own trips say whether the host held still.
 */
#ifndef HB_PINGPONG_H
#define HB_PINGPONG_H

#include <stdatomic.h>
#include <stdint.h>

#define HB_PP_LINE 64

struct hb_pp_line {
	_Alignas(HB_PP_LINE) _Atomic uint64_t v;
	char pad[HB_PP_LINE - sizeof(uint64_t)];
};

/*
 * One ping-pong: thread 0 writes odd numbers and waits for the even reply;
 * thread 1 answers each odd number with the next one. One exchange is a
 * round trip a -> b -> a of the line. ticks[b] gets batch b's duration
 * (hc_now() ticks for `per` exchanges), written by thread 0.
 *
 * deadline: hc_now() ticks after which a waiting side gives up (0: never);
 * a side that gives up sets gave_up, and the other stops at its next wait.
 * A run whose two threads share a CPU would otherwise wait a time slice per
 * exchange.
 */
struct hb_pingpong {
	struct hb_pp_line *line; /* zeroed before the two sides start */
	unsigned warm, nb, per;  /* exchanges before timing, batches, exchanges per batch */
	uint64_t *ticks;	 /* [nb] */
	uint64_t deadline;
	_Atomic int gave_up;
};

/* The body of side idx (0 or 1), run by a thread pinned to that side's CPU
 * once both are pinned. */
void hb_pingpong_body(struct hb_pingpong *pp, unsigned idx);

/*
 * hb_one_way_ns - one line's one-way trip from cpu_a to cpu_b and back,
 * halved: two threads pinned to the two CPUs (distinct CPUs), 20 batches of
 * 100 exchanges after 200 unmeasured ones, the median batch's round trip
 * over 2. Gives up after budget_ms of waiting (the CPUs busy, or one CPU
 * behind both). hc_init() first. Not on any thread that must keep its CPU:
 * it creates its own two.
 *
 * Returns 0 with *ns set, -EINVAL (same or negative CPU), -ETIMEDOUT, or
 * -errno (a thread not created or not pinned); *ns untouched on error.
 */
int hb_one_way_ns(int cpu_a, int cpu_b, double budget_ms, double *ns);

#endif /* HB_PINGPONG_H */
