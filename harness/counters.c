/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * counters.c - perf_event_open counters over the measured window, and likwid
 * marker regions around it (counters.h says who calls what).
 */
#define _GNU_SOURCE
#include "counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errors.h"
#include "run.h"

#if defined(NUMARING_LIKWID)
#if !__has_include(<likwid-marker.h>)
#error "NUMARING_LIKWID needs likwid's header likwid-marker.h (Debian package likwid)"
#endif
#ifndef LIKWID_PERFMON
#define LIKWID_PERFMON /* the header's macros call likwid only with it */
#endif
#include <likwid-marker.h>
#endif

enum { GROUP_SW, GROUP_HW };

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *event;
} events[HB_CTR_COUNT_] = {
	[HB_CTR_context_switches] = {"context_switches", PERF_TYPE_SOFTWARE,
				     PERF_COUNT_SW_CONTEXT_SWITCHES,
				     "PERF_COUNT_SW_CONTEXT_SWITCHES, kernel and user"},
	[HB_CTR_cpu_migrations] = {"cpu_migrations", PERF_TYPE_SOFTWARE,
				   PERF_COUNT_SW_CPU_MIGRATIONS,
				   "PERF_COUNT_SW_CPU_MIGRATIONS, kernel and user"},
	[HB_CTR_cycles] = {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			   "PERF_COUNT_HW_CPU_CYCLES, user space"},
	[HB_CTR_instructions] = {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				 "PERF_COUNT_HW_INSTRUCTIONS, user space"},
	/* perf's generic cache-misses: on Intel the kernel maps it to the
	 * last-level cache's misses (LONGEST_LAT_CACHE.MISS); elsewhere the PMU
	 * driver picks the event. Chosen over the LL read-miss cache event
	 * because more PMUs have it, so that one column means one event. */
	[HB_CTR_llc_misses] = {"llc_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
			       "PERF_COUNT_HW_CACHE_MISSES (perf's generic cache-misses: last-level "
			       "cache misses on Intel, the PMU driver's choice elsewhere), user space"},
};

const char *hb_counter_name(enum hb_counter c)
{
	return (unsigned)c < HB_CTR_COUNT_ ? events[c].name : "?";
}

const char *hb_counter_event(enum hb_counter c)
{
	return (unsigned)c < HB_CTR_COUNT_ ? events[c].event : "?";
}

static int group_of(enum hb_counter c)
{
	return events[c].type == PERF_TYPE_SOFTWARE ? GROUP_SW : GROUP_HW;
}

/* ---- opening, on the worker itself --------------------------------------- */

void hb_counters_open(struct hb_thread_counters *tc)
{
	tc->opened = 1;
	tc->leader[GROUP_SW] = tc->leader[GROUP_HW] = -1;
	for (int c = 0; c < HB_CTR_COUNT_; c++) {
		struct perf_event_attr a;
		int g = group_of((enum hb_counter)c);
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = events[c].type;
		a.config = events[c].config;
		/* the main thread enables the group at the window's start */
		a.disabled = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* a context switch or migration is counted in the kernel; the
		 * hardware counters keep to user space (counters.h says why) */
		a.exclude_kernel = g == GROUP_HW;
		a.exclude_hv = 1;
		/* the first counter of a group that opens leads it: the group is
		 * enabled, disabled and scheduled on the PMU as one */
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, tc->leader[g], 0);
		tc->fd[c] = fd;
		tc->err[c] = fd < 0 ? errno : 0;
		if (fd >= 0 && tc->leader[g] < 0)
			tc->leader[g] = fd;
	}
}

/* ---- likwid markers (a NUMARING_LIKWID build under likwid-perfctr -m) ------ */

#if defined(NUMARING_LIKWID)
/*
 * likwid counts per CPU, not per thread: a marker region started by a thread
 * reads the counters of the CPU it runs on, and the uncore counters (UPI,
 * xGMI: the interconnect) only on the first CPU of each socket in
 * likwid-perfctr's list. The workers never leave their loop for it: a
 * marker thread, pinned to each worker's CPU and to the first listed CPU of
 * each socket, starts the region "window" just before the window and stops
 * it just after, and sleeps in a barrier meanwhile (it preempts a worker
 * for a few microseconds at each end).
 */
#define HB_MARKER_MAX 1024

static struct {
	int active; /* the region runs: threads to stop and join */
	unsigned n;
	int cpu[HB_MARKER_MAX];
	pthread_t th[HB_MARKER_MAX];
	pthread_barrier_t started, stop;
	char state[256];
} mk;

static int package_of(int cpu)
{
	char path[128];
	int pkg = -1;
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &pkg) != 1)
			pkg = -1;
		fclose(f);
	}
	return pkg;
}

static void *marker_main(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
	LIKWID_MARKER_THREADINIT;
	LIKWID_MARKER_START("window");
	pthread_barrier_wait(&mk.started);
	pthread_barrier_wait(&mk.stop);
	LIKWID_MARKER_STOP("window");
	return NULL;
}

/* The CPUs to start the region on: of likwid-perfctr's list
 * (LIKWID_THREADS), those a worker is pinned to and the first of each
 * socket. 0 when not under likwid-perfctr -m (its variables are unset). */
static unsigned marker_cpus(const struct hb_run *run)
{
	const char *list = getenv("LIKWID_THREADS");
	if (!list || !getenv("LIKWID_MODE") || !getenv("LIKWID_FILEPATH") || !getenv("LIKWID_EVENTS")) {
		snprintf(mk.state, sizeof mk.state,
			 "built in, but not run under likwid-perfctr -m: no region measured");
		return 0;
	}
	int pkgs[HB_MARKER_MAX];
	unsigned npkgs = 0;
	mk.n = 0;
	for (const char *p = list; *p && mk.n < HB_MARKER_MAX;) {
		char *end;
		long cpu = strtol(p, &end, 10);
		if (end == p)
			break;
		p = *end == ',' ? end + 1 : end;
		int pkg = package_of((int)cpu), first = 1;
		for (unsigned k = 0; k < npkgs; k++)
			first &= pkgs[k] != pkg;
		if (first && npkgs < HB_MARKER_MAX)
			pkgs[npkgs++] = pkg;
		int used = first;
		for (unsigned i = 0; i < run->np && !used; i++)
			used = run->prod[i].cpu == cpu;
		for (unsigned i = 0; i < run->nc && !used; i++)
			used = run->cons[i].cpu == cpu;
		if (used)
			mk.cpu[mk.n++] = (int)cpu;
	}
	return mk.n;
}

static void markers_start(const struct hb_run *run)
{
	static int initialised;
	if (initialised++ || marker_cpus(run) == 0)
		return; /* one region per process: the measured run's */
	LIKWID_MARKER_INIT;
	pthread_barrier_init(&mk.started, NULL, mk.n + 1);
	pthread_barrier_init(&mk.stop, NULL, mk.n + 1);
	for (unsigned i = 0; i < mk.n; i++)
		if (pthread_create(&mk.th[i], NULL, marker_main, (void *)(intptr_t)mk.cpu[i]) != 0) {
			/* the barriers count every thread: none may be missing */
			hb_say("cannot start a likwid marker thread");
			exit(1);
		}
	pthread_barrier_wait(&mk.started);
	mk.active = 1;
	int len = snprintf(mk.state, sizeof mk.state,
			   "region \"window\" around the measured window, on CPUs");
	for (unsigned i = 0; i < mk.n && len > 0 && (size_t)len < sizeof mk.state; i++)
		len += snprintf(mk.state + len, sizeof mk.state - (size_t)len, "%s%d", i ? "," : " ",
				mk.cpu[i]);
}

static void markers_stop(void)
{
	if (!mk.active)
		return;
	mk.active = 0;
	pthread_barrier_wait(&mk.stop);
	for (unsigned i = 0; i < mk.n; i++)
		pthread_join(mk.th[i], NULL);
	pthread_barrier_destroy(&mk.started);
	pthread_barrier_destroy(&mk.stop);
	/* writes the results likwid-perfctr reads when the program ends */
	LIKWID_MARKER_CLOSE;
}

const char *hb_likwid_markers(void)
{
	return mk.state[0] ? mk.state : "built in, no measured window";
}
#else
static void markers_start(const struct hb_run *run)
{
	(void)run;
}

static void markers_stop(void)
{
}

const char *hb_likwid_markers(void)
{
	return "not built in (make bench-likwid builds numaring-bench with them)";
}
#endif

/* ---- the window, from the main thread ------------------------------------ */

static void each_thread(struct hb_run *run, void (*fn)(struct hb_thread_counters *))
{
	for (unsigned i = 0; run->prod && i < run->np; i++)
		fn(&run->prod[i].ctr);
	for (unsigned i = 0; run->cons && i < run->nc; i++)
		fn(&run->cons[i].ctr);
}

static void group_ioctl(struct hb_thread_counters *tc, unsigned long req)
{
	if (!tc->opened)
		return;
	for (int g = 0; g < 2; g++)
		if (tc->leader[g] >= 0)
			/* a failure leaves the counter disabled: it then reads
			 * as never running, and collect says so */
			(void)ioctl(tc->leader[g], req, PERF_IOC_FLAG_GROUP);
}

static void enable(struct hb_thread_counters *tc)
{
	group_ioctl(tc, PERF_EVENT_IOC_ENABLE);
}

static void disable(struct hb_thread_counters *tc)
{
	group_ioctl(tc, PERF_EVENT_IOC_DISABLE);
}

void hb_window_open(struct hb_run *run)
{
	/* markers first: their threads' wake-ups stay out of the counts */
	markers_start(run);
	each_thread(run, enable);
}

void hb_window_close(struct hb_run *run)
{
	each_thread(run, disable);
	markers_stop();
}

/* ---- reading --------------------------------------------------------------- */

static int has_cpu_pmu(void)
{
	/* the core PMU's name: cpu on x86, cpu_core/cpu_atom on hybrid Intel,
	 * armv8_* and the like on Arm */
	static const char *const names[] = {"cpu", "cpu_core", "cpu_atom", "armv8_pmuv3",
					    "armv8_pmuv3_0", "armv7_cortex_a15", NULL};
	char path[128];
	for (int i = 0; names[i]; i++) {
		snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s", names[i]);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

static int in_vm(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int vm = 0;
	if (!f)
		return 0;
	while (!vm && fgets(line, sizeof line, f))
		vm = strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor");
	fclose(f);
	return vm;
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

/* "cycles: No such file or directory (no hardware PMU ...)" */
static void explain(enum hb_counter c, int e, char *buf, size_t len)
{
	char why[200] = "";
	int p;
	switch (e) {
	case ENOENT:
		if (events[c].type == PERF_TYPE_HARDWARE && !has_cpu_pmu())
			snprintf(why, sizeof why, "no hardware PMU: the kernel lists none in "
						  "/sys/bus/event_source/devices%s",
				 in_vm() ? "; this is a VM without a virtual PMU" : "");
		else
			snprintf(why, sizeof why, "this CPU's PMU has no such event");
		break;
	case EOPNOTSUPP:
		snprintf(why, sizeof why, "the PMU cannot count it this way");
		break;
	case EACCES:
	case EPERM:
		if ((p = paranoid()) != -100)
			snprintf(why, sizeof why,
				 "kernel.perf_event_paranoid is %d, too high for this user: run as "
				 "root (or with CAP_PERFMON), or sysctl kernel.perf_event_paranoid=%d",
				 p, events[c].type == PERF_TYPE_SOFTWARE ? 1 : 2);
		else
			snprintf(why, sizeof why, "perf_event_open is not permitted here "
						  "(a seccomp filter or a container?)");
		break;
	case ENOSYS:
		snprintf(why, sizeof why, "this kernel has no perf_event_open");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(why, sizeof why, "out of file descriptors for %s", "the counters");
		break;
	default:
		break;
	}
	snprintf(buf, len, "%s: %s%s%s%s", events[c].name, strerror(e), why[0] ? " (" : "", why,
		 why[0] ? ")" : "");
}

struct perf_reading {
	uint64_t value, enabled, running; /* PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING */
};

static void add_thread(const struct hb_thread_counters *tc, struct hb_counter_totals *t)
{
	t->threads++;
	for (int c = 0; c < HB_CTR_COUNT_; c++) {
		struct perf_reading r;
		int e = !tc->opened ? EBADF : tc->fd[c] < 0 ? tc->err[c] : 0;
		errno = 0;
		if (!e && read(tc->fd[c], &r, sizeof r) != (ssize_t)sizeof r)
			e = errno ? errno : EIO;
		if (e) {
			if (!t->c[c].failed)
				explain((enum hb_counter)c, e, t->c[c].why_not, sizeof t->c[c].why_not);
			t->c[c].failed = 1;
			continue;
		}
		if (r.enabled > 0 && r.running == 0) {
			/* the group never got on the PMU: other events held it */
			if (!t->c[c].failed)
				snprintf(t->c[c].why_not, sizeof t->c[c].why_not,
					 "%s: enabled for %.3f s but never on the PMU (other events "
					 "held its counters)",
					 events[c].name, (double)r.enabled * 1e-9);
			t->c[c].failed = 1;
			continue;
		}
		uint64_t v = r.value;
		if (r.running < r.enabled) {
			/* multiplexed: counted a share of the time, scaled to all */
			double share = (double)r.running / (double)r.enabled;
			v = (uint64_t)((double)r.value / share + 0.5);
			t->c[c].scaled = 1;
			if (share < t->c[c].running)
				t->c[c].running = share;
		}
		t->c[c].total += v;
	}
}

void hb_counters_collect(const struct hb_run *run, int requested, struct hb_counter_totals *t)
{
	memset(t, 0, sizeof *t);
	t->requested = requested;
	for (int c = 0; c < HB_CTR_COUNT_; c++) {
		t->c[c].running = 1.0;
		if (!requested)
			snprintf(t->c[c].why_not, sizeof t->c[c].why_not, "not requested (--counters)");
	}
	if (!requested)
		return;
	for (unsigned i = 0; i < run->np; i++)
		add_thread(&run->prod[i].ctr, t);
	/* a symmetric workload's thread i opened its counters as producer i */
	for (unsigned i = 0; run->workload == HB_WORKLOAD_PRODCONS && i < run->nc; i++)
		add_thread(&run->cons[i].ctr, t);
	for (int c = 0; c < HB_CTR_COUNT_; c++)
		t->c[c].measured = !t->c[c].failed && t->threads > 0;
}

static void release(struct hb_thread_counters *tc)
{
	if (!tc->opened)
		return;
	for (int c = 0; c < HB_CTR_COUNT_; c++)
		if (tc->fd[c] >= 0)
			close(tc->fd[c]);
	memset(tc, 0, sizeof *tc);
}

void hb_counters_release(struct hb_run *run)
{
	each_thread(run, release);
}
