/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_abi_headers.c - the public headers decide no feature macro and
 * compile whatever the includer's (issue 23, "ABI kept"). make test-ring
 * builds this file three ways and runs each:
 *   -std=c11, nothing defined (NR_EXPECT_PLAIN): the headers come first and
 *       must leave _GNU_SOURCE undefined; numaring_cpuset_t is then the
 *       library's own struct, read with numaring_cpuset_isset/count;
 *   -std=c11 -D_GNU_SOURCE (NR_EXPECT_GNU): numaring_cpuset_t is cpu_set_t
 *       and <sched.h>'s CPU_* macros agree with the helpers;
 *   C++ (g++ defines _GNU_SOURCE itself): the same, through extern "C".
 * Each fills today's topology struct through numaring_topology_get_sized,
 * checks the sizes it refuses, and parses and formats a cpulist.
 */
#include "numaring.h"
#include "numaring_lab.h"
#include "numaring_topology.h"

#if defined(NR_EXPECT_PLAIN)
#if defined(_GNU_SOURCE)
#error "a numaring header defined _GNU_SOURCE"
#endif
#if defined(CPU_SETSIZE)
#error "cpu_set_t is declared although the includer did not ask for it: the test proves nothing"
#endif
#elif defined(NR_EXPECT_GNU) || defined(__cplusplus)
#if !defined(CPU_SETSIZE)
#error "_GNU_SOURCE is defined but <sched.h> declared no cpu_set_t"
#endif
#define NR_HAVE_CPU_SET 1
#else
#error "build with -DNR_EXPECT_PLAIN or -DNR_EXPECT_GNU (or as C++)"
#endif

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#include <type_traits>
static_assert(std::is_same<numaring_cpuset_t, cpu_set_t>::value, "numaring_cpuset_t is cpu_set_t");
#elif defined(NR_HAVE_CPU_SET)
_Static_assert(__builtin_types_compatible_p(numaring_cpuset_t, cpu_set_t),
	       "numaring_cpuset_t is cpu_set_t where the includer has it");
#endif

static int failures;
#define CHECK(c)                                                                            \
	do {                                                                                \
		if (!(c)) {                                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			failures++;                                                         \
		}                                                                           \
	} while (0)

static void cpulists(void)
{
	numaring_cpuset_t s;
	char err[NUMARING_ERRLEN], buf[64];
	const char *list = "0-2,5,64,1023";
	CHECK(numaring_cpulist_parse(list, strlen(list), &s, err, sizeof err) == 0);
	CHECK(numaring_cpuset_count(&s) == 6);
	CHECK(numaring_cpuset_isset(&s, 0) && numaring_cpuset_isset(&s, 2));
	CHECK(!numaring_cpuset_isset(&s, 3) && numaring_cpuset_isset(&s, 5));
	CHECK(numaring_cpuset_isset(&s, 64) && numaring_cpuset_isset(&s, 1023));
	CHECK(!numaring_cpuset_isset(&s, 1024) && !numaring_cpuset_isset(&s, 100000));
	CHECK(numaring_cpulist_format(&s, buf, sizeof buf) == (int)strlen(list));
	CHECK(strcmp(buf, list) == 0);
#ifdef NR_HAVE_CPU_SET
	CHECK(CPU_COUNT(&s) == 6 && CPU_ISSET(1023, &s) && !CPU_ISSET(3, &s));
#endif
	CHECK(numaring_cpulist_parse("2-1", 3, &s, err, sizeof err) == -EINVAL);
}

/* Every node of t as a spec, one cpulist (or "-") per node, plus a
 * memory-only node: the same CPUs, one node more. */
static int spec_of(const struct numaring_topology *t, char *spec, size_t len)
{
	size_t o = 0;
	for (unsigned n = 0; n < t->nnodes; n++) {
		if (o + 2 >= len)
			return -1;
		if (n)
			spec[o++] = ';';
		if (numaring_cpuset_count(&t->cpus[n]) == 0) {
			spec[o++] = '-';
			continue;
		}
		int k = numaring_cpulist_format(&t->cpus[n], spec + o, len - o);
		if (k < 0)
			return -1;
		o += (size_t)k;
	}
	if (o + 3 >= len)
		return -1;
	memcpy(spec + o, ";-", 3);
	return 0;
}

static void topology(void)
{
	char err[NUMARING_ERRLEN];
	struct numaring_topology *t = (struct numaring_topology *)malloc(sizeof *t);
	struct numaring_topology *e = (struct numaring_topology *)malloc(sizeof *e);
	char *spec = (char *)malloc(NUMARING_MAX_NODES * 4200);
	if (!t || !e || !spec) {
		CHECK(!"memory");
		return;
	}
	/* the topology numaring_create would use (NUMARING_TOPOLOGY, else the machine) */
	int rc = numaring_topology_get_sized(NULL, t, sizeof *t, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "numaring_topology_get_sized: %s\n", err);
	CHECK(rc == 0);
	if (rc == 0 && t->nnodes < NUMARING_MAX_NODES &&
	    spec_of(t, spec, NUMARING_MAX_NODES * 4200) == 0) {
		rc = numaring_topology_get_sized(spec, e, sizeof *e, err, sizeof err);
		if (rc != 0)
			fprintf(stderr, "numaring_topology_get_sized(\"%s\"): %s\n", spec, err);
		CHECK(rc == 0);
		CHECK(e->emulated == 1 && e->nnodes == t->nnodes + 1);
		for (unsigned n = 0; rc == 0 && n < t->nnodes; n++)
			CHECK(memcmp(&e->cpus[n], &t->cpus[n], sizeof e->cpus[n]) == 0);
		CHECK(numaring_cpuset_count(&e->cpus[t->nnodes]) == 0);
		/* the unsized 0.1 entry writes the same struct */
		memset(t, 0, sizeof *t);
		CHECK(numaring_topology_get(spec, t, err, sizeof err) == 0);
		CHECK(memcmp(t, e, sizeof *t) == 0);
	}
	/* a caller of 0.1's struct (it ends with machine_ncpus): those bytes only */
	const size_t end_0_1 = offsetof(struct numaring_topology, machine_ncpus) + sizeof t->machine_ncpus;
	memset(t, 0x5a, sizeof *t);
	CHECK(numaring_topology_get_sized(NULL, t, end_0_1, err, sizeof err) == 0);
	CHECK(t->nnodes >= 1 && t->nnodes <= NUMARING_MAX_NODES);
	int untouched = 1;
	for (size_t i = end_0_1; i < sizeof *t; i++)
		untouched &= ((const unsigned char *)t)[i] == 0x5a;
	CHECK(untouched);
	/* sizes of no release: refused, and the struct untouched */
	const size_t bad[] = {0, 1, end_0_1 - 1, sizeof *t + 8};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		memset(t, 0x5a, sizeof *t);
		err[0] = '\0';
		CHECK(numaring_topology_get_sized(NULL, t, bad[k], err, sizeof err) == -EINVAL);
		CHECK(strstr(err, "numaring_topology") != NULL);
		CHECK(t->nnodes == 0x5a5a5a5au && t->machine_ncpus[NUMARING_MAX_NODES - 1] == 0x5a5a5a5a);
	}
	free(spec);
	free(e);
	free(t);
}

int main(void)
{
	cpulists();
	topology();
	/* numaring.h works in this mode too, and numaring_lab.h compiles in it
	 * (its functions are libnumaring_lab's: this links the production
	 * library, as a user's program does) */
	struct numaring_config cfg;
	numaring_config_init(&cfg);
	CHECK(cfg.size == sizeof cfg);
	CHECK(strcmp(numaring_backoff_name(NUMARING_BACKOFF_EXP), "exp") == 0);
	struct numaring_lab lab = {sizeof lab, NUMARING_LOOKUP_CACHED, 256, NUMARING_GATE_PERWORKER,
				   0, 0, 0};
	CHECK(lab.lookup == NUMARING_LOOKUP_CACHED);
	if (failures) {
		fprintf(stderr, "test_abi_headers: %d checks failed\n", failures);
		return 1;
	}
	printf("test_abi_headers (%s): the public headers compile and work without a feature "
	       "macro of theirs\n",
#ifdef __cplusplus
	       "C++"
#elif defined(NR_EXPECT_PLAIN)
	       "C11, no _GNU_SOURCE"
#else
	       "C11, _GNU_SOURCE"
#endif
	);
	return 0;
}
