/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nr_topology.c - topology discovery (hwloc + libnuma) and the parsers of
 * emulated topologies and cpulists. Slow path only: runs at create.
 */
#define _GNU_SOURCE
#include "nr_topology.h"
#include "nr_abi.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Quote at most 40 bytes of s[0..len) for an error message. Each byte takes
 * at most 4 characters (\xNN), plus "..." and the NUL: QUOTE_BUF bytes hold
 * any quote whole. */
#define QUOTE_BUF 170
static const char *quote(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t n = len < 40 ? len : 40, o = 0;
	for (size_t i = 0; i < n && o + 5 < buflen; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (isprint(ch))
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x", ch);
	}
	if (len > n && o + 4 < buflen) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o < buflen ? o : buflen - 1] = '\0';
	return buf;
}

static size_t skip_blanks(const char *s, size_t i, size_t len)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* Parse a decimal number at s[*i], advancing *i past its digits.
 * Returns 0, -1 if there is no digit, -2 if the number is >= limit. */
static int parse_uint(const char *s, size_t *i, size_t len, unsigned long limit,
		      unsigned long *out)
{
	unsigned long v = 0;
	size_t start = *i;
	int big = 0;
	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		if (!big)
			v = v * 10 + (unsigned long)(s[*i] - '0');
		if (v >= limit)
			big = 1;
		(*i)++;
	}
	if (*i == start)
		return -1;
	if (big)
		return -2;
	*out = v;
	return 0;
}

int nr_cpulist_parse(const char *s, size_t len, cpu_set_t *out, char *err, size_t errlen)
{
	char q[QUOTE_BUF], q2[QUOTE_BUF];
	size_t i = 0;
	CPU_ZERO(out);
	if (skip_blanks(s, 0, len) == len) {
		seterr(err, errlen, "empty cpulist");
		return -EINVAL;
	}
	for (;;) {
		unsigned long a, b;
		size_t item = skip_blanks(s, i, len);
		i = item;
		if (i == len || s[i] == ',') {
			seterr(err, errlen, "cpulist \"%s\": empty item", quote(s, len, q, sizeof q));
			return -EINVAL;
		}
		int rc = parse_uint(s, &i, len, NR_MAX_CPUS, &a);
		if (rc == -1) {
			seterr(err, errlen, "cpulist \"%s\": expected a CPU number at \"%s\"",
			       quote(s, len, q, sizeof q), quote(s + i, len - i, q2, sizeof q2));
			return -EINVAL;
		}
		if (rc == -2)
			goto too_large;
		b = a;
		i = skip_blanks(s, i, len);
		if (i < len && s[i] == '-') {
			i = skip_blanks(s, i + 1, len);
			rc = parse_uint(s, &i, len, NR_MAX_CPUS, &b);
			if (rc == -1) {
				seterr(err, errlen,
				       "cpulist \"%s\": expected the end of a range at \"%s\"",
				       quote(s, len, q, sizeof q), quote(s + i, len - i, q2, sizeof q2));
				return -EINVAL;
			}
			if (rc == -2)
				goto too_large;
			if (b < a) {
				seterr(err, errlen, "cpulist \"%s\": reversed range %lu-%lu",
				       quote(s, len, q, sizeof q), a, b);
				return -EINVAL;
			}
			i = skip_blanks(s, i, len);
		}
		for (unsigned long c = a; c <= b; c++)
			CPU_SET(c, out);
		if (i == len)
			return 0;
		if (s[i] != ',') {
			seterr(err, errlen, "cpulist \"%s\": unexpected \"%s\"", quote(s, len, q, sizeof q),
			       quote(s + i, len - i, q2, sizeof q2));
			return -EINVAL;
		}
		i++;
	}
too_large:
	seterr(err, errlen, "cpulist \"%s\": CPU number too large (CPUs are 0..%d)",
	       quote(s, len, q, sizeof q), NR_MAX_CPUS - 1);
	return -EINVAL;
}

int nr_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t o = 0;
	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (int c = 0; c < NR_MAX_CPUS; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < NR_MAX_CPUS && CPU_ISSET(e + 1, set))
			e++;
		int n = e > c ? snprintf(buf + o, len - o, "%s%d-%d", o ? "," : "", c, e)
			      : snprintf(buf + o, len - o, "%s%d", o ? "," : "", c);
		if (n < 0 || (size_t)n >= len - o)
			return -ENOSPC;
		o += (size_t)n;
		c = e;
	}
	return (int)o;
}

static int parse_matrix(const char *s, size_t len, struct nr_topology *t, char *err,
			size_t errlen)
{
	char q[QUOTE_BUF], q2[QUOTE_BUF];
	unsigned n = t->nnodes, k = 0;
	size_t i = 0;
	for (;;) {
		unsigned long v;
		i = skip_blanks(s, i, len);
		if (parse_uint(s, &i, len, 256, &v) != 0 || v == 0) {
			seterr(err, errlen,
			       "distance matrix \"%s\": expected a distance 1..255 at \"%s\"",
			       quote(s, len, q, sizeof q), quote(s + i, len - i, q2, sizeof q2));
			return -EINVAL;
		}
		if (k < n * n)
			t->dist[k / n][k % n] = (int)v;
		k++;
		i = skip_blanks(s, i, len);
		if (i == len)
			break;
		if (s[i] != ',') {
			seterr(err, errlen, "distance matrix \"%s\": unexpected \"%s\"",
			       quote(s, len, q, sizeof q), quote(s + i, len - i, q2, sizeof q2));
			return -EINVAL;
		}
		i++;
	}
	if (k != n * n) {
		seterr(err, errlen, "distance matrix has %u values; %u node%s need%s %u (one row per node)",
		       k, n, n == 1 ? "" : "s", n == 1 ? "s" : "", n * n);
		return -EINVAL;
	}
	for (unsigned a = 0; a < n; a++)
		for (unsigned b = 0; b < n; b++) {
			if (a == b && t->dist[a][b] != 10) {
				seterr(err, errlen, "distance from node %u to itself must be 10, not %d",
				       a, t->dist[a][b]);
				return -EINVAL;
			}
			if (a != b && t->dist[a][b] <= 10) {
				seterr(err, errlen,
				       "distance from node %u to node %u must be above 10, not %d", a,
				       b, t->dist[a][b]);
				return -EINVAL;
			}
		}
	return 0;
}

int nr_topology_parse(const char *spec, struct nr_topology *t, char *err, size_t errlen)
{
	char q[QUOTE_BUF], e2[NR_ERRLEN];
	size_t len, nodes_len, start = 0;
	const char *bar;
	cpu_set_t seen;

	memset(t, 0, sizeof *t);
	if (!spec) {
		seterr(err, errlen, "no topology string");
		return -EINVAL;
	}
	len = strlen(spec);
	if (skip_blanks(spec, 0, len) == len) {
		seterr(err, errlen, "empty topology string (expected cpulists such as \"0-7;8-15\")");
		return -EINVAL;
	}
	bar = memchr(spec, '|', len);
	nodes_len = bar ? (size_t)(bar - spec) : len;
	CPU_ZERO(&seen);
	t->emulated = 1;
	t->numa_available = 0;
	for (size_t i = 0; i <= nodes_len; i++) {
		if (i < nodes_len && spec[i] != ';')
			continue;
		unsigned n = t->nnodes;
		if (n >= NR_MAX_NODES) {
			seterr(err, errlen, "topology \"%s\": more than %d nodes",
			       quote(spec, len, q, sizeof q), NR_MAX_NODES);
			return -EINVAL;
		}
		size_t a0 = skip_blanks(spec, start, i), a1 = i;
		while (a1 > a0 && (spec[a1 - 1] == ' ' || spec[a1 - 1] == '\t'))
			a1--;
		if (a1 == a0 + 1 && spec[a0] == '-') {
			CPU_ZERO(&t->cpus[n]); /* a memory-only node */
		} else if (nr_cpulist_parse(spec + start, i - start, &t->cpus[n], e2, sizeof e2) < 0) {
			seterr(err, errlen, "topology \"%s\", node %u: %s",
			       quote(spec, len, q, sizeof q), n, e2);
			return -EINVAL;
		}
		for (int c = 0; c < NR_MAX_CPUS; c++) {
			if (!CPU_ISSET(c, &t->cpus[n]))
				continue;
			if (CPU_ISSET(c, &seen)) {
				seterr(err, errlen, "topology \"%s\": CPU %d is named in two nodes",
				       quote(spec, len, q, sizeof q), c);
				return -EINVAL;
			}
			CPU_SET(c, &seen);
		}
		t->os_node[n] = -1;
		t->mem_node[n] = -1;
		t->nnodes++;
		start = i + 1;
	}
	if (bar) {
		if (parse_matrix(bar + 1, len - nodes_len - 1, t, e2, sizeof e2) < 0) {
			seterr(err, errlen, "topology \"%s\": %s", quote(spec, len, q, sizeof q), e2);
			return -EINVAL;
		}
	} else {
		for (unsigned a = 0; a < t->nnodes; a++)
			for (unsigned b = 0; b < t->nnodes; b++)
				t->dist[a][b] = a == b ? 10 : 20;
	}
	t->n_machine_nodes = t->nnodes;
	for (unsigned a = 0; a < t->nnodes; a++) {
		t->machine_os_node[a] = -1;
		t->machine_ncpus[a] = CPU_COUNT(&t->cpus[a]);
	}
	return 0;
}

int nr_topology_check_allowed(const struct nr_topology *t, const cpu_set_t *allowed, char *err,
			      size_t errlen)
{
	cpu_set_t named;
	CPU_ZERO(&named);
	for (unsigned n = 0; n < t->nnodes; n++) {
		for (int c = 0; c < NR_MAX_CPUS; c++) {
			if (!CPU_ISSET(c, &t->cpus[n]))
				continue;
			if (!CPU_ISSET(c, allowed)) {
				char buf[512];
				nr_cpulist_format(allowed, buf, sizeof buf);
				seterr(err, errlen,
				       "topology names CPU %d (node %u), which this process may not use (allowed CPUs: %s)",
				       c, n, buf);
				return -EINVAL;
			}
			CPU_SET(c, &named);
		}
	}
	for (int c = 0; c < NR_MAX_CPUS; c++) {
		if (CPU_ISSET(c, allowed) && !CPU_ISSET(c, &named)) {
			seterr(err, errlen,
			       "topology does not name CPU %d, which this process may use: every allowed CPU must belong to a node",
			       c);
			return -EINVAL;
		}
	}
	return 0;
}

/* Index of os node `os` in the machine list, or -1. */
static int machine_index(const struct nr_topology *t, int os)
{
	for (unsigned i = 0; i < t->n_machine_nodes; i++)
		if (t->machine_os_node[i] == os)
			return (int)i;
	return -1;
}

static int discover_no_numa(struct nr_topology *t, const cpu_set_t *allowed)
{
	t->nnodes = 1;
	t->numa_available = 0;
	CPU_OR(&t->cpus[0], &t->cpus[0], allowed);
	t->os_node[0] = 0;
	t->mem_node[0] = -1;
	t->dist[0][0] = 10;
	t->n_machine_nodes = 1;
	t->machine_os_node[0] = 0;
	t->machine_ncpus[0] = CPU_COUNT(allowed);
	return 0;
}

int nr_topology_discover(struct nr_topology *t, const cpu_set_t *allowed, char *err,
			 size_t errlen)
{
	hwloc_topology_t topo;
	int mdist[NR_MAX_NODES][NR_MAX_NODES];
	int node_of_cpu[NR_MAX_CPUS];
	int mem_ok[NR_MAX_NODES];

	memset(t, 0, sizeof *t);
	if (numa_available() < 0)
		return discover_no_numa(t, allowed);
	t->numa_available = 1;

	if (hwloc_topology_init(&topo) < 0) {
		seterr(err, errlen, "hwloc_topology_init failed: %s", strerror(errno));
		return -ENODEV;
	}
	if (hwloc_topology_load(topo) < 0) {
		seterr(err, errlen, "hwloc_topology_load failed: %s", strerror(errno));
		hwloc_topology_destroy(topo);
		return -ENODEV;
	}

	/* Every NUMA node of the machine, with its memory and CPUs. */
	int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	for (int i = 0; i < NR_MAX_CPUS; i++)
		node_of_cpu[i] = -1;
	for (int i = 0; i < nn; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
		if (t->n_machine_nodes >= NR_MAX_NODES) {
			seterr(err, errlen, "this machine has more than %d NUMA nodes", NR_MAX_NODES);
			hwloc_topology_destroy(topo);
			return -ENODEV;
		}
		unsigned m = t->n_machine_nodes++;
		t->machine_os_node[m] = (int)o->os_index;
		t->machine_mem_bytes[m] = (unsigned long long)o->attr->numanode.local_memory;
		if (o->cpuset) {
			unsigned cpu;
			hwloc_bitmap_foreach_begin(cpu, o->cpuset)
			{
				if (cpu < NR_MAX_CPUS && node_of_cpu[cpu] < 0)
					node_of_cpu[cpu] = (int)o->os_index;
			}
			hwloc_bitmap_foreach_end();
		}
	}
	/* CPUs that hwloc put under no node (a memory-less node may be folded
	 * away): ask libnuma, and add the node if hwloc did not list it. */
	for (int c = 0; c < NR_MAX_CPUS; c++) {
		if (!CPU_ISSET(c, allowed) || node_of_cpu[c] >= 0)
			continue;
		int os = numa_node_of_cpu(c);
		if (os < 0)
			os = t->n_machine_nodes ? t->machine_os_node[0] : 0;
		node_of_cpu[c] = os;
		if (machine_index(t, os) < 0 && t->n_machine_nodes < NR_MAX_NODES) {
			unsigned m = t->n_machine_nodes++;
			t->machine_os_node[m] = os;
			long long sz = numa_node_size64(os, NULL);
			t->machine_mem_bytes[m] = sz > 0 ? (unsigned long long)sz : 0;
		}
	}
	if (t->n_machine_nodes == 0) {
		hwloc_topology_destroy(topo);
		return discover_no_numa(t, allowed);
	}

	/* Distances between all machine nodes: hwloc's, else libnuma's, else 10/20. */
	for (unsigned a = 0; a < t->n_machine_nodes; a++)
		for (unsigned b = 0; b < t->n_machine_nodes; b++) {
			int d = numa_distance(t->machine_os_node[a], t->machine_os_node[b]);
			mdist[a][b] = d > 0 ? d : (a == b ? 10 : 20);
		}
	{
		unsigned nr = 1;
		struct hwloc_distances_s *dist = NULL;
		if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist,
						HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 &&
		    nr >= 1 && dist) {
			for (unsigned i = 0; i < dist->nbobjs; i++)
				for (unsigned j = 0; j < dist->nbobjs; j++) {
					int a = machine_index(t, (int)dist->objs[i]->os_index);
					int b = machine_index(t, (int)dist->objs[j]->os_index);
					hwloc_uint64_t v = dist->values[i * dist->nbobjs + j];
					if (a >= 0 && b >= 0 && v > 0 && v < 100000)
						mdist[a][b] = (int)v;
				}
			hwloc_distances_release(topo, dist);
		}
	}
	hwloc_topology_destroy(topo);

	/* Which machine nodes can hold our memory. */
	{
		struct bitmask *mems = numa_get_mems_allowed();
		for (unsigned m = 0; m < t->n_machine_nodes; m++) {
			int os = t->machine_os_node[m];
			mem_ok[m] = t->machine_mem_bytes[m] > 0 &&
				    (!mems || numa_bitmask_isbitset(mems, (unsigned)os));
			/* CPUs of the node, allowed or not (0: a memory-only node) */
			struct bitmask *cpus = numa_allocate_cpumask();
			if (cpus && numa_node_to_cpus(os, cpus) == 0)
				t->machine_ncpus[m] = (int)numa_bitmask_weight(cpus);
			if (cpus)
				numa_free_cpumask(cpus);
		}
		if (mems)
			numa_bitmask_free(mems);
	}

	/* Queue nodes: machine nodes with allowed CPUs, in increasing OS order. */
	int qidx_of_machine[NR_MAX_NODES];
	for (int pass_os = 0, done = 0; !done;) {
		int best = -1;
		for (unsigned m = 0; m < t->n_machine_nodes; m++)
			if (t->machine_os_node[m] >= pass_os &&
			    (best < 0 || t->machine_os_node[m] < t->machine_os_node[best]))
				best = (int)m;
		if (best < 0) {
			done = 1;
			break;
		}
		pass_os = t->machine_os_node[best] + 1;
		qidx_of_machine[best] = -1;
		int any = 0;
		for (int c = 0; c < NR_MAX_CPUS; c++)
			if (CPU_ISSET(c, allowed) && node_of_cpu[c] == t->machine_os_node[best])
				any = 1;
		/* A node whose CPUs this process may not use gets no ring; a
		 * memory-only node (no CPUs at all) does, as overflow reachable by
		 * distance, when its memory is allowed. */
		if (!any && !(t->machine_ncpus[best] == 0 && mem_ok[best]))
			continue;
		unsigned q = t->nnodes++;
		qidx_of_machine[best] = (int)q;
		t->os_node[q] = t->machine_os_node[best];
		for (int c = 0; c < NR_MAX_CPUS; c++)
			if (CPU_ISSET(c, allowed) && node_of_cpu[c] == t->os_node[q])
				CPU_SET(c, &t->cpus[q]);
		/* memory: the node itself, else the nearest node with memory */
		int mem = -1, md = INT_MAX;
		for (unsigned m = 0; m < t->n_machine_nodes; m++)
			if (mem_ok[m] && (mdist[best][m] < md ||
					  (mdist[best][m] == md && (int)m == best))) {
				md = mdist[best][m];
				mem = t->machine_os_node[m];
			}
		t->mem_node[q] = mem;
	}
	for (unsigned a = 0; a < t->n_machine_nodes; a++)
		for (unsigned b = 0; b < t->n_machine_nodes; b++)
			if (qidx_of_machine[a] >= 0 && qidx_of_machine[b] >= 0)
				t->dist[qidx_of_machine[a]][qidx_of_machine[b]] = mdist[a][b];
	if (t->nnodes == 0) { /* no allowed CPU on any node: cannot happen for a running thread */
		seterr(err, errlen, "no NUMA node holds a CPU this process may use");
		return -ENODEV;
	}
	return 0;
}

int nr_topology_get(const char *spec, struct nr_topology *t, char *err, size_t errlen)
{
	cpu_set_t allowed;
	char e2[NR_ERRLEN];
	const char *origin = "topology";
	int rc;

	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		seterr(err, errlen, "sched_getaffinity failed: %s", strerror(errno));
		return -ENODEV;
	}
	if (!spec) {
		const char *env = getenv("NUMARING_TOPOLOGY");
		if (env && *env) {
			spec = env;
			origin = "NUMARING_TOPOLOGY";
		}
	}
	if (!spec)
		return nr_topology_discover(t, &allowed, err, errlen);
	rc = nr_topology_parse(spec, t, e2, sizeof e2);
	if (rc == 0)
		rc = nr_topology_check_allowed(t, &allowed, e2, sizeof e2);
	if (rc < 0) {
		/* e2 already starts with "topology ..." for parse errors */
		if (strncmp(e2, "topology", 8) == 0 && strcmp(origin, "topology") == 0)
			seterr(err, errlen, "%s", e2);
		else
			seterr(err, errlen, "%s: %s", origin, e2);
		return rc;
	}
	return 0;
}

void nr_topology_order(const struct nr_topology *t, unsigned node, unsigned char *order)
{
	unsigned n = t->nnodes, k = 0;
	for (unsigned step = 1; step < n; step++)
		order[k++] = (unsigned char)((node + step) % n);
	/* insertion sort by distance; stable, so ties keep the rotated order */
	for (unsigned i = 1; i < k; i++) {
		unsigned char v = order[i];
		unsigned j = i;
		while (j > 0 && t->dist[node][order[j - 1]] > t->dist[node][v]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
}

/* ---- the public names (numaring_topology.h) ------------------------------ */

/* Any size from 0.1's struct up to this library's; only the caller's bytes
 * are written (a smaller struct is filled through one of ours). */
int numaring_topology_get_sized(const char *spec, struct numaring_topology *t, size_t size,
				char *err, size_t errlen)
{
	if (size < NR_TOPOLOGY_SIZE_0_1 || size > sizeof *t) {
		seterr(err, errlen,
		       "the numaring_topology's size %zu is not one this library knows (%u..%zu): "
		       "pass sizeof of the struct, built against a numaring_topology.h",
		       size, NR_TOPOLOGY_SIZE_0_1, sizeof *t);
		return -EINVAL;
	}
	if (size == sizeof *t)
		return nr_topology_get(spec, t, err, errlen);
	struct numaring_topology *all = malloc(sizeof *all);
	if (!all) {
		seterr(err, errlen, "no memory for a numaring_topology");
		return -ENOMEM;
	}
	int rc = nr_topology_get(spec, all, err, errlen);
	if (rc == 0)
		memcpy(t, all, size);
	free(all);
	return rc;
}

int numaring_topology_get(const char *spec, struct numaring_topology *t, char *err,
			  size_t errlen)
{
	return numaring_topology_get_sized(spec, t, NR_TOPOLOGY_SIZE_0_1, err, errlen);
}

int numaring_cpulist_parse(const char *s, size_t len, numaring_cpuset_t *out, char *err,
			   size_t errlen)
{
	return nr_cpulist_parse(s, len, out, err, errlen);
}

int numaring_cpulist_format(const numaring_cpuset_t *set, char *buf, size_t len)
{
	return nr_cpulist_format(set, buf, len);
}
