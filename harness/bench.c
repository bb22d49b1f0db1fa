/*
 * bench.c - numaring-bench: run one configuration of NumaRing or a peer
 * queue and write one result (see options.c for the command line).
 *
 * The run, in steps:
 *   1. Check every input; create the queue through its adapter (queue.h).
 *   2. Start producers and consumers, each pinned per --pin; they wait at a
 *      barrier. The main thread then opens the warm-up, then the measured
 *      window (t_start), then closes it (t_end) and stops the producers.
 *   3. Each item is a pointer to a message from its producer's pool: the
 *      message carries the send time (closed loop: when it was enqueued;
 *      open loop: when it was meant to be sent), the producer and a sequence
 *      number. A consumer records now - send time in its own histogram and
 *      releases the message with an atomic exchange of its state, which
 *      also catches any duplicate delivery. A producer reuses a message
 *      only after it was released: for unbounded queues that window is
 *      what bounds the items in flight.
 *   4. Consumers drain what is left; every producer's count of sent items
 *      must equal what the consumers counted for it (--verify).
 *   5. Histograms are merged; summary.csv, latency.hgrm, latency.csv and
 *      meta.json are written whole into --out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "hdr.h"
#include "nr_backoff.h"
#include "nr_topology.h"
#include "numaring.h"
#include "options.h"
#include "output.h"
#include "probe.h"
#include "queue.h"
#include "version.h"

#ifndef NUMARING_GIT
#define NUMARING_GIT "unknown"
#endif
#ifndef NUMARING_CFLAGS
#define NUMARING_CFLAGS "unknown"
#endif

#define HB_LINE 128
#define HB_MAX_BURST 4096

enum phase { PH_START, PH_WARMUP, PH_MEASURE, PH_STOP_PRODUCERS, PH_STOP_CONSUMERS, PH_ABORT };

struct msg {
	uint64_t t_send;          /* ticks: enqueue time, or intended send time (open loop) */
	uint64_t seq;             /* the producer's sequence number */
	uint32_t producer;        /* producer index */
	_Atomic uint32_t state;   /* 1: in flight, 0: free (released by a consumer) */
	uint64_t pad;
};

struct producer {
	alignas(HB_LINE) unsigned id;
	int cpu, pin_errno;
	struct msg *pool;
	uint64_t mask;
	uint64_t quota;              /* --ops: measured items to send */
	_Atomic uint64_t sent;       /* all items sent (read by the main thread) */
	uint64_t sent_measured;
	uint64_t full_retries, window_waits;
	struct numaring_stats st;
	int have_stats;
	char err[NR_ERRLEN];
	pthread_t th;
};

struct consumer {
	alignas(HB_LINE) unsigned id;
	int cpu, pin_errno;
	struct hdr_hist *hist;
	uint64_t *count;             /* per producer: items received */
	_Atomic uint64_t received;   /* all items (read by the main thread) */
	uint64_t in_window;          /* items dequeued inside [t_start, t_end] */
	uint64_t last_measured;      /* ticks of the last dequeue of a measured item */
	uint64_t bad;                /* duplicates or messages not in flight */
	uint64_t empty_polls;
	struct numaring_stats st;
	int have_stats;
	char err[NR_ERRLEN];
	pthread_t th;
};

static struct {
	const struct hb_options *o;
	const struct hq_ops *ops;
	void *q;
	struct producer *prod;
	struct consumer *cons;
	uint64_t interval; /* open loop: ticks between a producer's sends */
	alignas(HB_LINE) _Atomic int phase;
	_Atomic uint64_t t_start, t_end;
	pthread_barrier_t barrier;
} run;

static void pin_self(int cpu, int *pin_errno)
{
	cpu_set_t s;
	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	*pin_errno = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static inline int phase(void)
{
	/* Acquire: pairs with the release in set_phase; a thread that sees a
	 * phase also sees t_start/t_end written before it. */
	return atomic_load_explicit(&run.phase, memory_order_acquire);
}

static void set_phase(int p)
{
	atomic_store_explicit(&run.phase, p, memory_order_release);
}

/* Polite spin while waiting for room, an item, or a free message. */
static inline void idle_poll(uint32_t *polls)
{
	nr_wait_poll(polls);
}

/* ---- producers ------------------------------------------------------- */

/* The next free message of the pool, or NULL if the run stopped first. */
static struct msg *next_msg(struct producer *p, uint64_t seq)
{
	struct msg *m = &p->pool[seq & p->mask];
	uint32_t polls = 0;
	/* Acquire: pairs with the consumer's release exchange of state, so its
	 * reads of the message happen before we overwrite it. */
	while (atomic_load_explicit(&m->state, memory_order_acquire) != 0) {
		p->window_waits++;
		if (phase() >= PH_STOP_PRODUCERS)
			return NULL;
		idle_poll(&polls);
	}
	return m;
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	const struct hb_options *o = run.o;
	void *h = NULL;
	uint64_t seq = 0, next_send = 0;
	unsigned burst = o->bursts && run.ops->enqueue_burst ? o->batch : 1;
	struct msg *batch[HB_MAX_BURST];

	pin_self(p->cpu, &p->pin_errno);
	if (!(h = run.ops->thread_init(run.q, p->err, sizeof p->err)))
		set_phase(PH_ABORT);
	pthread_barrier_wait(&run.barrier);
	if (!h)
		return NULL;
	while (phase() == PH_START)
		nr_cpu_relax();
	next_send = hc_now();

	for (;;) {
		int ph = phase();
		if (ph >= PH_STOP_PRODUCERS)
			break;
		if (o->ops && ph == PH_MEASURE && p->sent_measured >= p->quota)
			break;
		unsigned n = burst;
		if (o->ops && ph == PH_MEASURE && p->quota - p->sent_measured < n)
			n = (unsigned)(p->quota - p->sent_measured);

		if (!run.ops->moves_data) { /* faa: one fetch-and-add per item */
			uint32_t polls = 0;
			while (run.ops->enqueue(h, NULL) != 0) {
				p->full_retries++;
				idle_poll(&polls);
			}
			atomic_store_explicit(&p->sent, seq + 1, memory_order_relaxed);
			seq++;
			if (ph == PH_MEASURE)
				p->sent_measured++;
			continue;
		}

		/* take n free messages */
		unsigned k = 0;
		for (; k < n; k++) {
			if (!(batch[k] = next_msg(p, seq + k)))
				break;
		}
		if (k < n) /* stopped while waiting for a free message */
			break;
		uint64_t now = hc_now();
		if (run.interval) { /* open loop: wait for the intended time of the first */
			uint32_t polls = 0;
			while (now < next_send) {
				if (phase() >= PH_STOP_PRODUCERS)
					goto out;
				idle_poll(&polls);
				now = hc_now();
			}
		}
		for (unsigned i = 0; i < n; i++) {
			struct msg *m = batch[i];
			m->seq = seq + i;
			m->producer = p->id;
			m->t_send = run.interval ? next_send + i * run.interval : now;
			/* Relaxed: the queue's own release/acquire hands the
			 * message to the consumer together with these writes. */
			atomic_store_explicit(&m->state, 1, memory_order_relaxed);
		}
		if (run.interval)
			next_send += n * run.interval;
		unsigned done = 0;
		uint32_t polls = 0;
		while (done < n) {
			if (burst > 1) {
				done += run.ops->enqueue_burst(h, (void *const *)(batch + done), n - done);
			} else if (run.ops->enqueue(h, batch[done]) == 0) {
				done++;
			}
			if (done < n) {
				p->full_retries++;
				if (phase() >= PH_STOP_PRODUCERS) {
					for (unsigned i = done; i < n; i++) /* never sent */
						atomic_store_explicit(&batch[i]->state, 0,
								      memory_order_relaxed);
					seq += done;
					if (ph == PH_MEASURE)
						p->sent_measured += done;
					atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
					goto out;
				}
				idle_poll(&polls);
			}
		}
		seq += n;
		if (ph == PH_MEASURE)
			p->sent_measured += n;
		/* Relaxed: the main thread reads it only after pthread_join. */
		atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
	}
out:
	if (run.ops->thread_stats) {
		run.ops->thread_stats(h, &p->st);
		p->have_stats = 1;
	}
	run.ops->thread_fini(run.q, h);
	return NULL;
}

/* ---- consumers ------------------------------------------------------- */

static void take(struct consumer *c, void *item, uint64_t now, uint64_t t_start, uint64_t t_end)
{
	struct msg *m = item;
	uint64_t t_send = m->t_send, seq = m->seq;
	uint32_t producer = m->producer;
	(void)seq;
	/* Release: pairs with the producer's acquire in next_msg (our reads of
	 * the message come first); acquire: the state must be 1 (in flight),
	 * anything else is a duplicate delivery. */
	if (atomic_exchange_explicit(&m->state, 0, memory_order_acq_rel) != 1 ||
	    producer >= run.o->producers) {
		c->bad++;
		return;
	}
	c->count[producer]++;
	if (t_send >= t_start) {
		hdr_record(c->hist, now > t_send ? (int64_t)hc_to_ns(now - t_send) : 0);
		c->last_measured = now;
	}
	if (now >= t_start && now <= t_end)
		c->in_window++;
}

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	const struct hb_options *o = run.o;
	void *h = NULL;
	unsigned burst = o->bursts && run.ops->dequeue_burst ? o->batch : 1;
	void *items[HB_MAX_BURST];
	uint64_t got_total = 0;

	pin_self(c->cpu, &c->pin_errno);
	if (!(h = run.ops->thread_init(run.q, c->err, sizeof c->err)))
		set_phase(PH_ABORT);
	pthread_barrier_wait(&run.barrier);
	if (!h)
		return NULL;
	uint32_t polls = 0;
	for (;;) {
		unsigned got;
		if (burst > 1)
			got = run.ops->dequeue_burst(h, items, burst);
		else
			got = run.ops->dequeue(h, &items[0]) == 0;
		if (got == 0) {
			int ph = phase();
			if (ph >= PH_STOP_CONSUMERS)
				break;
			if (!run.ops->moves_data && ph >= PH_STOP_PRODUCERS)
				break;
			c->empty_polls++;
			idle_poll(&polls);
			continue;
		}
		polls = 0;
		uint64_t now = hc_now();
		/* Relaxed: t_start/t_end are read after the phase acquire that
		 * published them, or are still their initial values (0 / max). */
		uint64_t t_start = atomic_load_explicit(&run.t_start, memory_order_relaxed);
		uint64_t t_end = atomic_load_explicit(&run.t_end, memory_order_relaxed);
		if (!run.ops->moves_data) {
			if (now >= t_start && now <= t_end)
				c->in_window += got;
			if (phase() >= PH_STOP_PRODUCERS)
				break;
		} else {
			for (unsigned i = 0; i < got; i++)
				take(c, items[i], now, t_start, t_end);
		}
		got_total += got;
		atomic_store_explicit(&c->received, got_total, memory_order_relaxed);
	}
	if (run.ops->thread_stats) {
		run.ops->thread_stats(h, &c->st);
		c->have_stats = 1;
	}
	run.ops->thread_fini(run.q, h);
	return NULL;
}

/* ---- placement ------------------------------------------------------- */

/* CPU of each thread (producers first, then consumers); -1: not pinned.
 * Returns 0, or 2 after printing a message. */
static int plan_cpus(const struct hb_options *o, const struct nr_topology *t, int *cpu)
{
	unsigned np = o->producers, nc = o->consumers, n = np + nc;
	int nodes[NR_MAX_NODES], nn = 0, all[NR_MAX_CPUS], na = 0;
	for (unsigned k = 0; k < t->nnodes; k++)
		if (CPU_COUNT(&t->cpus[k]) > 0)
			nodes[nn++] = (int)k;
	for (int k = 0; k < nn; k++)
		for (int c = 0; c < NR_MAX_CPUS; c++)
			if (CPU_ISSET(c, &t->cpus[nodes[k]]))
				all[na++] = c;
	for (unsigned i = 0; i < n; i++)
		cpu[i] = -1;
	switch (o->pin) {
	case HB_PIN_NONE:
		return 0;
	case HB_PIN_LIST: {
		unsigned i = 0;
		for (int c = 0; c < NR_MAX_CPUS && i < n; c++) {
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
		int cursor[NR_MAX_NODES] = {0};
		for (unsigned i = 0; i < n; i++) {
			unsigned rank = i < np ? i : i - np;
			int node = nodes[rank % (unsigned)nn];
			int cnt = CPU_COUNT(&t->cpus[node]), want = cursor[node]++ % cnt, seen = 0;
			for (int c = 0; c < NR_MAX_CPUS; c++)
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
			for (int c = 0; c < NR_MAX_CPUS; c++)
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
static void warn_crowding(const struct hb_options *o, const struct nr_topology *t,
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

/* ---- describing the host --------------------------------------------- */

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

static const char *topology_origin(const struct hb_options *o)
{
	if (o->topology)
		return "--topology";
	const char *env = getenv("NUMARING_TOPOLOGY");
	return env && *env ? "NUMARING_TOPOLOGY" : "hwloc";
}

/* The topology string of an emulated run ("0;1"), or "real". */
static void topology_spec(const struct hb_options *o, const struct nr_topology *t, char *buf,
			  size_t len)
{
	const char *env = getenv("NUMARING_TOPOLOGY");
	if (!t->emulated)
		snprintf(buf, len, "real");
	else
		snprintf(buf, len, "%s", o->topology ? o->topology : env);
}

static void json_topology(FILE *f, const struct nr_topology *t, const char *indent)
{
	char cl[4096];
	fprintf(f, "%s\"nodes\": [", indent);
	for (unsigned n = 0; n < t->nnodes; n++) {
		nr_cpulist_format(&t->cpus[n], cl, sizeof cl);
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

static int show_topology(const struct hb_options *o)
{
	struct nr_topology *t = malloc(sizeof *t);
	char err[NR_ERRLEN], model[256], allowed_s[4096], host[256] = "";
	struct utsname u;
	cpu_set_t allowed;
	if (!t)
		return 1;
	if (nr_topology_get(o->topology, t, err, sizeof err) < 0) {
		fprintf(stderr, "numaring-bench: %s\n", err);
		free(t);
		return 2;
	}
	CPU_ZERO(&allowed);
	sched_getaffinity(0, sizeof allowed, &allowed);
	nr_cpulist_format(&allowed, allowed_s, sizeof allowed_s);
	cpu_model(model, sizeof model);
	uname(&u);
	gethostname(host, sizeof host - 1);
	int rseq = numaring_rseq_node_supported(), rdpid = numaring_rdpid_supported();
	printf("{\n  \"topology\": \"%s\",\n  \"source\": ", t->emulated ? "emulated" : "real");
	hb_json_str(stdout, topology_origin(o));
	printf(",\n  \"numa_available\": %s,\n  \"host\": ", t->numa_available ? "true" : "false");
	hb_json_str(stdout, host);
	printf(",\n  \"cpu_model\": ");
	hb_json_str(stdout, model);
	printf(",\n  \"kernel\": ");
	hb_json_str(stdout, u.release);
	printf(",\n  \"allowed_cpus\": ");
	hb_json_str(stdout, allowed_s);
	printf(",\n");
	json_topology(stdout, t, "  ");
	printf("  \"machine_nodes\": [");
	for (unsigned m = 0; m < t->n_machine_nodes; m++)
		printf("%s\n    {\"os_node\": %d, \"cpus_total\": %d, \"memory_bytes\": %llu}",
		       m ? "," : "", t->machine_os_node[m], t->machine_ncpus[m],
		       t->machine_mem_bytes[m]);
	printf("\n  ],\n  \"rseq_node_id\": %s,\n  \"rdpid\": %s,\n", rseq ? "true" : "false",
	       rdpid ? "true" : "false");
	printf("  \"lookup_modes\": {\"libnuma\": \"%s\", \"syscall\": \"syscall\", \"table\": \"table\", "
	       "\"cached\": \"cached\", \"rseq\": \"%s\", \"rdpid\": \"%s\", \"none\": \"none\"}\n}\n",
	       t->numa_available ? "libnuma" : "libnuma (no NUMA: maps through the CPU table)",
	       rseq ? "rseq" : "table (rseq node_id not supported here)",
	       rdpid ? "rdpid" : "table (no rdpid instruction)");
	free(t);
	return 0;
}

/* ---- writing the result ------------------------------------------------ */

struct result {
	double duration_s, throughput;
	uint64_t ops, enqueued, dequeued, lost, bad;
	int64_t p50, p90, p99, p999, max;
	double mean;
	int64_t latency_count;
	struct numaring_stats st;
	uint64_t full_retries, empty_polls, window_waits;
	unsigned pin_failures;
	const char *verify;
	const char *lookup_in_force;
	char topo_spec[1024];
	int emulated;
	unsigned nodes;
	char host[256];
};

static const char *summary_header =
	"queue,producers,consumers,lookup,lookup_in_force,recheck,gate,backoff,batch,bursts,"
	"capacity,pin,topology_kind,topology,nodes,rate,warmup_s,ops,duration_s,"
	"throughput_ops_per_s,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,mean_ns,latency_count,"
	"enqueued,dequeued,local_ops,batches_out,batches_in,items_out,items_in,lookups,"
	"node_changes,failed_attempts,gate_waits,full_retries,empty_polls,window_waits,"
	"pin_failures,verify,host,clock";

static void write_summary(FILE *f, const struct hb_options *o, const struct result *r)
{
	int is_ring = strcmp(o->queue->name, "numaring") == 0;
	char pin[512];
	fprintf(f, "%s\n", summary_header);
	hb_csv_field(f, o->queue->name);
	fprintf(f, ",%u,%u,%s,%s,", o->producers, o->consumers,
		is_ring ? numaring_lookup_name(o->lookup) : "",
		is_ring ? r->lookup_in_force : "");
	if (is_ring)
		fprintf(f, "%u", o->recheck);
	fprintf(f, ",%s,%s,%u,%d,%zu,", is_ring ? numaring_gate_name(o->gate) : "",
		is_ring ? numaring_backoff_name(o->backoff) : "", o->batch, o->bursts, o->capacity);
	snprintf(pin, sizeof pin, "%s", o->pin == HB_PIN_LIST ? o->pin_list : hb_pin_name(o->pin));
	hb_csv_field(f, pin);
	fprintf(f, ",%s,", r->emulated ? "emulated" : "real");
	hb_csv_field(f, r->topo_spec);
	fprintf(f, ",%u,%.0f,%g,%llu,%.6f,%.1f,", r->nodes, o->rate, o->warmup_s,
		(unsigned long long)r->ops, r->duration_s, r->throughput);
	if (r->latency_count > 0)
		fprintf(f, "%lld,%lld,%lld,%lld,%lld,%.1f,", (long long)r->p50, (long long)r->p90,
			(long long)r->p99, (long long)r->p999, (long long)r->max, r->mean);
	else
		fprintf(f, ",,,,,,");
	fprintf(f, "%lld,%llu,%llu,", (long long)r->latency_count, (unsigned long long)r->enqueued,
		(unsigned long long)r->dequeued);
	if (is_ring)
		fprintf(f, "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,",
			(unsigned long long)r->st.local_ops, (unsigned long long)r->st.batches_out,
			(unsigned long long)r->st.batches_in, (unsigned long long)r->st.items_out,
			(unsigned long long)r->st.items_in, (unsigned long long)r->st.lookups,
			(unsigned long long)r->st.node_changes,
			(unsigned long long)r->st.failed_attempts,
			(unsigned long long)r->st.gate_waits);
	else
		fprintf(f, ",,,,,,,,,");
	fprintf(f, "%llu,%llu,%llu,%u,%s,", (unsigned long long)r->full_retries,
		(unsigned long long)r->empty_polls, (unsigned long long)r->window_waits,
		r->pin_failures, r->verify);
	hb_csv_field(f, r->host);
	fprintf(f, ",%s\n", hc.source);
}

static void write_meta(FILE *f, const struct hb_options *o, const struct result *r,
		       const struct nr_topology *t, const int *cpus, const char *start_time)
{
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
	hb_json_str(f, topology_origin(o));
	fprintf(f, ",\n");
	json_topology(f, t, "  ");
	fprintf(f, "  \"kernel\": ");
	hb_json_str(f, u.release);
	fprintf(f, ",\n  \"machine\": ");
	hb_json_str(f, u.machine);
	fprintf(f, ",\n  \"libc\": \"glibc %s\",\n  \"compiler\": ", gnu_get_libc_version());
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
	fprintf(f, "],\n  \"start_time_utc\": \"%s\",\n", start_time);
	fprintf(f, "  \"clock\": {\"source\": \"%s\", \"ticks_per_ns\": %.6f, \"overhead_ns\": %.2f},\n",
		hc.source, hc.ticks_per_ns, hc.overhead_ns);
	fprintf(f, "  \"lookup_in_force\": \"%s\",\n", r->lookup_in_force);
	fprintf(f, "  \"rseq_node_id\": %s,\n  \"rdpid\": %s,\n",
		numaring_rseq_node_supported() ? "true" : "false",
		numaring_rdpid_supported() ? "true" : "false");
	fprintf(f, "  \"threads\": [");
	for (unsigned i = 0; i < o->producers + o->consumers; i++) {
		int is_p = i < o->producers;
		int perr = is_p ? run.prod[i].pin_errno : run.cons[i - o->producers].pin_errno;
		fprintf(f, "%s\n    {\"role\": \"%s\", \"index\": %u, \"cpu\": %d, \"pinned\": %s}",
			i ? "," : "", is_p ? "producer" : "consumer",
			is_p ? i : i - o->producers, cpus[i],
			cpus[i] < 0 ? "false" : perr ? "false" : "true");
	}
	fprintf(f, "\n  ],\n  \"verify\": \"%s\",\n  \"lost_items\": %llu,\n  \"bad_items\": %llu\n}\n",
		r->verify, (unsigned long long)r->lost, (unsigned long long)r->bad);
}

static int write_results(const struct hb_options *o, const struct result *r,
			 const struct hdr_hist *hist, const struct nr_topology *t, const int *cpus,
			 const char *start_time)
{
	struct hb_file files[4];
	const char *names[4] = {"summary.csv", "latency.hgrm", "latency.csv", "meta.json"};
	int rc = 0, opened = 0;
	for (; opened < 4; opened++)
		if ((rc = hb_file_open(&files[opened], o->out, names[opened])) < 0)
			goto fail;
	write_summary(files[0].f, o, r);
	if ((rc = hdr_write_hgrm(hist, files[1].f, 5, 1.0)) < 0)
		goto fail;
	if ((rc = hdr_write_csv(hist, files[2].f, 5)) < 0)
		goto fail;
	write_meta(files[3].f, o, r, t, cpus, start_time);
	/* meta.json and the distributions first, summary.csv last: the
	 * experiment driver takes a present summary.csv as a finished point. */
	for (int i = 3; i >= 0; i--) {
		if ((rc = hb_file_commit(&files[i])) < 0) {
			for (int k = i - 1; k >= 0; k--)
				hb_file_abort(&files[k]);
			fprintf(stderr, "numaring-bench: cannot write %s/%s: %s\n", o->out, names[i],
				strerror(-rc));
			return HB_EXIT_CANNOT_WRITE;
		}
	}
	return 0;
fail:
	for (int k = 0; k < opened; k++)
		hb_file_abort(&files[k]);
	fprintf(stderr, "numaring-bench: cannot write into %s: %s\n", o->out, strerror(-rc));
	return HB_EXIT_CANNOT_WRITE;
}

/* ---- one run ----------------------------------------------------------- */

static uint64_t pow2ceil(uint64_t v)
{
	uint64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t total_sent(const struct hb_options *o)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < o->producers; i++)
		n += atomic_load_explicit(&run.prod[i].sent, memory_order_relaxed);
	return n;
}

static uint64_t total_received(const struct hb_options *o)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < o->consumers; i++)
		n += atomic_load_explicit(&run.cons[i].received, memory_order_relaxed);
	return n;
}

static int do_run(const struct hb_options *o)
{
	struct nr_topology *t = calloc(1, sizeof *t);
	char err[NR_ERRLEN], start_time[64];
	unsigned n = o->producers + o->consumers;
	int *cpus = calloc(n, sizeof *cpus);
	struct result r;
	int rc = 0;
	time_t now_t = time(NULL);
	struct tm tmv;

	memset(&r, 0, sizeof r);
	gmtime_r(&now_t, &tmv);
	strftime(start_time, sizeof start_time, "%Y-%m-%dT%H:%M:%SZ", &tmv);
	gethostname(r.host, sizeof r.host - 1);
	if (!t || !cpus)
		return 1;
	if (nr_topology_get(o->topology, t, err, sizeof err) < 0) {
		fprintf(stderr, "numaring-bench: %s\n", err);
		return 2;
	}
	if ((rc = plan_cpus(o, t, cpus)) != 0)
		return rc;
	if (!o->quiet)
		warn_crowding(o, t, cpus);
	if (o->out && (rc = hb_dir_writable(o->out)) < 0) {
		fprintf(stderr, "numaring-bench: --out %s is not writable: %s\n", o->out,
			strerror(-rc));
		return 2;
	}
	if (o->bursts && o->batch > HB_MAX_BURST) {
		fprintf(stderr, "numaring-bench: --bursts with --batch above %d is not supported\n",
			HB_MAX_BURST);
		return 2;
	}
	if (hc_init() < 0) {
		fprintf(stderr, "numaring-bench: NUMARING_CLOCK=\"%s\": expected tsc or gettime\n",
			getenv("NUMARING_CLOCK"));
		return 2;
	}
	topology_spec(o, t, r.topo_spec, sizeof r.topo_spec);
	r.emulated = t->emulated;
	r.nodes = t->nnodes;

	/* the queue */
	struct hq_params params;
	memset(&params, 0, sizeof params);
	params.capacity = o->capacity;
	params.batch = o->batch;
	params.threads = n;
	numaring_config_init(&params.ring);
	params.ring.capacity = o->capacity;
	params.ring.batch = o->batch;
	params.ring.lookup = o->lookup;
	params.ring.recheck = o->recheck;
	params.ring.gate = o->gate;
	params.ring.backoff = o->backoff;
	params.ring.topology = o->topology;
	run.o = o;
	run.ops = o->queue;
	err[0] = '\0';
	run.q = run.ops->create(&params, err, sizeof err);
	if (!run.q) {
		fprintf(stderr, "numaring-bench: cannot create queue %s: %s\n", run.ops->name, err);
		return 2;
	}
	r.lookup_in_force = run.ops->lookup_in_force
				    ? numaring_lookup_name(run.ops->lookup_in_force(run.q))
				    : "";

	/* threads and their state */
	uint64_t cap_total = o->capacity * (strcmp(run.ops->name, "numaring") == 0 ? t->nnodes : 1);
	uint64_t window = run.ops->bounded
				  ? pow2ceil(cap_total + (uint64_t)o->batch * n + 64)
				  : pow2ceil(cap_total / o->producers > 2 ? cap_total / o->producers : 2);
	if (o->bursts && window < 2 * (uint64_t)o->batch)
		window = pow2ceil(2 * (uint64_t)o->batch);
	run.prod = calloc(o->producers, sizeof *run.prod);
	run.cons = calloc(o->consumers, sizeof *run.cons);
	if (!run.prod || !run.cons)
		return 1;
	for (unsigned i = 0; i < o->producers; i++) {
		struct producer *p = &run.prod[i];
		p->id = i;
		p->cpu = cpus[i];
		p->mask = window - 1;
		if (run.ops->moves_data && !(p->pool = calloc(window, sizeof *p->pool))) {
			fprintf(stderr, "numaring-bench: out of memory for message pools\n");
			return 1;
		}
		p->quota = o->ops / o->producers + (i < o->ops % o->producers);
	}
	for (unsigned i = 0; i < o->consumers; i++) {
		struct consumer *c = &run.cons[i];
		c->id = i;
		c->cpu = cpus[o->producers + i];
		c->count = calloc(o->producers, sizeof *c->count);
		if (!c->count || hdr_init(1, INT64_C(3600) * 1000000000, 3, &c->hist) != 0) {
			fprintf(stderr, "numaring-bench: out of memory for histograms\n");
			return 1;
		}
	}
	if (o->rate > 0) {
		double per_producer = o->rate / o->producers;
		run.interval = hc_from_ns(1e9 / per_producer);
		if (run.interval == 0)
			run.interval = 1;
	}
	atomic_store(&run.t_start, UINT64_MAX);
	atomic_store(&run.t_end, UINT64_MAX);
	atomic_store(&run.phase, PH_START);
	pthread_barrier_init(&run.barrier, NULL, n + 1);
	for (unsigned i = 0; i < n; i++) {
		int e = i < o->producers
				? pthread_create(&run.prod[i].th, NULL, producer_main, &run.prod[i])
				: pthread_create(&run.cons[i - o->producers].th, NULL, consumer_main,
						 &run.cons[i - o->producers]);
		if (e) {
			fprintf(stderr, "numaring-bench: cannot start thread %u: %s\n", i, strerror(e));
			exit(1);
		}
	}
	pthread_barrier_wait(&run.barrier);
	if (phase() == PH_ABORT) {
		for (unsigned i = 0; i < o->producers; i++)
			if (run.prod[i].err[0])
				fprintf(stderr, "numaring-bench: producer %u: %s\n", i, run.prod[i].err);
		for (unsigned i = 0; i < o->consumers; i++)
			if (run.cons[i].err[0])
				fprintf(stderr, "numaring-bench: consumer %u: %s\n", i, run.cons[i].err);
		set_phase(PH_STOP_CONSUMERS);
		for (unsigned i = 0; i < o->producers; i++)
			pthread_join(run.prod[i].th, NULL);
		for (unsigned i = 0; i < o->consumers; i++)
			pthread_join(run.cons[i].th, NULL);
		return 1;
	}

	/* warm-up, then the measured window */
	set_phase(PH_WARMUP);
	if (o->warmup_s > 0)
		sleep_s(o->warmup_s);
	uint64_t t_start = hc_now();
	atomic_store_explicit(&run.t_start, t_start, memory_order_relaxed);
	set_phase(PH_MEASURE); /* release: publishes t_start */
	uint64_t t_end = t_start;
	if (o->ops == 0) {
		sleep_s(o->duration_s);
		t_end = hc_now();
		atomic_store_explicit(&run.t_end, t_end, memory_order_relaxed);
		set_phase(PH_STOP_PRODUCERS);
	}
	for (unsigned i = 0; i < o->producers; i++)
		pthread_join(run.prod[i].th, NULL);
	if (o->ops)
		set_phase(PH_STOP_PRODUCERS);
	/* drain: consumers keep going until everything sent has arrived */
	uint64_t sent = total_sent(o);
	double waited = 0;
	while (run.ops->moves_data && total_received(o) < sent && waited < o->drain_timeout_s) {
		sleep_s(0.001);
		waited += 0.001;
	}
	set_phase(PH_STOP_CONSUMERS);
	for (unsigned i = 0; i < o->consumers; i++)
		pthread_join(run.cons[i].th, NULL);

	/* merge */
	struct hdr_hist *hist;
	hdr_init(1, INT64_C(3600) * 1000000000, 3, &hist);
	uint64_t in_window = 0, received = 0, last = t_start;
	for (unsigned i = 0; i < o->consumers; i++) {
		struct consumer *c = &run.cons[i];
		hdr_add(hist, c->hist);
		in_window += c->in_window;
		received += atomic_load(&c->received);
		r.bad += c->bad;
		r.empty_polls += c->empty_polls;
		if (c->last_measured > last)
			last = c->last_measured;
		if (c->have_stats)
			numaring_stats_add(&r.st, &c->st);
		if (c->cpu >= 0 && c->pin_errno) {
			r.pin_failures++;
			fprintf(stderr, "numaring-bench: warning: consumer %u could not be pinned to CPU %d: %s\n",
				i, c->cpu, strerror(c->pin_errno));
		}
	}
	uint64_t measured_sent = 0;
	for (unsigned i = 0; i < o->producers; i++) {
		struct producer *p = &run.prod[i];
		r.full_retries += p->full_retries;
		r.window_waits += p->window_waits;
		measured_sent += p->sent_measured;
		if (p->have_stats)
			numaring_stats_add(&r.st, &p->st);
		if (p->cpu >= 0 && p->pin_errno) {
			r.pin_failures++;
			fprintf(stderr, "numaring-bench: warning: producer %u could not be pinned to CPU %d: %s\n",
				i, p->cpu, strerror(p->pin_errno));
		}
		if (run.ops->moves_data) {
			uint64_t got = 0;
			for (unsigned k = 0; k < o->consumers; k++)
				got += run.cons[k].count[i];
			uint64_t s = atomic_load(&p->sent);
			if (got < s)
				r.lost += s - got;
			else if (got > s)
				r.bad += got - s;
		}
	}
	r.enqueued = sent;
	r.dequeued = received;
	if (o->ops) {
		if (!run.ops->moves_data)
			last = hc_now();
		t_end = last > t_start ? last : t_start + 1;
		r.ops = run.ops->moves_data ? measured_sent : measured_sent;
	} else {
		r.ops = run.ops->moves_data ? in_window : (measured_sent + in_window) / 2;
	}
	r.duration_s = hc_to_ns(t_end - t_start) / 1e9;
	r.throughput = r.duration_s > 0 ? (double)r.ops / r.duration_s : 0;
	r.latency_count = hdr_total_count(hist);
	if (r.latency_count > 0) {
		r.p50 = hdr_value_at_percentile(hist, 50);
		r.p90 = hdr_value_at_percentile(hist, 90);
		r.p99 = hdr_value_at_percentile(hist, 99);
		r.p999 = hdr_value_at_percentile(hist, 99.9);
		r.max = hdr_max(hist);
		r.mean = hdr_mean(hist);
	}
	int failed = run.ops->moves_data && (r.lost || r.bad);
	r.verify = !run.ops->moves_data ? "n/a" : !o->verify ? "off" : failed ? "failed" : "ok";

	if (!o->quiet) {
		printf("%s %uP%uC", run.ops->name, o->producers, o->consumers);
		if (strcmp(run.ops->name, "numaring") == 0)
			printf(" lookup=%s gate=%s backoff=%s", r.lookup_in_force,
			       numaring_gate_name(o->gate), numaring_backoff_name(o->backoff));
		printf(" batch=%u cap=%zu%s [%s, %u node%s]: %.3f Mops/s", o->batch, o->capacity,
		       o->bursts ? " bursts" : "", r.emulated ? "emulated" : "real", r.nodes,
		       r.nodes == 1 ? "" : "s", r.throughput / 1e6);
		if (r.latency_count)
			printf(", p50 %lld ns, p99 %lld ns, p99.9 %lld ns, max %lld ns",
			       (long long)r.p50, (long long)r.p99, (long long)r.p999,
			       (long long)r.max);
		printf("; verify %s (%llu items)\n", r.verify, (unsigned long long)received);
	}
	if (o->verify && failed) {
		fprintf(stderr,
			"numaring-bench: verify failed: %llu items lost, %llu duplicated or unknown (sent %llu, received %llu)\n",
			(unsigned long long)r.lost, (unsigned long long)r.bad,
			(unsigned long long)sent, (unsigned long long)received);
		rc = 1;
	} else if (o->out) {
		rc = write_results(o, &r, hist, t, cpus, start_time);
	}

	hdr_free(hist);
	for (unsigned i = 0; i < o->consumers; i++) {
		hdr_free(run.cons[i].hist);
		free(run.cons[i].count);
	}
	for (unsigned i = 0; i < o->producers; i++)
		free(run.prod[i].pool);
	free(run.prod);
	free(run.cons);
	run.ops->destroy(run.q);
	pthread_barrier_destroy(&run.barrier);
	free(cpus);
	free(t);
	return rc;
}

static int do_probe(const struct hb_options *o)
{
	struct nr_topology *t = calloc(1, sizeof *t);
	char err[NR_ERRLEN];
	struct hp_opts po;
	int rc;
	if (!t)
		return 1;
	if (!o->out) {
		fprintf(stderr, "numaring-bench: --probe needs --out DIR (where probe.csv goes) (see --help)\n");
		free(t);
		return 2;
	}
	if (nr_topology_get(o->topology, t, err, sizeof err) < 0) {
		fprintf(stderr, "numaring-bench: %s\n", err);
		free(t);
		return 2;
	}
	if ((rc = hb_dir_writable(o->out)) < 0) {
		fprintf(stderr, "numaring-bench: --out %s is not writable: %s\n", o->out,
			strerror(-rc));
		free(t);
		return 2;
	}
	if (hc_init() < 0) {
		fprintf(stderr, "numaring-bench: NUMARING_CLOCK=\"%s\": expected tsc or gettime\n",
			getenv("NUMARING_CLOCK"));
		free(t);
		return 2;
	}
	memset(&po, 0, sizeof po);
	po.quick = o->quick;
	po.progress = o->quiet ? NULL : stderr;
	rc = hp_probe_run(t, o->out, &po, err, sizeof err);
	free(t);
	if (rc < 0) {
		fprintf(stderr, "numaring-bench: probe failed: %s\n", err);
		/* the folder cannot take the file: full, read-only, over quota */
		return rc == -ENOSPC || rc == -EFBIG || rc == -EROFS || rc == -EDQUOT
			       ? HB_EXIT_CANNOT_WRITE
			       : 1;
	}
	if (!o->quiet)
		printf("probe written to %s/probe.csv\n", o->out);
	return 0;
}

int main(int argc, char **argv)
{
	struct hb_options o;
	int rc = hb_parse(argc, argv, &o);
	if (rc)
		return rc;
	switch (o.mode) {
	case HB_HELP:
		hb_usage(stdout);
		return 0;
	case HB_VERSION:
		printf("numaring-bench %d.%d (git %s)\n", NUMARING_VERSION_MAJOR,
		       NUMARING_VERSION_MINOR, NUMARING_GIT);
		return 0;
	case HB_SHOW_TOPOLOGY:
		return show_topology(&o);
	case HB_PROBE:
		return do_probe(&o);
	case HB_RUN:
	default:
		return do_run(&o);
	}
}
