/*
 * placement.c - where numaring-bench's threads run (--pin): CPUs chosen from
 * the run's topology (real or emulated), never from a table of hosts.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

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

int hb_plan_cpus(const struct hb_options *o, const struct numaring_topology *t, int *cpu)
{
	unsigned np = o->producers, nc = o->consumers, n = np + nc;
	int nodes[NUMARING_MAX_NODES], nn = 0, all[NUMARING_MAX_CPUS], na = 0;
	for (unsigned k = 0; k < t->nnodes; k++)
		if (CPU_COUNT(&t->cpus[k]) > 0)
			nodes[nn++] = (int)k;
	for (int k = 0; k < nn; k++)
		for (int c = 0; c < NUMARING_MAX_CPUS; c++)
			if (CPU_ISSET(c, &t->cpus[nodes[k]]))
				all[na++] = c;
	for (unsigned i = 0; i < n; i++)
		cpu[i] = -1;
	switch (o->pin) {
	case HB_PIN_NONE:
		return 0;
	case HB_PIN_LIST: {
		unsigned i = 0;
		for (int c = 0; c < NUMARING_MAX_CPUS && i < n; c++) {
			if (!CPU_ISSET(c, &o->pin_cpus))
				continue;
			int ok = 0;
			for (int k = 0; k < na; k++)
				ok |= all[k] == c;
			if (!ok) {
				fprintf(stderr,
					"numaring-bench: --pin %s names CPU %d, which this run may not use (see --show-topology)\n",
					o->pin_list, c);
				return 2;
			}
			cpu[i++] = c;
		}
		return 0;
	}
	case HB_PIN_COMPACT: {
		/* threads in the order P0, C0, P1, C1, ..., then the rest */
		unsigned k = 0, pi = 0, ci = 0;
		while (pi < np || ci < nc) {
			if (pi < np)
				cpu[pi++] = all[k++ % (unsigned)na];
			if (ci < nc)
				cpu[np + ci++] = all[k++ % (unsigned)na];
		}
		return 0;
	}
	case HB_PIN_SCATTER: {
		int cursor[NUMARING_MAX_NODES] = {0};
		for (unsigned i = 0; i < n; i++) {
			unsigned rank = i < np ? i : i - np;
			int node = nodes[rank % (unsigned)nn];
			int cnt = CPU_COUNT(&t->cpus[node]), want = cursor[node]++ % cnt, seen = 0;
			for (int c = 0; c < NUMARING_MAX_CPUS; c++)
				if (CPU_ISSET(c, &t->cpus[node]) && seen++ == want) {
					cpu[i] = c;
					break;
				}
		}
		return 0;
	}
	case HB_PIN_SPLIT: {
		if (nn < 2) {
			fprintf(stderr,
				"numaring-bench: --pin split needs two nodes with CPUs; this run has %d (use --topology to emulate two)\n",
				nn);
			return 2;
		}
		for (unsigned i = 0; i < n; i++) {
			int node = i < np ? nodes[0] : nodes[nn - 1];
			unsigned rank = i < np ? i : i - np;
			int cnt = CPU_COUNT(&t->cpus[node]), want = (int)(rank % (unsigned)cnt), seen = 0;
			for (int c = 0; c < NUMARING_MAX_CPUS; c++)
				if (CPU_ISSET(c, &t->cpus[node]) && seen++ == want) {
					cpu[i] = c;
					break;
				}
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* Say so when the plan pins two threads to one CPU while another CPU of the
 * run stays idle (scatter and split on nodes with few CPUs): spinning threads
 * sharing a CPU convoy, which is then what the run measures. */
void hb_warn_crowding(const struct hb_options *o, const struct numaring_topology *t,
			  const int *cpu)
{
	unsigned n = o->producers + o->consumers;
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
		fprintf(stderr,
			"numaring-bench: note: --pin %s puts two or more threads on CPU %d while "
			"%d of this run's CPUs stay idle; threads that spin while sharing a CPU convoy\n",
			hb_pin_name(o->pin), crowded, CPU_COUNT(&avail) - CPU_COUNT(&used));
}
