/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_topology.c - libFuzzer target for nr_topology_parse and
 * nr_topology_order (ring/src/nr_topology.h). Pure: it never calls
 * numaring_create (which checks against this machine's allowed CPUs and
 * allocates rings).
 *
 * Input: the bytes, copied into an exact-size NUL-terminated heap buffer
 * (the parser takes a C string, so an input with an embedded NUL is cut
 * there, as a real NUMARING_TOPOLOGY would be).
 *
 * Findings (crash / abort) when the string is accepted:
 *   - nnodes outside 1..NR_MAX_NODES;
 *   - a CPU in two nodes;
 *   - a distance matrix whose diagonal is not 10, or an off-diagonal entry
 *     not in 11..255;
 *   - emulated/os_node/mem_node/machine_* fields not what an emulated
 *     topology promises (emulated 1, nodes -1, CPU counts);
 *   - nr_topology_order(node) not a permutation of the other nodes, not
 *     sorted by distance, or ties not in rotated order (node+1, node+2, ...);
 *   - a round trip through the canonical string (cpulists, "-" for
 *     memory-only nodes, "|" and the matrix) that does not give the same
 *     topology back.
 * And for every input: a sanitizer report, an error message that is not
 * NUL-terminated within errlen, or one that misquotes the input (the
 * topology string, the node's cpulist, the distance matrix; checked by
 * decoding the quote against the input, see quote_oracle.h).
 */
#define _GNU_SOURCE
#include "nr_topology.h"
#include "quote_oracle.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *g_data;
static size_t g_size;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_topology: %s; input (%zu bytes): \"", what, g_size);
	for (size_t i = 0; i < g_size && i < 300; i++)
		fprintf(stderr, (g_data[i] >= 0x20 && g_data[i] < 0x7f) ? "%c" : "\\x%02x",
			g_data[i]);
	fprintf(stderr, "\"\n");
	abort();
}

static void check_invariants(const struct nr_topology *t)
{
	cpu_set_t seen;
	unsigned n = t->nnodes;
	if (n < 1 || n > NR_MAX_NODES)
		fail("nnodes outside 1..64");
	if (!t->emulated || t->numa_available)
		fail("a parsed topology must say emulated=1, numa_available=0");
	if (t->n_machine_nodes != n)
		fail("n_machine_nodes != nnodes");
	CPU_ZERO(&seen);
	for (unsigned a = 0; a < n; a++) {
		cpu_set_t both;
		CPU_AND(&both, &seen, &t->cpus[a]);
		if (CPU_COUNT(&both))
			fail("a CPU belongs to two nodes");
		CPU_OR(&seen, &seen, &t->cpus[a]);
		if (t->os_node[a] != -1 || t->mem_node[a] != -1 || t->machine_os_node[a] != -1)
			fail("emulated nodes must have os_node = mem_node = machine_os_node = -1");
		if (t->machine_ncpus[a] != CPU_COUNT(&t->cpus[a]))
			fail("machine_ncpus != CPU_COUNT(cpus)");
		for (unsigned b = 0; b < n; b++) {
			int d = t->dist[a][b];
			if (a == b && d != 10)
				fail("distance diagonal is not 10");
			if (a != b && (d <= 10 || d > 255))
				fail("off-diagonal distance not in 11..255");
		}
	}
	/* nothing past nnodes may be set (callers size arrays by nnodes, but
	 * a stray write there would show an indexing bug) */
	for (unsigned a = n; a < NR_MAX_NODES; a++)
		if (CPU_COUNT(&t->cpus[a]))
			fail("CPUs set in a node past nnodes");

	for (unsigned node = 0; node < n; node++) {
		unsigned char order[NR_MAX_NODES];
		unsigned char hit[NR_MAX_NODES] = {0};
		memset(order, 0xff, sizeof order);
		nr_topology_order(t, node, order);
		for (unsigned k = 0; k + 1 < n; k++) {
			unsigned o = order[k];
			if (o >= n || o == node || hit[o])
				fail("nr_topology_order: not a permutation of the other nodes");
			hit[o] = 1;
			if (k > 0) {
				unsigned p = order[k - 1];
				if (t->dist[node][p] > t->dist[node][o])
					fail("nr_topology_order: not sorted by distance");
				/* ties: rotated order, i.e. (x - node) mod n increasing */
				if (t->dist[node][p] == t->dist[node][o] &&
				    (p + n - node) % n > (o + n - node) % n)
					fail("nr_topology_order: ties not in rotated order");
			}
		}
		if (n - 1 < NR_MAX_NODES && order[n - 1] != 0xff)
			fail("nr_topology_order wrote past nnodes - 1 entries");
	}
}

/* The canonical string of t: "cpus;cpus;-|d,d,...". */
static char *canonical(const struct nr_topology *t)
{
	size_t cap = 1 << 16, o = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	for (unsigned a = 0; a < t->nnodes; a++) {
		if (a)
			s[o++] = ';';
		if (CPU_COUNT(&t->cpus[a]) == 0) {
			s[o++] = '-';
			continue;
		}
		int k = nr_cpulist_format(&t->cpus[a], s + o, cap - o);
		if (k < 0)
			fail("nr_cpulist_format failed on a parsed node");
		o += (size_t)k;
	}
	s[o++] = '|';
	for (unsigned a = 0; a < t->nnodes; a++)
		for (unsigned b = 0; b < t->nnodes; b++)
			o += (size_t)snprintf(s + o, cap - o, "%s%d", a || b ? "," : "",
					      t->dist[a][b]);
	return s;
}

/* The full error message of a refused spec quotes what it should. */
static void check_message(const char *spec)
{
	static struct nr_topology t3;
	char msg[NR_ERRLEN];
	size_t len = strlen(spec);
	nr_topology_parse(spec, &t3, msg, sizeof msg);
	bool cut = strlen(msg) == sizeof msg - 1;
	if (strncmp(msg, "topology \"", 10) != 0)
		return; /* "no topology string", "empty topology string" */
	const char *rest = eat_quoted(msg + 9, spec, len, cut), *why = NULL;
	const char *bar = memchr(spec, '|', len);
	size_t nodes_len = bar ? (size_t)(bar - spec) : len;
	unsigned node;
	int used = 0;
	if (!rest) {
		why = "the topology string is not quoted as quote() promises";
	} else if (sscanf(rest, ", node %u: %n", &node, &used) == 1 && used > 0 &&
		   strncmp(rest + used, "cpulist \"", 9) == 0) {
		/* node `node`'s cpulist: the node-th ';'-separated piece */
		size_t a = 0, b;
		for (unsigned k = 0; k < node && a <= nodes_len; k++) {
			const char *semi = memchr(spec + a, ';', nodes_len - a);
			a = semi ? (size_t)(semi - spec) + 1 : nodes_len + 1;
		}
		if (a > nodes_len) {
			why = "the message names a node the string does not have";
		} else {
			const char *semi = memchr(spec + a, ';', nodes_len - a);
			b = semi ? (size_t)(semi - spec) : nodes_len;
			why = check_list_message(rest + used, "cpulist", spec + a, b - a, cut);
		}
	} else if (bar && strncmp(rest, ": distance matrix \"", 19) == 0) {
		why = check_list_message(rest + 2, "distance matrix", bar + 1, len - nodes_len - 1,
					 cut);
	}
	if (why) {
		fprintf(stderr, "message: %s\n", msg);
		fail(why);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nr_topology t, t2;
	char *spec = malloc(size + 1);
	size_t errlen = 1 + (size ? data[0] % 97 : 0) + (size > 1 && (data[1] & 1) ? 256 : 0);
	char *err = malloc(errlen);
	if (!spec || !err) {
		free(spec);
		free(err);
		return 0;
	}
	g_data = data;
	g_size = size;
	memcpy(spec, data, size);
	spec[size] = '\0';
	memset(err, 'X', errlen);

	int rc = nr_topology_parse(spec, &t, err, errlen);
	if (rc != 0 && rc != -EINVAL)
		fail("parse returned neither 0 nor -EINVAL");
	if (rc < 0) {
		if (!memchr(err, '\0', errlen))
			fail("error message not NUL-terminated");
		check_message(spec);
		goto out;
	}
	check_invariants(&t);

	char *canon = canonical(&t);
	if (!canon)
		goto out;
	char e2[NR_ERRLEN];
	if (nr_topology_parse(canon, &t2, e2, sizeof e2) != 0) {
		fprintf(stderr, "canonical \"%.300s\" refused: %s\n", canon, e2);
		fail("round trip: canonical string refused");
	}
	if (t2.nnodes != t.nnodes)
		fail("round trip: node count differs");
	for (unsigned a = 0; a < t.nnodes; a++) {
		if (!CPU_EQUAL(&t.cpus[a], &t2.cpus[a]))
			fail("round trip: CPUs differ");
		for (unsigned b = 0; b < t.nnodes; b++)
			if (t.dist[a][b] != t2.dist[a][b])
				fail("round trip: distances differ");
	}
	free(canon);
out:
	free(spec);
	free(err);
	return 0;
}
