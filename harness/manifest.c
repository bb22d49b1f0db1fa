/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * manifest.c - `numaring-bench --manifest` (see manifest.h): the names the
 * scripts need, printed from the harness's own tables. The layout is fixed
 * (keys in this order, two-space indentation) so that the committed copy,
 * scripts/manifest.json, compares byte for byte.
 */
#include "manifest.h"

#include <stdio.h>

#include "item.h"
#include "item_sum.h"
#include "bounds.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "options.h"
#include "output.h"
#include "probe_rows.h"
#include "qmem.h"
#include "queue.h"
#include "schema.h"

static const char *yes(int v)
{
	return v ? "true" : "false";
}

/* A list of names on one line: ["a", "b"]. name(i) for i in 0..n, skipping
 * the NULLs. */
static void names(FILE *f, unsigned n, const char *(*name)(unsigned i))
{
	int first = 1;
	fputc('[', f);
	for (unsigned i = 0; i < n; i++) {
		const char *s = name(i);
		if (!s)
			continue;
		fputs(first ? "" : ", ", f);
		hb_json_str(f, s);
		first = 0;
	}
	fputc(']', f);
}

static const char *lookup_at(unsigned i)
{
	return numaring_lookup_name((enum numaring_lookup)i);
}

static const char *gate_at(unsigned i)
{
	return numaring_gate_name((enum numaring_gate)i);
}

static const char *backoff_at(unsigned i)
{
	return numaring_backoff_name((enum numaring_backoff)i);
}

static const char *workload_at(unsigned i)
{
	return hb_workload_name((enum hb_workload)i);
}

/* The workloads whose every thread enqueues and dequeues (hb_symmetric). */
static const char *symmetric_at(unsigned i)
{
	struct hb_options o = {.workload = (enum hb_workload)i};
	return hb_symmetric(&o) ? hb_workload_name(o.workload) : NULL;
}

/* The placements --pin takes by name (a cpulist and nodes:P/C are the other
 * kinds of value: HB_PIN_LIST and HB_PIN_NODES, which no name alone selects). */
static const char *pin_at(unsigned i)
{
	return i == HB_PIN_LIST || i == HB_PIN_NODES ? NULL : hb_pin_name((enum hb_pin)i);
}

static const char *smt_at(unsigned i)
{
	return hb_smt_name((enum hb_smt)i);
}

static const char *item_at(unsigned i)
{
	return hb_item_name((enum hb_item_kind)i);
}

/* The item kinds of a queue that takes message items only (queue.h). */
static const char *message_item_at(unsigned i)
{
	return i == HB_ITEM_MESSAGE ? item_at(i) : NULL;
}

static const char *accounting_at(unsigned i)
{
	return hb_accounting_name((enum hb_accounting)i);
}

/* --queue-mem's values as it takes them: node:N for the node policy. */
static const char *queue_mem_at(unsigned i)
{
	return i == HB_QMEM_NODE ? "node:N" : hb_qmem_policy_name((enum hb_qmem_policy)i);
}

static const char *stat_at(unsigned i)
{
	return hq_stat_name((enum hq_stat)i);
}

static const char *const probe_kinds[HP_ROW_COUNT_] = {
#define HP_ROW_NAME(k) #k,
	HP_ROW_KINDS(HP_ROW_NAME)
#undef HP_ROW_NAME
};

static const char *probe_kind_at(unsigned i)
{
	return probe_kinds[i];
}

static const char *const probe_facts[HP_FACT_COUNT_] = {
#define HP_FACT_NAME(k) #k,
	HP_META_FACTS(HP_FACT_NAME)
#undef HP_FACT_NAME
};

static const char *probe_fact_at(unsigned i)
{
	return probe_facts[i];
}

/* One queue's object. What the harness does with each flag: queue.h. */
static void queue(FILE *f, const struct hq_ops *o)
{
	fputs("    {\"name\": ", f);
	hb_json_str(f, o->name);
	fputs(", \"description\": ", f);
	hb_json_str(f, o->description);
	fprintf(f,
		",\n     \"test_only\": %s, \"bounded\": %s, \"moves_data\": %s, \"fabricates\": %s,"
		"\n     \"bursts\": %s, \"enqueue_burst\": %s, \"dequeue_burst\": %s,",
		yes(o->test_only), yes(o->bounded), yes(o->moves_data), yes(o->fabricates),
		yes(o->enqueue_burst && o->dequeue_burst), yes(o->enqueue_burst != NULL),
		yes(o->dequeue_burst != NULL));
	fputs("\n     \"ordering\": ", f);
	hb_json_str(f, o->ordering);
	fputs(", \"capacity_kind\": ", f);
	hb_json_str(f, o->capacity_kind);
	/* how --queue-mem reaches its memory, and what a count of its pages
	 * leaves out (queue.h) */
	fputs(",\n     \"memory\": ", f);
	hb_json_str(f, o->memory);
	fputs(", \"memory_left_out\": ", f);
	if (o->uncounted)
		hb_json_str(f, o->uncounted);
	else
		fputs("null", f);
	/* latency by path: summary.csv's latency_<path>_* and latency-path.csv */
	fprintf(f, ", \"latency_paths\": %s,", yes(o->dequeue_paths != NULL));
	/* The item kinds a run of it carries: a queue that neither moves nor
	 * makes up items runs with inline ones whatever --item says (bench.c,
	 * the run's item); one that takes pointers only, message ones (--item
	 * inline is refused for it: options.c). */
	fputs("\n     \"items\": ", f);
	if (o->message_only)
		names(f, HB_ITEM_COUNT_, message_item_at);
	else
		names(f, o->moves_data || o->fabricates ? HB_ITEM_COUNT_ : 1, item_at);
	/* Every adapter runs every workload: the workloads drive the queue
	 * through queue.h's operations alone (workers.c, workload.c). */
	fputs(", \"workloads\": ", f);
	names(f, HB_WORKLOAD_COUNT_, workload_at);
	fputs(",\n     \"settings\": [", f);
	for (const char *const *s = o->settings; s && *s; s++) {
		fputs(s == o->settings ? "" : ", ", f);
		hb_json_str(f, *s);
	}
	fputs("],\n     \"counters\": [", f);
	int first = 1;
	for (unsigned i = 0; i < HQ_STAT_COUNT_; i++)
		if (o->stats_mask & (1u << i)) {
			fputs(first ? "" : ", ", f);
			hb_json_str(f, stat_at(i));
			first = 0;
		}
	fputs("]}", f);
}

/* A bound: whole ones as integers (exact in a double: bounds.h). */
static void bound(FILE *f, int whole, double v)
{
	if (whole)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

struct hb_column_info {
	const char *name, *type, *description;
};

static const struct hb_column_info columns[HB_COL_COUNT_] = {
#define HB_COL_INFO(n, t, d) {#n, #t, d},
	HB_SUMMARY_COLUMNS(HB_COL_INFO)
#undef HB_COL_INFO
};

void hb_print_manifest(FILE *f)
{
	fputs("{\n  \"about\": \"numaring-bench --manifest: the names of the harness's tables; "
	      "scripts/manifest.json is a copy (build/numaring-bench --manifest > "
	      "scripts/manifest.json)\",\n",
	      f);
	fputs("  \"queues\": [\n", f);
	for (int i = 0; hq_all[i]; i++) {
		queue(f, hq_all[i]);
		fputs(hq_all[i + 1] ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"lookups\": ", f);
	names(f, NUMARING_LOOKUP_COUNT_, lookup_at);
	fputs(",\n  \"gates\": ", f);
	names(f, NUMARING_GATE_COUNT_, gate_at);
	fputs(",\n  \"backoffs\": ", f);
	names(f, NUMARING_BACKOFF_COUNT_, backoff_at);
	/* the production default (ring/numaring.h): what bench-backoff judges */
	fprintf(f, ",\n  \"backoff_default\": \"%s\"",
		numaring_backoff_name(NUMARING_BACKOFF_DEFAULT));
	fputs(",\n  \"workloads\": ", f);
	names(f, HB_WORKLOAD_COUNT_, workload_at);
	fputs(",\n  \"symmetric_workloads\": ", f);
	names(f, HB_WORKLOAD_COUNT_, symmetric_at);
	fputs(",\n  \"pins\": ", f);
	names(f, HB_PIN_COUNT_, pin_at);
	fputs(",\n  \"smts\": ", f);
	names(f, HB_SMT_COUNT_, smt_at);
	fputs(",\n  \"queue_mems\": ", f);
	names(f, HB_QMEM_COUNT_, queue_mem_at);
	/* the node numbers --pin nodes:P/C and --queue-mem node:N accept (the
	 * experiment files' parser reads them: one range for both sides) */
	fprintf(f, ",\n  \"pin_max_node\": %d", NUMARING_MAX_NODES - 1);
	fprintf(f, ",\n  \"queue_mem_max_node\": %d", HB_QMEM_MAX_NODES - 1);
	fputs(",\n  \"items\": ", f);
	names(f, HB_ITEM_COUNT_, item_at);
	fputs(",\n  \"accountings\": ", f);
	names(f, HB_ACCOUNT_COUNT_, accounting_at);
	fputs(",\n  \"queue_counters\": ", f);
	names(f, HQ_STAT_COUNT_, stat_at);
	fputs(",\n  \"probe_kinds\": ", f);
	names(f, HP_ROW_COUNT_, probe_kind_at);
	fputs(",\n  \"probe_meta\": ", f);
	names(f, HP_FACT_COUNT_, probe_fact_at);
	fputs(",\n  \"limits\": {\n", f);
	for (int i = 0; i < HB_LIM_COUNT_; i++) {
		const struct hb_limit *l = &hb_limits[i];
		fputs("    ", f);
		hb_json_str(f, l->option);
		fprintf(f, ": {\"whole\": %s, \"min\": ", yes(l->whole));
		bound(f, l->whole, l->min);
		fputs(", \"max\": ", f);
		bound(f, l->whole, l->max);
		fprintf(f, ", \"min_in\": %s, \"max_in\": %s, \"pow2\": %s}%s\n", yes(l->min_in),
			yes(l->max_in), yes(l->pow2), i + 1 < HB_LIM_COUNT_ ? "," : "");
	}
	fputs("  },\n  \"summary_columns\": [\n", f);
	for (int i = 0; i < HB_COL_COUNT_; i++) {
		fputs("    {\"name\": ", f);
		hb_json_str(f, columns[i].name);
		fputs(", \"type\": ", f);
		hb_json_str(f, columns[i].type);
		fputs(", \"description\": ", f);
		hb_json_str(f, columns[i].description);
		fputs(i + 1 < HB_COL_COUNT_ ? "},\n" : "}\n", f);
	}
	fputs("  ]\n}\n", f);
}
