/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report.c - what numaring-bench writes: summary.csv (its columns from the
 * one table in schema.h), the latency distribution (.hgrm and CSV; by path
 * in latency-path.csv for a queue that has paths),
 * meta.json (the host, the build, the command, the threads' placement and
 * the harness's own ceiling), --show-topology and --schema.
 *
 * Why this file is long: meta.json records every fact a reader needs to
 * re-read a run (placement, memory, items, the order check, the harness's
 * ceiling, counters), each in its own small writer here beside the summary
 * row that those facts explain; splitting them would split one format.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "clock.h"
#include "errors.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "output.h"
#include "run.h"
#include "schema.h"
#include "version.h"

#ifndef NUMARING_GIT
#define NUMARING_GIT "unknown"
#endif
#ifndef NUMARING_CFLAGS
#define NUMARING_CFLAGS "unknown"
#endif

/* ---- the schema ---------------------------------------------------------- */

struct hb_column_info {
	const char *name, *type, *description;
};

static const struct hb_column_info columns[HB_COL_COUNT_] = {
#define HB_COL_INFO(n, t, d) {#n, #t, d},
	HB_SUMMARY_COLUMNS(HB_COL_INFO)
#undef HB_COL_INFO
};

void hb_print_schema(FILE *f)
{
	fprintf(f, "column,type,description\n");
	for (int i = 0; i < HB_COL_COUNT_; i++) {
		fprintf(f, "%s,%s,", columns[i].name, columns[i].type);
		hb_csv_field(f, columns[i].description);
		fputc('\n', f);
	}
}

/* One row of summary.csv: a cell per column, empty unless set. */
struct row {
	char *cell[HB_COL_COUNT_];
};

__attribute__((format(printf, 3, 4))) static void set(struct row *r, enum hb_column c,
						       const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL; /* out of memory: the cell stays empty */
	va_end(ap);
	free(r->cell[c]);
	r->cell[c] = s;
}

static void set_u64(struct row *r, enum hb_column c, uint64_t v)
{
	set(r, c, "%llu", (unsigned long long)v);
}

static void write_row(FILE *f, const struct row *r)
{
	for (int i = 0; i < HB_COL_COUNT_; i++)
		fprintf(f, "%s%s", i ? "," : "", columns[i].name);
	fputc('\n', f);
	for (int i = 0; i < HB_COL_COUNT_; i++) {
		if (i)
			fputc(',', f);
		if (r->cell[i])
			hb_csv_field(f, r->cell[i]);
	}
	fputc('\n', f);
}

static void free_row(struct row *r)
{
	for (int i = 0; i < HB_COL_COUNT_; i++)
		free(r->cell[i]);
}

/* ---- describing the host --------------------------------------------------- */

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0) {
			char *v = strchr(line, ':');
			if (v) {
				v++;
				while (*v == ' ' || *v == '\t')
					v++;
				v[strcspn(v, "\n")] = '\0';
				snprintf(buf, len, "%s", v);
				break;
			}
		}
	}
	fclose(f);
}

/*
 * Is this a virtual machine, and do its timings mean anything? Looked up as
 * systemd-detect-virt does: the hypervisor's CPUID signature first (leaf
 * 0x40000000, present when CPUID.1:ECX bit 31 says a hypervisor runs), then
 * the DMI system vendor. QEMU without KVM (TCG, how make vm-test and
 * make vm-experiments run) signs "TCGTCGTCGTCG": every guest instruction is
 * translated in software, so nothing timed there says anything about a
 * machine. Under KVM, VMware, Hyper-V or Xen the CPU runs the code itself:
 * a cloud VM's timings are real (if noisy).
 */
struct virt {
	char signature[13];	/* CPUID 0x40000000 EBX ECX EDX, "" when none */
	char sys_vendor[128];	/* /sys/class/dmi/id/sys_vendor, "" when none */
	const char *kind;	/* none, qemu-tcg, kvm, vmware, hyperv, xen, qemu, other */
	int timings_meaningful;
};

static void detect_virt(struct virt *v, const char *model)
{
	static const struct {
		const char *signature, *kind;
	} known[] = {
		{"TCGTCGTCGTCG", "qemu-tcg"}, {"KVMKVMKVM", "kvm"}, {"VMwareVMware", "vmware"},
		{"Microsoft Hv", "hyperv"}, {"XenVMMXenVMM", "xen"},
	};
	memset(v, 0, sizeof *v);
	v->kind = "none";
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	__cpuid(1, a, b, c, d);
	if (c & (1u << 31)) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(v->signature, &b, 4);
		memcpy(v->signature + 4, &c, 4);
		memcpy(v->signature + 8, &d, 4);
		for (int i = 0; i < 12; i++) /* printable, for the JSON */
			if (v->signature[i] && (v->signature[i] < 32 || v->signature[i] > 126))
				v->signature[i] = '?';
		v->kind = "other";
		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			if (strcmp(v->signature, known[i].signature) == 0)
				v->kind = known[i].kind;
	}
#endif
	FILE *f = fopen("/sys/class/dmi/id/sys_vendor", "r");
	if (f) {
		if (fgets(v->sys_vendor, sizeof v->sys_vendor, f))
			v->sys_vendor[strcspn(v->sys_vendor, "\n")] = '\0';
		fclose(f);
	}
	/* QEMU's board without a known signature: TCG with the hypervisor bit
	 * off still names its CPU model so */
	if (strcmp(v->kind, "none") == 0 && strcmp(v->sys_vendor, "QEMU") == 0)
		v->kind = strstr(model, "QEMU TCG") ? "qemu-tcg" : "qemu";
	v->timings_meaningful = strcmp(v->kind, "qemu-tcg") != 0;
}

static void json_virt(FILE *f, const char *model, const char *indent)
{
	struct virt v;
	detect_virt(&v, model);
	fprintf(f, "%s\"virtualization\": {\"kind\": \"%s\", \"cpuid_signature\": ", indent, v.kind);
	hb_json_str(f, v.signature);
	fprintf(f, ", \"sys_vendor\": ");
	hb_json_str(f, v.sys_vendor);
	fprintf(f, ", \"timings_meaningful\": %s", v.timings_meaningful ? "true" : "false");
	if (!v.timings_meaningful)
		fprintf(f, ", \"note\": \"guest: timings meaningless (QEMU TCG: software "
			   "emulation of the CPU)\"");
	fprintf(f, "},\n");
}

const char *hb_topology_origin(const struct hb_options *o)
{
	if (o->topology)
		return "--topology";
	const char *env = getenv("NUMARING_TOPOLOGY");
	return env && *env ? "NUMARING_TOPOLOGY" : "hwloc";
}

/* The topology string of an emulated run ("0;1"), or "real". */
void hb_topology_spec(const struct hb_options *o, const struct numaring_topology *t, char *buf,
			  size_t len)
{
	const char *env = getenv("NUMARING_TOPOLOGY");
	if (!t->emulated)
		snprintf(buf, len, "real");
	else
		snprintf(buf, len, "%s", o->topology ? o->topology : env);
}

static void json_topology(FILE *f, const struct numaring_topology *t, const char *indent)
{
	char cl[4096];
	fprintf(f, "%s\"nodes\": [", indent);
	for (unsigned n = 0; n < t->nnodes; n++) {
		numaring_cpulist_format(&t->cpus[n], cl, sizeof cl);
		fprintf(f, "%s\n%s  {\"index\": %u, \"os_node\": %d, \"cpus\": ", n ? "," : "", indent,
			n, t->os_node[n]);
		hb_json_str(f, cl);
		fprintf(f, ", \"ncpus\": %d, \"memory_node\": %d, \"memory_only\": %s}",
			CPU_COUNT(&t->cpus[n]), t->mem_node[n],
			CPU_COUNT(&t->cpus[n]) == 0 ? "true" : "false");
	}
	fprintf(f, "\n%s],\n%s\"distances\": [", indent, indent);
	for (unsigned a = 0; a < t->nnodes; a++) {
		fprintf(f, "%s[", a ? ", " : "");
		for (unsigned b = 0; b < t->nnodes; b++)
			fprintf(f, "%s%d", b ? ", " : "", t->dist[a][b]);
		fputc(']', f);
	}
	fprintf(f, "],\n");
}

/* "cores": the run's cores per node (the runner sizes `threads = all` by
 * them) and how many hardware threads a core has. */
static void json_cores(FILE *f, const struct hb_cpumap *m, unsigned nnodes)
{
	unsigned cpus, cores, tpc;
	hb_cpumap_count(m, &cpus, &cores, &tpc);
	fprintf(f, "  \"cores\": {\"from\": ");
	hb_json_str(f, m->cores_known ? "hwloc" : "unknown: hwloc reported no cores, every CPU "
						  "counted as a core");
	fprintf(f, ", \"cpus\": %u, \"cores\": %u, \"threads_per_core\": %u, \"per_node\": [",
		cpus, cores, tpc);
	for (unsigned k = 0; k < nnodes; k++) {
		struct hb_cpumap *one = malloc(sizeof *one);
		unsigned nc = 0, c1, t1;
		if (one) {
			one->n = 0;
			for (unsigned i = 0; i < m->n; i++)
				if (m->cpu[i].node == (int)k)
					one->cpu[one->n++] = m->cpu[i];
			hb_cpumap_count(one, &c1, &nc, &t1);
			free(one);
		}
		fprintf(f, "%s%u", k ? ", " : "", nc);
	}
	fprintf(f, "]},\n");
}

int hb_show_topology(const struct hb_options *o)
{
	struct numaring_topology *t = malloc(sizeof *t);
	struct hb_cpumap *cm = malloc(sizeof *cm);
	char err[NUMARING_ERRLEN], model[256], allowed_s[4096], host[256] = "";
	struct utsname u;
	cpu_set_t allowed;
	if (!t || !cm) {
		free(t);
		free(cm);
		return 1;
	}
	if (numaring_topology_get(o->topology, t, err, sizeof err) < 0) {
		hb_say("%s", err);
		free(t);
		free(cm);
		return 2;
	}
	if (hb_cpumap_discover(t, cm, err, sizeof err) < 0) {
		hb_say("cannot find the cores: %s", err);
		free(t);
		free(cm);
		return 1;
	}
	CPU_ZERO(&allowed);
	sched_getaffinity(0, sizeof allowed, &allowed);
	numaring_cpulist_format(&allowed, allowed_s, sizeof allowed_s);
	cpu_model(model, sizeof model);
	uname(&u);
	gethostname(host, sizeof host - 1);
	int rseq = numaring_rseq_node_supported(), rdpid = numaring_rdpid_supported();
	printf("{\n  \"topology\": \"%s\",\n  \"source\": ", t->emulated ? "emulated" : "real");
	hb_json_str(stdout, hb_topology_origin(o));
	printf(",\n  \"numa_available\": %s,\n  \"host\": ", t->numa_available ? "true" : "false");
	hb_json_str(stdout, host);
	printf(",\n  \"cpu_model\": ");
	hb_json_str(stdout, model);
	printf(",\n  \"kernel\": ");
	hb_json_str(stdout, u.release);
	printf(",\n  \"allowed_cpus\": ");
	hb_json_str(stdout, allowed_s);
	printf(",\n");
	json_virt(stdout, model, "  ");
	json_topology(stdout, t, "  ");
	printf("  \"machine_nodes\": [");
	for (unsigned m = 0; m < t->n_machine_nodes; m++)
		printf("%s\n    {\"os_node\": %d, \"cpus_total\": %d, \"memory_bytes\": %llu}",
		       m ? "," : "", t->machine_os_node[m], t->machine_ncpus[m],
		       t->machine_mem_bytes[m]);
	printf("\n  ],\n");
	json_cores(stdout, cm, t->nnodes);
	printf("  \"rseq_node_id\": %s,\n  \"rdpid\": %s,\n", rseq ? "true" : "false",
	       rdpid ? "true" : "false");
	printf("  \"lookup_modes\": {\"libnuma\": \"%s\", \"syscall\": \"syscall\", \"table\": \"table\", "
	       "\"cached\": \"cached\", \"rseq\": \"%s\", \"rdpid\": \"%s\", \"none\": \"none\"}\n}\n",
	       t->numa_available ? "libnuma" : "libnuma (no NUMA: maps through the CPU table)",
	       rseq ? "rseq" : "table (rseq node_id not supported here)",
	       rdpid ? "rdpid" : "table (no rdpid instruction)");
	free(t);
	free(cm);
	return 0;
}


/* ---- the result ------------------------------------------------------------ */

static void fill_summary(struct row *row, const struct hb_report *r)
{
	const struct hb_options *o = r->o;
	const struct hb_measure *m = r->m;
	const struct hq_ops *q = o->queue;
	set(row, HB_COL_queue, "%s", q->name);
	/* as asked: faa carries no item in either mode, and its row belongs
	 * with the other queues' rows of that mode */
	set(row, HB_COL_item, "%s", hb_item_name(o->item));
	set(row, HB_COL_sample, "%llu", (unsigned long long)r->run->sample_mask + 1);
	set(row, HB_COL_workload, "%s", hb_workload_name(o->workload));
	set(row, HB_COL_threads, "%u", o->threads);
	set(row, HB_COL_producers, "%u", o->producers);
	set(row, HB_COL_consumers, "%u", o->consumers);
	if (o->workload == HB_WORKLOAD_MIXED) {
		set(row, HB_COL_enqueue_share, "%g", o->enqueue_share);
		set_u64(row, HB_COL_prefill, m->prefilled);
	}
	set_u64(row, HB_COL_work_ns, o->work_ns);
	set_u64(row, HB_COL_work_min_ns, o->work_min_ns);
	if (!hb_symmetric(o)) {
		set_u64(row, HB_COL_producer_work_ns, o->producer_work_ns);
		set_u64(row, HB_COL_consumer_work_ns, o->consumer_work_ns);
	}
	if (r->work->done)
		set(row, HB_COL_work_loops_per_ns, "%.4f", r->work->loops_per_ns);
	if (hb_draws(o))
		set_u64(row, HB_COL_seed, o->seed);
	if (hq_takes(q, "lookup")) {
		set(row, HB_COL_lookup, "%s", numaring_lookup_name(o->lookup));
		set(row, HB_COL_lookup_in_force, "%s", r->lookup_in_force);
	}
	if (hq_takes(q, "recheck"))
		set(row, HB_COL_recheck, "%u", o->recheck);
	if (hq_takes(q, "gate"))
		set(row, HB_COL_gate, "%s", numaring_gate_name(o->gate));
	if (hq_takes(q, "backoff"))
		set(row, HB_COL_backoff, "%s", numaring_backoff_name(o->backoff));
	if (hq_takes(q, "linger"))
		set(row, HB_COL_linger_us, "%u", o->linger_us);
	if (*r->pause_spin_in_force)
		set(row, HB_COL_pause_spin, "%s", r->pause_spin_in_force);
	if (*r->exp_cap_in_force)
		set(row, HB_COL_exp_cap, "%s", r->exp_cap_in_force);
	set(row, HB_COL_batch, "%u", o->batch);
	set(row, HB_COL_bursts, "%d", o->bursts);
	set(row, HB_COL_capacity, "%zu", o->capacity);
	set(row, HB_COL_capacity_scope, "%s", o->capacity_per_node ? "node" : "queue");
	set(row, HB_COL_queue_slots, "%zu", r->run->holds);
	set(row, HB_COL_pin, "%s",
	    o->pin == HB_PIN_LIST || o->pin == HB_PIN_NODES ? o->pin_list : hb_pin_name(o->pin));
	set(row, HB_COL_smt, "%s", hb_smt_name(o->smt));
	if (r->sharing.known) {
		set(row, HB_COL_threads_per_core, "%u", r->sharing.threads_per_core);
		set(row, HB_COL_smt_shared, "%d", r->sharing.smt_shared);
	}
	char asked[32], pages[1024];
	hb_qmem_policy_format(o->queue_mem, o->queue_mem_node, asked, sizeof asked);
	set(row, HB_COL_queue_mem, "%s", asked);
	hb_qmem_pages_format(&m->qpages, r->t, pages, sizeof pages);
	if (*pages)
		set(row, HB_COL_queue_pages, "%s", pages);
	set(row, HB_COL_topology_kind, "%s", r->t->emulated ? "emulated" : "real");
	set(row, HB_COL_topology, "%s", r->topo_spec);
	set(row, HB_COL_nodes, "%u", r->t->nnodes);
	set(row, HB_COL_rate, "%.0f", m->offered_rate);
	if (o->load > 0) {
		set(row, HB_COL_load, "%g", o->load);
		set(row, HB_COL_capacity_ops_per_s, "%.1f", m->capacity);
	}
	set(row, HB_COL_warmup_s, "%g", o->warmup_s);
	set_u64(row, HB_COL_ops, m->ops);
	set(row, HB_COL_ops_kind, "%s", hb_symmetric(o) ? "operations" : "items");
	set(row, HB_COL_duration_s, "%.6f", m->duration_s);
	set(row, HB_COL_throughput_ops_per_s, "%.1f", m->throughput);
	set(row, HB_COL_enqueue_ops_per_s, "%.1f", m->enqueue_rate);
	set(row, HB_COL_dequeue_ops_per_s, "%.1f", m->dequeue_rate);
	if (r->cal->done) {
		set(row, HB_COL_harness_ops_per_s, "%.1f", r->cal->ceiling);
		set(row, HB_COL_harness_ns_per_item, "%.2f",
		    r->cal->producer_ns > r->cal->consumer_ns ? r->cal->producer_ns
							      : r->cal->consumer_ns);
	}
	if (m->c2c_before_ns >= 0)
		set(row, HB_COL_c2c_one_way_before_ns, "%.1f", m->c2c_before_ns);
	if (m->c2c_after_ns >= 0)
		set(row, HB_COL_c2c_one_way_after_ns, "%.1f", m->c2c_after_ns);
	if (m->latency_count > 0) {
		set(row, HB_COL_p50_ns, "%lld", (long long)m->p50);
		set(row, HB_COL_p90_ns, "%lld", (long long)m->p90);
		set(row, HB_COL_p99_ns, "%lld", (long long)m->p99);
		set(row, HB_COL_p999_ns, "%lld", (long long)m->p999);
		set(row, HB_COL_max_ns, "%lld", (long long)m->max);
		set(row, HB_COL_mean_ns, "%.1f", m->mean);
	}
	set(row, HB_COL_latency_count, "%lld", (long long)m->latency_count);
	/* latency by path: each path's count, and its percentiles where it has
	 * items; empty for a queue without paths */
	for (int p = 0; m->paths && p < HQ_PATH_COUNT_; p++) {
		enum hb_column col = (enum hb_column)(HB_COL_latency_local_p50_ns + 3 * p);
		if (m->path_count[p] > 0) {
			set(row, col, "%lld", (long long)m->path_p50[p]);
			set(row, (enum hb_column)(col + 1), "%lld", (long long)m->path_p99[p]);
		}
		set(row, (enum hb_column)(col + 2), "%lld", (long long)m->path_count[p]);
	}
	if (m->latency_count > 0) /* the timed items are an even sample of all */
		set(row, HB_COL_inflight, "%.2f", m->throughput * m->mean * 1e-9);
	set_u64(row, HB_COL_enqueued, m->enqueued);
	set_u64(row, HB_COL_dequeued, m->dequeued);
	for (int s = 0; s < HQ_STAT_COUNT_; s++)
		if (q->stats_mask & (1u << s))
			set_u64(row, (enum hb_column)(HB_COL_local_ops + s), m->st.v[s]);
	uint64_t transfers = m->st.v[HQ_STAT_batches_in] + m->st.v[HQ_STAT_batches_out];
	if ((q->stats_mask & HQ_STAT_BIT(batches_in)) && transfers)
		set(row, HB_COL_items_per_transfer, "%.2f",
		    (double)(m->st.v[HQ_STAT_items_in] + m->st.v[HQ_STAT_items_out]) / (double)transfers);
	if ((q->stats_mask & HQ_STAT_BIT(failed_attempts)) && m->dequeued)
		set(row, HB_COL_failed_per_item, "%.6f",
		    (double)m->st.v[HQ_STAT_failed_attempts] / (double)m->dequeued);
	set_u64(row, HB_COL_full_retries, m->full_retries);
	set_u64(row, HB_COL_empty_polls, m->empty_polls);
	set_u64(row, HB_COL_window_waits, m->window_waits);
	if (m->fairness >= 0)
		set(row, HB_COL_fairness, "%.4f", m->fairness);
	/* --counters: per item of the window, where every thread counted it */
	for (int c = 0; c < HB_CTR_COUNT_; c++)
		if (m->ctr.c[c].measured && m->ops)
			set(row, (enum hb_column)(HB_COL_context_switches + c), "%.6g",
			    (double)m->ctr.c[c].total / (double)m->ops);
	set(row, HB_COL_pin_failures, "%u", m->pin_failures);
	set(row, HB_COL_verify, "%s", m->verify);
	set(row, HB_COL_ordering, "%s", q->ordering);
	if (m->ordering_checked) {
		set(row, HB_COL_ordering_enforced, "%d", m->ordering_enforced);
		set(row, HB_COL_inversions_per_million, "%.6g",
		    m->dequeued ? 1e6 * (double)m->inversions / (double)m->dequeued : 0.0);
		set_u64(row, HB_COL_max_backward_step, m->max_step);
	}
	if (m->max_age_ns > 0)
		set(row, HB_COL_max_item_age_ns, "%.0f", m->max_age_ns);
	if (q->moves_data)
		set_u64(row, HB_COL_stamps_lost, m->stamps_lost);
	set(row, HB_COL_host, "%s", r->host);
	set(row, HB_COL_clock, "%s", hc.source);
}

/* Each path's p50, p99 and count follow latency_local_p50_ns in the schema,
 * in HQ_PATHS order. */
#define HB_PATH_COLS(n)                                                                    \
	_Static_assert(HB_COL_latency_##n##_p50_ns ==                                       \
			       HB_COL_latency_local_p50_ns + 3 * HQ_PATH_##n &&             \
			   HB_COL_latency_##n##_p99_ns == HB_COL_latency_##n##_p50_ns + 1 && \
			   HB_COL_latency_##n##_count == HB_COL_latency_##n##_p50_ns + 2,   \
		       "summary columns latency_" #n "_* out of HQ_PATHS order");
HQ_PATHS(HB_PATH_COLS)
#undef HB_PATH_COLS

/* The queue counters follow local_ops in the schema in HQ_STATS order. */
#define HB_STAT_COL(n) _Static_assert(HB_COL_##n == HB_COL_local_ops + HQ_STAT_##n, \
				      "summary column " #n " out of HQ_STATS order");
HQ_STATS(HB_STAT_COL)
#undef HB_STAT_COL

/* The counters follow context_switches in the schema in counters.h's order. */
#define HB_CTR_COL(n) _Static_assert(HB_COL_##n == HB_COL_context_switches + HB_CTR_##n, \
				     "summary column " #n " out of HB_COUNTER_NAMES order");
HB_COUNTER_NAMES(HB_CTR_COL)
#undef HB_CTR_COL

/* meta.json's "workload": what the threads did, the seed of their draws and
 * the work loop's calibration (work.h), so that a run's work is comparable
 * in time across hosts. */
static void write_workload(FILE *f, const struct hb_report *r)
{
	const struct hb_options *o = r->o;
	const struct hb_work_calibration *w = r->work;
	static const char *const roles[HB_WORKLOAD_COUNT_] = {
		[HB_WORKLOAD_PRODCONS] = "producer threads enqueue, consumer threads dequeue; an "
					 "enqueue that finds the queue full is retried",
		[HB_WORKLOAD_PAIRS] = "every thread enqueues, then dequeues, and again; an operation "
				      "that finds the queue full or empty is counted and the thread "
				      "goes on to the next",
		[HB_WORKLOAD_MIXED] = "every thread enqueues or dequeues at random (enqueue_share); an "
				      "operation that finds the queue full or empty is counted and "
				      "the thread goes on to the next",
	};
	fprintf(f, "  \"workload\": {\"name\": \"%s\", \"threads\": %u, \"producers\": %u, "
		   "\"consumers\": %u, \"roles\": ",
		hb_workload_name(o->workload), o->threads, o->producers, o->consumers);
	hb_json_str(f, roles[o->workload]);
	fprintf(f, ", \"ops\": ");
	hb_json_str(f, hb_symmetric(o) ? "operations: enqueues + dequeues that succeeded"
				       : "items through the queue");
	if (o->workload == HB_WORKLOAD_MIXED)
		fprintf(f, ", \"enqueue_share\": %g, \"prefill\": %llu", o->enqueue_share,
			(unsigned long long)r->m->prefilled);
	fprintf(f, ", \"seed\": %llu, \"draws\": %s, \"streams\": ", (unsigned long long)o->seed,
		hb_draws(o) ? "true" : "false");
	hb_json_str(f, hb_symmetric(o) ? "thread i draws from stream i (harness/work.h)"
				       : "producer i draws from stream i, consumer i from stream "
					 "2^32 + i (harness/work.h)");
	fprintf(f, ",\n    \"work\": {\"work_ns\": %llu, \"work_min_ns\": %llu",
		(unsigned long long)o->work_ns, (unsigned long long)o->work_min_ns);
	if (!hb_symmetric(o))
		fprintf(f, ", \"producer_work_ns\": %llu, \"consumer_work_ns\": %llu",
			(unsigned long long)o->producer_work_ns,
			(unsigned long long)o->consumer_work_ns);
	fprintf(f, ", \"drawn\": \"uniformly from %s..bound per operation\", \"calibration\": ",
		o->work_min_ns ? "work_min_ns" : "0");
	if (w->done) {
		fprintf(f, "{\"loops_per_ns\": %.6f, \"loops_per_round\": %llu, \"rounds\": %u, "
			   "\"fastest_round_ns\": %.0f, \"slowest_round_ns\": %.0f, \"taken\": "
			   "\"the fastest round\", \"loop\": ",
			w->loops_per_ns, (unsigned long long)w->loops, w->rounds, w->fastest_ns,
			w->slowest_ns);
		hb_json_str(f, "a counted loop through an empty asm statement: one add, a compare "
			       "and a branch per iteration, no memory (harness/work.h)");
		fputc('}', f);
	} else {
		fprintf(f, "null, \"not_measured\": \"no work asked for\"");
	}
	fprintf(f, "}},\n");
}

/* meta.json's "counters": for each counter whether it was measured (its
 * total over the threads, per item, multiplexing), or why not; and what
 * likwid's markers did. */
static void write_counters(FILE *f, const struct hb_report *r)
{
	const struct hb_counter_totals *t = &r->m->ctr;
	fprintf(f, "  \"counters\": {\"requested\": %s", t->requested ? "true" : "false");
	if (t->requested)
		fprintf(f, ", \"scope\": \"every producer and consumer thread, or every thread of a "
			   "symmetric workload (%u), from just before "
			   "the measured window opens to just after it closes (perf_event_open per "
			   "thread; the main thread enables, disables and reads them)\", "
			   "\"per_item_of\": \"ops, the items that went through the window: %llu\"",
			t->threads, (unsigned long long)r->m->ops);
	for (int c = 0; c < HB_CTR_COUNT_; c++) {
		fprintf(f, ",\n    \"%s\": {\"measured\": %s, \"event\": ",
			hb_counter_name((enum hb_counter)c), t->c[c].measured ? "true" : "false");
		hb_json_str(f, hb_counter_event((enum hb_counter)c));
		if (t->c[c].measured) {
			fprintf(f, ", \"total\": %llu", (unsigned long long)t->c[c].total);
			if (r->m->ops)
				fprintf(f, ", \"per_item\": %.6g",
					(double)t->c[c].total / (double)r->m->ops);
			fprintf(f, ", \"multiplexed\": %s", t->c[c].scaled ? "true" : "false");
			if (t->c[c].scaled)
				fprintf(f, ", \"least_running_fraction\": %.4f, \"note\": \"the PMU "
					   "counted it part of the time; totals scaled by time enabled / "
					   "time running\"",
					t->c[c].running);
		} else {
			fprintf(f, ", \"why_not\": ");
			hb_json_str(f, t->c[c].why_not);
		}
		fputc('}', f);
	}
	fprintf(f, "},\n  \"likwid_markers\": ");
	hb_json_str(f, hb_likwid_markers());
	fprintf(f, ",\n");
}

static void json_int_or_null(FILE *f, int v)
{
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%d", v);
}

/* "core": N, "node": N of CPU cpu (null where it is not in the map) */
static void json_cpu_place(FILE *f, const struct hb_cpumap *m, int cpu)
{
	const struct hb_cpu *c = cpu >= 0 ? hb_cpumap_find(m, cpu) : NULL;
	fputs("\"core\": ", f);
	json_int_or_null(f, c ? c->core : -1);
	fputs(", \"node\": ", f);
	json_int_or_null(f, c ? c->node : -1);
}

/* Where the main thread ran, how the threads shared cores, and where their
 * own memory went (placement.c). */
static void json_placement(FILE *f, const struct hb_report *r)
{
	const struct hb_run *run = r->run;
	const struct hb_sharing *sh = &r->sharing;
	unsigned cpus, cores, tpc;
	hb_cpumap_count(r->cpumap, &cpus, &cores, &tpc);
	fprintf(f, "  \"main_thread\": {\"cpu\": ");
	json_int_or_null(f, r->place->main_cpu);
	fputs(", ", f);
	json_cpu_place(f, r->cpumap, r->place->main_cpu);
	fprintf(f, ", \"pinned\": %s, \"ran_on\": ", run->main_pinned ? "true" : "false");
	json_int_or_null(f, run->main_ran_on);
	fputs(", \"why\": ", f);
	hb_json_str(f, r->o->pin == HB_PIN_NONE ? "--pin none: no thread is pinned"
		       : r->place->main_cpu < 0 ? "every CPU of the run has a thread: none is left "
						  "for the main thread, which shares one"
		       : !run->main_pinned	? "could not be pinned to its CPU"
						: "a CPU no thread uses");
	fprintf(f, "},\n  \"smt\": {\"policy\": \"%s\", \"cores_from\": ", hb_smt_name(r->o->smt));
	hb_json_str(f, r->cpumap->cores_known ? "hwloc"
					       : "unknown: hwloc reported no cores, every CPU "
						 "counted as a core");
	fprintf(f, ", \"cpus\": %u, \"cores\": %u, \"threads_per_core_host\": %u, "
		   "\"cores_used\": ", cpus, cores, tpc);
	if (sh->known)
		fprintf(f, "%u, \"threads_per_core\": %u, \"smt_shared\": %s},\n", sh->cores,
			sh->threads_per_core, sh->smt_shared ? "true" : "false");
	else
		fprintf(f, "null, \"threads_per_core\": null, \"smt_shared\": null},\n");
	fprintf(f, "  \"thread_memory\": ");
	hb_json_str(f, "a producer's message pool, a consumer's tallies and histogram: fresh pages "
		       "(mmap) that the thread, once pinned, touches first, so they come from the "
		       "node of its CPU; memory_node is where the first page is (move_pages), null "
		       "where the thread has none or the kernel does not say");
	fprintf(f, ",\n");
}

/* How --queue-mem reached the queue: its kind (queue.h, memory), and what
 * the plan did with it or why it did nothing. */
static const char *qmem_how(const struct hb_report *r)
{
	const struct hq_ops *q = r->o->queue;
	if (hb_qmem_own_placement(q))
		return "the queue places one ring per node itself (numaring's library, sharded's "
		       "adapter) and keeps that placement: --queue-mem is not applied to it";
	if (!r->qmem->placing)
		return r->qmem->why_not;
	if (hb_qmem_by_threads(q))
		return "what the adapter routes to the harness's allocator (hq_node_alloc) comes from "
		       "chunks bound to the nodes (mbind); the rest, which the queue's own code "
		       "allocates, under the memory policy (set_mempolicy) of the creating thread "
		       "during create and of each worker from before its thread_init to after its "
		       "thread_fini";
	return "made at creation: the harness's allocator's memory bound to the nodes (mbind), a "
	       "library's own fresh mapping under the creating thread's memory policy "
	       "(set_mempolicy) during create";
}

/* meta.json's "queue_memory": the policy asked and how it reached the
 * queue, and where the queue's pages were at the end of the window. */
static void write_queue_memory(FILE *f, const struct hb_report *r)
{
	const struct hb_qmem *qm = r->qmem;
	const struct hb_qmem_pages *pg = &r->m->qpages;
	const struct hq_ops *q = r->o->queue;
	char asked[32];
	hb_qmem_policy_format(r->o->queue_mem, r->o->queue_mem_node, asked, sizeof asked);
	fprintf(f, "  \"queue_memory\": {\"policy\": ");
	hb_json_str(f, asked);
	fprintf(f, ", \"kind\": ");
	hb_json_str(f, q->memory ? q->memory : "");
	int placed = qm->placing && !hb_qmem_own_placement(q);
	fprintf(f, ", \"placed\": %s, \"mode\": ", placed ? "true" : "false");
	if (placed)
		hb_json_str(f, hb_qmem_mode_name(qm));
	else
		fputs("null", f);
	fputs(", \"nodes\": ", f);
	if (placed)
		fprintf(f, "[%s]", qm->nodes);
	else
		fputs("null", f);
	fputs(",\n    \"how\": ", f);
	hb_json_str(f, qmem_how(r));
	fprintf(f, ", \"refused\": %u", hb_qmem_refused());
	fputs(",\n    \"pages\": ", f);
	if (pg->counted) {
		int first = 1;
		fputc('{', f);
		for (int n = 0; n < HB_QMEM_MAX_NODES; n++)
			if (pg->on[n]) {
				fprintf(f, "%s\"%d\": %llu", first ? "" : ", ", n, pg->on[n]);
				first = 0;
			}
		fprintf(f, "}, \"pages_looked_up\": %llu, \"pages_absent\": %llu, \"spans\": %u",
			pg->pages, pg->absent, pg->regions);
	} else {
		fputs("null, \"not_counted\": ", f);
		hb_json_str(f, pg->why_not ? pg->why_not : "not sampled");
	}
	fputs(",\n    \"counted\": ", f);
	hb_json_str(f, "at the end of the measured window, the workers still running: every page "
		       "of the spans the harness's allocator handed out for the queue and of the "
		       "queue's own rings, each once, where the kernel says it is (move_pages); "
		       "pages never touched are absent");
	fputs(", \"left_out\": ", f);
	if (q->uncounted)
		hb_json_str(f, q->uncounted);
	else
		fputs("null", f);
	fputs("},\n", f);
}

static void write_meta(FILE *f, const struct hb_report *r)
{
	const struct hb_options *o = r->o;
	const struct numaring_topology *t = r->t;
	const struct hb_calibration *cal = r->cal;
	struct utsname u;
	char model[256];
	uname(&u);
	cpu_model(model, sizeof model);
	fprintf(f, "{\n  \"host\": ");
	hb_json_str(f, r->host);
	fprintf(f, ",\n  \"cpu_model\": ");
	hb_json_str(f, model);
	fprintf(f, ",\n  \"cpus_online\": %ld,\n  \"nodes\": %u,\n  \"topology\": \"%s\",\n",
		sysconf(_SC_NPROCESSORS_ONLN), t->nnodes, t->emulated ? "emulated" : "real");
	fprintf(f, "  \"topology_spec\": ");
	hb_json_str(f, r->topo_spec);
	fprintf(f, ",\n  \"topology_source\": ");
	hb_json_str(f, hb_topology_origin(o));
	fprintf(f, ",\n");
	json_topology(f, t, "  ");
	fprintf(f, "  \"kernel\": ");
	hb_json_str(f, u.release);
	fprintf(f, ",\n  \"machine\": ");
	hb_json_str(f, u.machine);
	fprintf(f, ",\n");
	json_virt(f, model, "  ");
	fprintf(f, "  \"libc\": \"glibc %s\",\n  \"compiler\": ", gnu_get_libc_version());
	hb_json_str(f, "gcc " __VERSION__);
	fprintf(f, ",\n  \"cflags\": ");
	hb_json_str(f, NUMARING_CFLAGS);
	fprintf(f, ",\n  \"git_commit\": ");
	hb_json_str(f, NUMARING_GIT);
	fprintf(f, ",\n  \"command_line\": [");
	for (int i = 0; i < o->argc; i++) {
		fprintf(f, "%s", i ? ", " : "");
		hb_json_str(f, o->argv[i]);
	}
	fprintf(f, "],\n  \"start_time_utc\": \"%s\",\n", r->start_time);
	fprintf(f, "  \"clock\": {\"source\": \"%s\", \"ticks_per_ns\": %.6f, \"overhead_ns\": %.2f},\n",
		hc.source, hc.ticks_per_ns, hc.overhead_ns);
	if (o->strip) { /* a diagnostic's run says so first (absent otherwise) */
		char names[64];
		hb_strip_names(o->strip, names, sizeof names);
		fprintf(f, "  \"stripped\": {\"costs\": \"%s\", \"why\": \"--strip: a diagnostic "
			   "of the harness's own cost (make bench-fidelity), not a measurement "
			   "of a queue\"},\n",
			names);
	}
	fprintf(f, "  \"items\": {\"kind\": \"%s\", \"sample\": %llu, \"accounting\": \"%s\", "
		   "\"timed\": \"%s\"},\n",
		hb_item_name(o->item), (unsigned long long)r->run->sample_mask + 1,
		hb_accounting_name(hb_accounting_resolve(o->accounting)),
		o->queue->moves_data || o->queue->fabricates
			? "one item in `sample` of a producer is timed (its send time kept beside it)"
			: "none: this queue moves no items (values are made but not accounted)");
	write_workload(f, r);
	fprintf(f, "  \"harness\": {");
	if (cal->done)
		fprintf(f, "\"calibration_s\": %.3f, \"queue\": \"null\", \"workload\": \"%s\", "
			   "\"ns_per\": \"%s\", \"enqueue_ops_per_s\": %.1f, "
			   "\"dequeue_ops_per_s\": %.1f, \"ceiling_ops_per_s\": %.1f, "
			   "\"producer_ns_per_item\": %.2f, \"consumer_ns_per_item\": %.2f, "
			   "\"throughput_over_ceiling\": %.4f}",
			cal->seconds, hb_workload_name(o->workload),
			hb_symmetric(o) ? "operation" : "item", cal->enqueue_rate, cal->dequeue_rate,
			cal->ceiling,
			cal->producer_ns, cal->consumer_ns,
			cal->ceiling > 0 ? r->m->throughput / cal->ceiling : 0.0);
	else
		fprintf(f, "\"calibration_s\": 0, \"not_measured\": \"%s\"}", cal->why_not);
	fprintf(f, ",\n");
	/* the run's hand-over distance (pingpong.h); null where not timed */
	fprintf(f, "  \"hand_over\": {\"cpus\": [%d, %d], \"method\": \"ping-pong on one line, "
		   "20 x 100 round trips, median batch / 2\", \"one_way_before_ns\": ",
		r->m->c2c_cpu[0], r->m->c2c_cpu[1]);
	if (r->m->c2c_before_ns >= 0)
		fprintf(f, "%.1f", r->m->c2c_before_ns);
	else
		fprintf(f, "null");
	fprintf(f, ", \"one_way_after_ns\": ");
	if (r->m->c2c_after_ns >= 0)
		fprintf(f, "%.1f},\n", r->m->c2c_after_ns);
	else
		fprintf(f, "null},\n");
	write_counters(f, r);
	fprintf(f, "  \"lookup_in_force\": \"%s\",\n", r->lookup_in_force);
	if (*r->pause_spin_in_force)
		fprintf(f, "  \"spin\": {\"pause_spin\": %s, \"exp_cap\": %s, \"unit\": \"PAUSE "
			   "instructions; the host probe's pause_ns row times one\"},\n",
			r->pause_spin_in_force, r->exp_cap_in_force);
	fprintf(f, "  \"rseq_node_id\": %s,\n  \"rdpid\": %s,\n",
		numaring_rseq_node_supported() ? "true" : "false",
		numaring_rdpid_supported() ? "true" : "false");
	fprintf(f, "  \"threads\": [");
	for (unsigned i = 0; i < o->threads; i++) {
		int is_p = i < o->producers; /* every thread of a symmetric workload */
		int perr = is_p ? r->run->prod[i].pin_errno : r->run->cons[i - o->producers].pin_errno;
		/* a symmetric thread's own memory: its tallies' (its pool, if any,
		 * is placed by the same first touch) */
		int mem = hb_symmetric(o) ? r->run->cons[i].mem_node
			  : is_p	  ? r->run->prod[i].mem_node
					  : r->run->cons[i - o->producers].mem_node;
		fprintf(f, "%s\n    {\"role\": \"%s\", \"index\": %u, \"cpu\": %d, ",
			i ? "," : "", hb_symmetric(o) ? "thread" : is_p ? "producer" : "consumer",
			is_p ? i : i - o->producers, r->cpus[i]);
		json_cpu_place(f, r->cpumap, r->cpus[i]);
		fprintf(f, ", \"pinned\": %s, \"memory_node\": ",
			r->cpus[i] < 0 ? "false" : perr ? "false" : "true");
		json_int_or_null(f, mem);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n");
	json_placement(f, r);
	write_queue_memory(f, r);
	fprintf(f, "  \"verify\": \"%s\",\n  \"lost_items\": %llu,\n  \"duplicated_items\": %llu,\n"
		   "  \"corrupted_producers\": %llu,\n  \"bad_items\": %llu\n}\n",
		r->m->verify, (unsigned long long)r->m->lost, (unsigned long long)r->m->dup,
		(unsigned long long)r->m->corrupt, (unsigned long long)r->m->bad);
}

/* latency-path.csv: latency.csv's rows for each path's histogram, the path
 * first; a path with no timed item has no row. */
static int write_path_csv(FILE *f, struct hdr_hist *const *path_hist)
{
	if (fputs("path,value_ns,percentile,total_count,one_over_one_minus_percentile\n", f) < 0)
		return -EIO;
	for (int p = 0; p < HQ_PATH_COUNT_; p++) {
		int rc = hdr_write_csv_rows(path_hist[p], f, 5, hq_path_name((enum hq_path)p));
		if (rc < 0)
			return rc;
	}
	return 0;
}

int hb_write_results(const struct hb_report *r, const struct hdr_hist *hist,
		     struct hdr_hist *const *path_hist)
{
	struct hb_file files[5];
	const char *names[5] = {"summary.csv", "latency.hgrm", "latency.csv", "meta.json",
				"latency-path.csv"};
	const int nfiles = path_hist ? 5 : 4; /* latency-path.csv: a queue with paths */
	const char *dir = r->o->out;
	struct row row;
	int rc = 0, opened = 0;
	memset(&row, 0, sizeof row);
	for (; opened < nfiles; opened++)
		if ((rc = hb_file_open(&files[opened], dir, names[opened])) < 0)
			goto fail;
	fill_summary(&row, r);
	write_row(files[0].f, &row);
	free_row(&row);
	if ((rc = hdr_write_hgrm(hist, files[1].f, 5, 1.0)) < 0)
		goto fail;
	if ((rc = hdr_write_csv(hist, files[2].f, 5)) < 0)
		goto fail;
	write_meta(files[3].f, r);
	if (path_hist && (rc = write_path_csv(files[4].f, path_hist)) < 0)
		goto fail;
	/* meta.json and the distributions first, summary.csv last: the
	 * experiment driver takes a present summary.csv as a finished point. */
	for (int i = nfiles - 1; i >= 0; i--) {
		if ((rc = hb_file_commit(&files[i])) < 0) {
			for (int k = i - 1; k >= 0; k--)
				hb_file_abort(&files[k]);
			hb_say("cannot write %s/%s: %s", dir, names[i], strerror(-rc));
			return HB_EXIT_CANNOT_WRITE;
		}
	}
	return 0;
fail:
	for (int k = 0; k < opened; k++)
		hb_file_abort(&files[k]);
	hb_say("cannot write into %s: %s", dir, strerror(-rc));
	return HB_EXIT_CANNOT_WRITE;
}
