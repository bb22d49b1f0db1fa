/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_rows.h - the kinds of probe.csv's rows and the facts of its meta
 * rows, one table each: the probe (harness/probe*.c) writes every row's
 * kind through HP_KIND() and every fact through HP_FACT(), and
 * `numaring-bench --manifest` lists both for the scripts
 * (scripts/manifest.json; scripts/ceiling.py reads the rows). What each
 * kind measures: probe.h.
 *
 * HP_KIND(k) is the string "k", and does not compile for a k the table lacks.
 */
#ifndef HP_PROBE_ROWS_H
#define HP_PROBE_ROWS_H

#define HP_ROW_KINDS(X)                                                                   \
	X(c2c_rtt)                                                                        \
	X(c2c_same_node)                                                                  \
	X(c2c_other_node)                                                                 \
	X(c2c_one_way_same_node)                                                          \
	X(c2c_one_way_other_node)                                                         \
	X(lookup_ns)                                                                      \
	X(pause_ns)                                                                       \
	X(handover_stamped_ns)                                                            \
	X(faa_contended_ns)                                                               \
	X(faa_uncontended_ns)                                                             \
	X(faa_contended_other_node_ns)                                                    \
	X(c2c_bw_same_node_gbs)                                                           \
	X(c2c_bw_other_node_gbs)                                                          \
	X(c2c_bw_mt_same_node_gbs)                                                        \
	X(c2c_bw_mt_other_node_gbs)                                                       \
	X(bw_local_gbs)                                                                   \
	X(bw_remote_gbs)                                                                  \
	X(bw_local_mt_gbs)                                                                \
	X(bw_remote_mt_gbs)                                                               \
	X(meta)

/* The facts of the meta rows (their method field names the fact). */
#define HP_META_FACTS(X)                                                                  \
	X(topology)                                                                       \
	X(clock)                                                                          \
	X(timer_overhead_ns)                                                              \
	X(nodes)                                                                          \
	X(cpus)                                                                           \
	X(rounds)                                                                         \
	X(mode)

enum hp_row_kind {
#define HP_ROW_ENUM(k) HP_ROW_##k,
	HP_ROW_KINDS(HP_ROW_ENUM)
#undef HP_ROW_ENUM
	HP_ROW_COUNT_
};

enum hp_meta_fact {
#define HP_FACT_ENUM(k) HP_FACT_##k,
	HP_META_FACTS(HP_FACT_ENUM)
#undef HP_FACT_ENUM
	HP_FACT_COUNT_
};

#define HP_KIND(k) ((void)HP_ROW_##k, #k)
#define HP_FACT(k) ((void)HP_FACT_##k, #k)

#endif /* HP_PROBE_ROWS_H */
