/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_placement.c - each node's ring memory sits on the node the queue says
 * (its own node, or the nearest node with memory for a memory-less node).
 *
 * Checked page by page with move_pages (query mode) and, for the first page,
 * get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR). On a machine with one node the
 * check still runs against node 0, but it proves nothing about placement
 * across nodes: that part is skipped, saying why, and runs in make vm-test.
 */
#include "nr_test.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>

static void ring_memory_on_its_node(void **state)
{
	(void)state;
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.capacity = 1 << 14; /* 256 KiB of cells: many pages */
	unsetenv("NUMARING_TOPOLOGY");
	struct numaring *q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	unsigned nodes = numaring_node_count(q), checked = 0;
	long page = sysconf(_SC_PAGESIZE);
	for (unsigned n = 0; n < nodes; n++) {
		int want = numaring_node_memory(q, n);
		size_t len;
		const char *ring = numaring_node_ring(q, n, &len);
		if (want < 0) {
			print_message("node %u: memory placement not available here (no NUMA support or mbind refused)\n", n);
			continue;
		}
		size_t npages = len / (size_t)page;
		void **pages = calloc(npages, sizeof *pages);
		int *status = calloc(npages, sizeof *status);
		for (size_t i = 0; i < npages; i++)
			pages[i] = (void *)(ring + i * (size_t)page);
		assert_int_equal(move_pages(0, (unsigned long)npages, pages, NULL, status, 0), 0);
		for (size_t i = 0; i < npages; i++)
			if (status[i] != want)
				fail_msg("node %u: page %zu of its ring is on node %d, expected %d", n,
					 i, status[i], want);
		int first = -1;
		assert_int_equal(get_mempolicy(&first, NULL, 0, (void *)ring,
					       MPOL_F_NODE | MPOL_F_ADDR),
				 0);
		assert_int_equal(first, want);
		print_message("node %u (OS node %d): %zu pages, all on OS node %d\n", n,
			      numaring_node_os_index(q, n), npages, want);
		checked++;
		free(pages);
		free(status);
	}
	numaring_destroy(q);
	if (checked && nodes < 2) {
		print_message("one NUMA node here: placement across nodes is checked by make vm-test\n");
		skip();
	}
	if (!checked)
		skip();
}

static void emulated_topology_has_no_placement(void **state)
{
	(void)state;
	char spec[256];
	struct numaring *q = nr_test_create(64, 8, NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE,
					    nr_test_topology(spec, sizeof spec, 2, 1));
	for (unsigned n = 0; n < numaring_node_count(q); n++) {
		assert_int_equal(numaring_node_memory(q, n), -1);
		assert_int_equal(numaring_node_os_index(q, n), -1);
	}
	assert_int_equal(numaring_topology_emulated(q), 1);
	numaring_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_memory_on_its_node),
		cmocka_unit_test(emulated_topology_has_no_placement),
	};
	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
