/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * counters.h - event counters over the measured window (numaring-bench
 * --counters) and likwid marker regions around it (a build made with
 * NUMARING_LIKWID: make bench-likwid).
 *
 * perf_event_open counters, one set per thread (pid 0, cpu -1): each
 * producer and consumer opens its own on itself, disabled, before the start
 * barrier (hb_counters_open). The main thread enables every thread's
 * counters just before the window opens and disables them just after it
 * closes (hb_window_open / hb_window_close: one ioctl per group and thread;
 * the kernel applies it to the thread wherever it runs), and reads them after
 * the threads are joined (hb_counters_collect). No worker makes a system call
 * for them, so the measured loop is the same with and without --counters.
 *
 * The counters (names are summary.csv's columns, as per-item figures):
 *   context_switches  PERF_COUNT_SW_CONTEXT_SWITCHES  software, kernel included
 *   cpu_migrations    PERF_COUNT_SW_CPU_MIGRATIONS    software, kernel included
 *   cycles            PERF_COUNT_HW_CPU_CYCLES        hardware, user space only
 *   instructions      PERF_COUNT_HW_INSTRUCTIONS      hardware, user space only
 *   llc_misses        PERF_COUNT_HW_CACHE_MISSES      hardware, user space only
 * Hardware counters count user space only: the queue's work is there, and
 * kernel.perf_event_paranoid = 2 (the kernel's default) lets any user count
 * it. The software events happen in the kernel and must count it.
 * A hardware PMU multiplexing the group is reported, and its counts scaled
 * by time enabled / time running.
 *
 * Who calls what:
 *   hb_counters_open                a worker, on itself, before the barrier
 *   hb_window_open, hb_window_close the main thread, around the window; the
 *                                   workers run meanwhile
 *   hb_counters_collect             the main thread, after every worker joined
 *   hb_counters_release             the main thread, when the run is freed
 */
#ifndef HB_COUNTERS_H
#define HB_COUNTERS_H

#include <stdint.h>

/* In summary.csv's order (schema.h; report.c checks it). */
#define HB_COUNTER_NAMES(X) X(context_switches) X(cpu_migrations) X(cycles) X(instructions) X(llc_misses)

enum hb_counter {
#define HB_CTR_ENUM(n) HB_CTR_##n,
	HB_COUNTER_NAMES(HB_CTR_ENUM)
#undef HB_CTR_ENUM
	HB_CTR_COUNT_
};

/* One thread's counters. All zero (as allocated): not opened, nothing to
 * enable, read or close. */
struct hb_thread_counters {
	int opened;                  /* 1 after hb_counters_open */
	int fd[HB_CTR_COUNT_];       /* -1: could not be opened */
	int err[HB_CTR_COUNT_];      /* its errno then */
	int leader[2];               /* the software group's and the hardware group's; -1 none */
};

#define HB_WHY_LEN 256

/* What the run's counters measured, summed over its threads. */
struct hb_counter_totals {
	int requested; /* --counters */
	unsigned threads; /* threads whose counters were read */
	struct {
		int measured;     /* 1: counted on every thread */
		int failed;       /* 1: some thread could not count it (why_not says why) */
		uint64_t total;   /* over every thread; scaled where multiplexed */
		int scaled;       /* 1: the PMU multiplexed it on some thread */
		double running;   /* the least time running / time enabled of any thread */
		char why_not[HB_WHY_LEN];
	} c[HB_CTR_COUNT_];
};

struct hb_run;

/* summary.csv's column name of counter c ("cycles"). */
const char *hb_counter_name(enum hb_counter c);

/* What counter c counts, for meta.json ("PERF_COUNT_HW_CPU_CYCLES, user space"). */
const char *hb_counter_event(enum hb_counter c);

/*
 * hb_counters_open - open the calling thread's counters (pid 0, cpu -1),
 * disabled, in two groups (software, hardware). Never fails as a whole: a
 * counter that cannot be opened keeps its errno, which hb_counters_collect
 * turns into meta.json's reason. Call once per thread, on itself, before the
 * run's start barrier; not thread-safe on one tc.
 */
void hb_counters_open(struct hb_thread_counters *tc);

/*
 * hb_window_open - just before the measured window opens: start likwid's
 * marker region "window" (likwid build under likwid-perfctr -m), then enable
 * every opened counter of every producer and consumer of run. The main
 * thread only; the workers may be running.
 */
void hb_window_open(struct hb_run *run);

/* hb_window_close - just after the window closes: disable the counters, then
 * stop the marker region. The main thread only, after hb_window_open. */
void hb_window_close(struct hb_run *run);

/*
 * hb_counters_collect - read every thread's counters into *t (zeroed first):
 * totals over the threads, scaled where the PMU multiplexed, and for each
 * counter measured, or why not ("not requested (--counters)" when
 * requested is 0). The main thread, after the workers have been joined.
 */
void hb_counters_collect(const struct hb_run *run, int requested, struct hb_counter_totals *t);

/* hb_counters_release - close every thread's counters. Safe on threads
 * that never opened any. The main thread, after the workers have been joined. */
void hb_counters_release(struct hb_run *run);

/* What the likwid markers did in this process, one line for meta.json. */
const char *hb_likwid_markers(void);

#endif /* HB_COUNTERS_H */
