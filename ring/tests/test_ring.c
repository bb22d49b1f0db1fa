/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ring.c - behaviour of libnumaring, one thread at a time: config
 * checks, names, parsers, FIFO on one ring, full/empty, bursts, NULL items,
 * cross-node batches on emulated topologies, nearest-first order, routing
 * of every lookup mode, held items and orphans, the path of a dequeue
 * (numaring_dequeue_paths), allocation failure.
 */
#include "nr_test.h"

#include <errno.h>

#include "nr_internal.h"
#include "numaring_lab.h"
#include "nr_topology.h"

#include <time.h>

static char topo2[256], topo3[256];

/* ---- config ------------------------------------------------------------ */

static void defaults_create_anywhere(void **state)
{
	(void)state;
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	assert_int_equal(cfg.capacity, 1024);
	assert_int_equal(cfg.batch, 32);
	assert_int_equal(cfg.size, sizeof cfg);
	assert_int_equal(lab.size, sizeof lab);
	assert_int_equal(lab.lookup, NUMARING_LOOKUP_AUTO);
	assert_int_equal(lab.recheck, 256);
	assert_int_equal(lab.gate, NUMARING_GATE_PERWORKER);
	assert_int_equal(lab.linger_us, 0);
	assert_int_equal(cfg.backoff, NUMARING_BACKOFF_ADAPTIVE); /* NUMARING_BACKOFF_DEFAULT */
	assert_null(cfg.topology);
	unsetenv("NUMARING_TOPOLOGY");
	nr_test_unpin();
	/* the production API: no lab struct at all */
	struct numaring *q = numaring_create(&cfg);
	assert_non_null(q);
	/* AUTO: none where the machine has one node with CPUs (nothing to look
	 * up), else rseq where the kernel keeps node_id, else cached */
	unsigned cpu_nodes = 0;
	for (unsigned n = 0; n < numaring_node_count(q); n++)
		cpu_nodes += CPU_COUNT(&q->topo.cpus[n]) > 0;
	assert_int_equal(numaring_lookup_in_force(q), cpu_nodes == 1 ? NUMARING_LOOKUP_NONE
						      : numaring_rseq_node_supported()
							  ? NUMARING_LOOKUP_RSEQ
							  : NUMARING_LOOKUP_CACHED);
	assert_int_equal(numaring_gate_in_force(q), NUMARING_GATE_PERWORKER);
	assert_true(numaring_node_count(q) >= 1);
	assert_int_equal(numaring_topology_emulated(q), 0);
	struct numaring_worker *w = numaring_worker_attach(q);
	assert_non_null(w);
	assert_int_equal(numaring_enqueue(w, (void *)42), 0);
	void *out = NULL;
	assert_int_equal(numaring_dequeue(w, &out), 0);
	assert_ptr_equal(out, (void *)42);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

/* The structs say their size: a config not from numaring_config_init, or
 * from a newer header, is refused with a sentence; stats copy only as many
 * bytes as the caller's struct has. */
static void sized_structs(void **state)
{
	(void)state;
	struct numaring_config cfg;
	struct numaring_lab lab;
	memset(&cfg, 0, sizeof cfg);
	cfg.capacity = 64;
	cfg.batch = 8;
	errno = 0;
	assert_null(numaring_create(&cfg));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(numaring_last_error(), "numaring_config_init"));
	numaring_config_init(&cfg);
	cfg.size = sizeof cfg + 8; /* a newer caller */
	assert_null(numaring_create(&cfg));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(numaring_last_error(), "size"));
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	lab.size = 0;
	assert_null(numaring_lab_create(&cfg, &lab));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(numaring_last_error(), "numaring_lab_init"));

	numaring_lab_init(&lab);
	lab.lookup = NUMARING_LOOKUP_NONE;
	unsetenv("NUMARING_TOPOLOGY"); /* the machine's own nodes, whatever they are */
	nr_test_unpin();
	struct numaring *q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	struct numaring_worker *w = numaring_worker_attach(q);
	assert_non_null(w);
	for (int i = 0; i < 5; i++)
		assert_int_equal(numaring_enqueue(w, (void *)(uintptr_t)i), 0);
	struct numaring_stats st;
	memset(&st, 0xab, sizeof st);
	/* an older caller that knew only the first two counters */
	numaring_worker_stats(w, &st, 2 * sizeof(uint64_t));
	assert_int_equal(st.enqueued, 5);
	assert_int_equal(st.dequeued, 0);
	assert_int_equal(st.local_ops, 0xababababababababull); /* untouched */
	numaring_worker_stats(w, &st, sizeof st);
	assert_int_equal(st.local_ops, 5);
	/* a caller of 0.1, whose struct ends at gate_waits */
	memset(&st, 0xab, sizeof st);
	numaring_worker_stats(w, &st, offsetof(struct numaring_stats, gate_backoffs));
	assert_int_equal(st.gate_waits, 0);
	assert_int_equal(st.gate_backoffs, 0xababababababababull); /* untouched */
	assert_int_equal(st.backoff_ns_gate, 0xababababababababull);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

/* The backoffs' spin lengths (0.2): 0 is production, the lab's values reach
 * the workers, bad ones are refused with a sentence, and a lab of the 0.1
 * size (without them) gets production whatever lies past its size. */
static void spin_lengths_checked_and_in_force(void **state)
{
	(void)state;
	struct numaring_config cfg;
	struct numaring_lab lab;
	unsigned spin = 0, cap = 0;
	numaring_config_init(&cfg);
	cfg.capacity = 16;
	cfg.batch = 4;
	cfg.backoff = NUMARING_BACKOFF_EXP;
	numaring_lab_init(&lab);
	assert_int_equal(lab.pause_spin, 0);
	assert_int_equal(lab.exp_cap, 0);
	unsetenv("NUMARING_TOPOLOGY");
	nr_test_unpin();

	struct numaring *q = numaring_create(&cfg);
	assert_non_null(q);
	numaring_spin_in_force(q, &spin, &cap);
	assert_int_equal(spin, NUMARING_PAUSE_SPIN);
	assert_int_equal(cap, NUMARING_EXP_MAX_SPIN);
	numaring_spin_in_force(q, NULL, NULL);
	numaring_destroy(q);

	lab.pause_spin = 8;
	lab.exp_cap = 64;
	q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	numaring_spin_in_force(q, &spin, &cap);
	assert_int_equal(spin, 8);
	assert_int_equal(cap, 64);
	struct numaring_worker *w = numaring_worker_attach(q);
	assert_non_null(w);
	/* white box: where the cold backoff reads them, beside its mode */
	assert_int_equal(w->bo.mode, NUMARING_BACKOFF_EXP);
	assert_int_equal(w->bo.pause_spin, 8);
	assert_int_equal(w->bo.exp_cap, 64);
	numaring_worker_detach(w);
	numaring_destroy(q);

	/* the bounds: 1..NUMARING_LAB_SPIN_MAX, the cap a power of two */
	lab.pause_spin = NUMARING_LAB_SPIN_MAX;
	lab.exp_cap = NUMARING_LAB_SPIN_MAX;
	q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	numaring_destroy(q);
	lab.exp_cap = 1;
	q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	numaring_destroy(q);
	const struct {
		unsigned pause_spin, exp_cap;
		const char *message;
	} bad[] = {
		{NUMARING_LAB_SPIN_MAX + 1, 0, "pause_spin 65537 is above 65536"},
		{UINT32_MAX, 0, "pause_spin 4294967295"},
		{0, 3, "exp_cap 3 is not a power of two"},
		{0, 1000, "exp_cap 1000 is not a power of two"},
		{0, 2 * NUMARING_LAB_SPIN_MAX, "exp_cap 131072"},
		{0, 1u << 31, "exp_cap 2147483648"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		lab.pause_spin = bad[i].pause_spin;
		lab.exp_cap = bad[i].exp_cap;
		cfg.backoff = NUMARING_BACKOFF_NONE; /* checked whatever the backoff */
		errno = 0;
		assert_null(numaring_lab_create(&cfg, &lab));
		assert_int_equal(errno, EINVAL);
		if (!strstr(numaring_last_error(), bad[i].message))
			fail_msg("pause_spin %u, exp_cap %u: \"%s\" does not say \"%s\"",
				 bad[i].pause_spin, bad[i].exp_cap, numaring_last_error(),
				 bad[i].message);
	}

	/* an older caller: its struct ends before pause_spin */
	lab.pause_spin = UINT32_MAX; /* past its size: never read */
	lab.exp_cap = 3;
	lab.size = offsetof(struct numaring_lab, pause_spin);
	q = numaring_lab_create(&cfg, &lab);
	if (!q)
		fail_msg("a lab of the 0.1 size was refused: %s", numaring_last_error());
	numaring_spin_in_force(q, &spin, &cap);
	assert_int_equal(spin, NUMARING_PAUSE_SPIN);
	assert_int_equal(cap, NUMARING_EXP_MAX_SPIN);
	numaring_destroy(q);
}

/* numaring_stats_add_sized adds the counters within the size and touches
 * nothing past it; numaring_stats_add adds every counter of this header. */
static void stats_add_sized_leaves_the_rest(void **state)
{
	(void)state;
	enum { N = sizeof(struct numaring_stats) / sizeof(uint64_t) };
	const size_t old = offsetof(struct numaring_stats, gate_backoffs); /* 0.1 */
	uint64_t acc[N], s[N];
	assert_int_equal(N, 14);
	assert_int_equal(old, 11 * sizeof(uint64_t));
	for (size_t i = 0; i < N; i++)
		s[i] = i + 1;
	const size_t sizes[] = {0, 1, sizeof(uint64_t), old, old + 4, old + 8,
				sizeof(struct numaring_stats), sizeof(struct numaring_stats) + 64};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		memset(acc, 0xab, sizeof acc);
		numaring_stats_add_sized((struct numaring_stats *)acc,
					 (const struct numaring_stats *)s, sizes[k]);
		for (size_t i = 0; i < N; i++) {
			uint64_t want =
			    0xababababababababull + ((i + 1) * 8 <= sizes[k] ? i + 1 : 0);
			if (acc[i] != want)
				fail_msg("size %zu: counter %zu is %#llx, expected %#llx", sizes[k],
					 i, (unsigned long long)acc[i], (unsigned long long)want);
		}
	}
	struct numaring_stats a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	b.enqueued = 3;
	b.gate_waits = 5;
	b.gate_backoffs = 7;
	b.backoff_ns_race = 11;
	b.backoff_ns_gate = 13;
	numaring_stats_add(&a, &b);
	numaring_stats_add(&a, &b);
	assert_int_equal(a.enqueued, 6);
	assert_int_equal(a.gate_waits, 10);
	assert_int_equal(a.gate_backoffs, 14);
	assert_int_equal(a.backoff_ns_race, 22);
	assert_int_equal(a.backoff_ns_gate, 26);
}

/* The backoff's counting and sampling, on one thread (white box): every
 * lost race counted, every gate backoff counted, about one in
 * NR_BACKOFF_SAMPLE timed; NONE runs, counts and times no backoff. */
static void backoff_counts_and_samples(void **state)
{
	(void)state;
	enum { RUNS = 16000 };
	struct nr_backoff bo;
	nr_backoff_init(&bo, NUMARING_BACKOFF_PAUSE, 4, NUMARING_EXP_MAX_SPIN, 0, 12345);
	for (unsigned i = 0; i < RUNS; i++)
		nr_backoff_fail(&bo, i % 3);
	for (unsigned i = 0; i < RUNS / 2; i++)
		nr_backoff_gate(&bo, i % 5);
	assert_int_equal(bo.failures, RUNS);
	assert_int_equal(bo.gate_backoffs, RUNS / 2);
	/* P(none of 8,000 timed) = (15/16)^8000: never */
	assert_true(bo.ns[NR_BACKOFF_RACE] > 0);
	assert_true(bo.ns[NR_BACKOFF_GATE] > 0);
	assert_int_equal(bo.ns[NR_BACKOFF_RACE] % NR_BACKOFF_SAMPLE, 0);

	/* how many were timed: the draw alone decides; binomial(16000, 1/16)
	 * has mean 1000 and sd 31, so 800..1200 is more than 6 sd each side */
	uint32_t x = 12345u | 1u;
	unsigned timed = 0;
	for (unsigned i = 0; i < RUNS; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		timed += x <= UINT32_MAX / NR_BACKOFF_SAMPLE;
	}
	assert_in_range(timed, 800, 1200);

	nr_backoff_init(&bo, NUMARING_BACKOFF_EXP, 1, 1, 0, 0); /* seed 0: made nonzero */
	assert_int_not_equal(bo.draw, 0);
	for (unsigned i = 0; i < RUNS; i++)
		nr_backoff_fail(&bo, i); /* attempt past 31: the cap, no undefined shift */
	assert_true(bo.ns[NR_BACKOFF_RACE] > 0);

	/* ADAPTIVE: races lost close together double the worker's length up
	 * to the cap, whatever operation lost them (attempt is ignored); one
	 * after a calm spell starts again at one PAUSE */
	nr_backoff_init(&bo, NUMARING_BACKOFF_ADAPTIVE, 1, 8, 0, 5);
	const uint32_t levels[] = {1, 2, 4, 8, 8, 8};
	for (unsigned i = 0; i < sizeof levels / sizeof levels[0]; i++) {
		uint64_t before = nr_now_ns();
		if (i > 0) /* the last backoff "ended" a second ahead: never calm, however
			      slow this runs (valgrind) */
			bo.last_ns = before + 1000000000u;
		nr_backoff_fail(&bo, 0);
		assert_int_equal(bo.level, levels[i]);
		assert_true(bo.last_ns >= before);
	}
	bo.last_ns = nr_now_ns() - 10 * (uint64_t)NR_ADAPTIVE_CALM_NS; /* ended long ago */
	nr_backoff_fail(&bo, 3);
	assert_int_equal(bo.level, 1);
	assert_int_equal(bo.failures, 7);

	nr_backoff_init(&bo, NUMARING_BACKOFF_NONE, 4, 4, 0, 777);
	for (unsigned i = 0; i < RUNS; i++) {
		nr_backoff_fail(&bo, i);
		nr_backoff_gate(&bo, i);
	}
	assert_int_equal(bo.failures, RUNS);
	assert_int_equal(bo.gate_backoffs, 0);
	assert_int_equal(bo.ns[NR_BACKOFF_RACE], 0);
	assert_int_equal(bo.ns[NR_BACKOFF_GATE], 0);
	assert_int_equal(bo.draw, 777u | 1u); /* not even a draw */
}

struct bad_config {
	const char *what;
	size_t capacity;
	unsigned batch;
	int lookup, gate, backoff;
	unsigned recheck;
	const char *topology;
	const char *message; /* substring of numaring_last_error() */
};

static void invalid_configs_refused(void **state)
{
	(void)state;
	const struct bad_config cases[] = {
		{"capacity 0", 0, 1, 3, 2, 0, 8, NULL, "capacity 0 is not a power of two"},
		{"capacity 1", 1, 1, 3, 2, 0, 8, NULL, "capacity 1 is not a power of two"},
		{"capacity 3", 3, 1, 3, 2, 0, 8, NULL, "capacity 3 is not a power of two"},
		{"capacity 1000", 1000, 1, 3, 2, 0, 8, NULL, "capacity 1000"},
		{"batch 0", 16, 0, 3, 2, 0, 8, NULL, "batch 0 is not between 1 and the capacity"},
		{"batch > capacity", 16, 17, 3, 2, 0, 8, NULL, "batch 17"},
		{"lookup 99", 16, 4, 99, 2, 0, 8, NULL, "unknown lookup mode 99"},
		{"lookup -1", 16, 4, -1, 2, 0, 8, NULL, "unknown lookup mode -1"},
		{"gate 7", 16, 4, 3, 7, 0, 8, NULL, "unknown gate mode 7"},
		{"backoff 9", 16, 4, 3, 2, 9, 8, NULL, "unknown backoff mode 9"},
		{"recheck 0", 16, 4, 3, 2, 0, 0, NULL, "recheck >= 1"},
		{"empty topology", 16, 4, 3, 2, 0, 8, "", "empty topology string"},
		{"garbage topology", 16, 4, 3, 2, 0, 8, "zero;one", "expected a CPU number"},
		{"empty node", 16, 4, 3, 2, 0, 8, "0;;1", "empty cpulist"},
		{"reversed", 16, 4, 3, 2, 0, 8, "3-1", "reversed range 3-1"},
		{"twice", 16, 4, 3, 2, 0, 8, "0;0", "CPU 0 is named in two nodes"},
		{"huge cpu", 16, 4, 3, 2, 0, 8, "0-99999", "too large"},
		{"cpu not allowed", 16, 4, 3, 2, 0, 8, "0-1023", "may not use"},
		{"bad matrix", 16, 4, 3, 2, 0, 8, "0|10,20", "distance matrix has 2 values"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct bad_config *c = &cases[i];
		struct numaring_config cfg;
		struct numaring_lab lab;
		numaring_config_init(&cfg);
		numaring_lab_init(&lab);
		cfg.capacity = c->capacity;
		cfg.batch = c->batch;
		lab.lookup = (enum numaring_lookup)c->lookup;
		lab.gate = (enum numaring_gate)c->gate;
		cfg.backoff = (enum numaring_backoff)c->backoff;
		lab.recheck = c->recheck;
		cfg.topology = c->topology;
		errno = 0;
		struct numaring *q = numaring_lab_create(&cfg, &lab);
		if (q)
			fail_msg("case '%s' was accepted", c->what);
		if (errno != EINVAL)
			fail_msg("case '%s': errno %d, expected EINVAL", c->what, errno);
		if (!strstr(numaring_last_error(), c->message))
			fail_msg("case '%s': message \"%s\" lacks \"%s\"", c->what,
				 numaring_last_error(), c->message);
	}
	assert_null(numaring_create(NULL));
	assert_int_equal(errno, EINVAL);
}

static void allowed_cpu_not_named_refused(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	char spec[32];
	snprintf(spec, sizeof spec, "%d", nr_test_cpu(0));
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.topology = spec;
	assert_null(numaring_lab_create(&cfg, &lab));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(numaring_last_error(), "does not name CPU"));
}

static void environment_topology_used_and_checked(void **state)
{
	(void)state;
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	setenv("NUMARING_TOPOLOGY", topo2, 1);
	nr_test_unpin();
	struct numaring *q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	assert_int_equal(numaring_topology_emulated(q), 1);
	assert_int_equal(numaring_node_memory(q, 0), -1);
	numaring_destroy(q);
	setenv("NUMARING_TOPOLOGY", "0-x", 1);
	assert_null(numaring_lab_create(&cfg, &lab));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(numaring_last_error(), "NUMARING_TOPOLOGY"));
	/* the config field wins over the environment */
	cfg.topology = topo2;
	q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	numaring_destroy(q);
	unsetenv("NUMARING_TOPOLOGY");
}

/* ---- names ------------------------------------------------------------- */

static void names_round_trip(void **state)
{
	(void)state;
	for (int v = 0; v < NUMARING_LOOKUP_COUNT_; v++) {
		enum numaring_lookup back;
		assert_int_equal(numaring_lookup_parse(numaring_lookup_name(v), &back), 0);
		assert_int_equal(back, v);
	}
	for (int v = 0; v < NUMARING_GATE_COUNT_; v++) {
		enum numaring_gate back;
		assert_int_equal(numaring_gate_parse(numaring_gate_name(v), &back), 0);
		assert_int_equal(back, v);
	}
	for (int v = 0; v < NUMARING_BACKOFF_COUNT_; v++) {
		enum numaring_backoff back;
		assert_int_equal(numaring_backoff_parse(numaring_backoff_name(v), &back), 0);
		assert_int_equal(back, v);
	}
	enum numaring_lookup l;
	assert_int_equal(numaring_lookup_parse("Cached", &l), -EINVAL);
	assert_int_equal(numaring_lookup_parse("", &l), -EINVAL);
	assert_int_equal(numaring_lookup_parse(NULL, &l), -EINVAL);
	assert_string_equal(numaring_lookup_name(NUMARING_LOOKUP_RSEQ), "rseq");
	assert_string_equal(numaring_gate_name(NUMARING_GATE_SHARED), "shared");
	assert_string_equal(numaring_backoff_name(NUMARING_BACKOFF_EXP), "exp");
	assert_string_equal(numaring_lookup_name((enum numaring_lookup)77), "?");
}

/* ---- parsers ----------------------------------------------------------- */

static void cpulist_parser(void **state)
{
	(void)state;
	struct {
		const char *in;
		const char *out; /* formatted back, or NULL: refused */
	} cases[] = {
		{"0", "0"},
		{"0-3", "0-3"},
		{" 0 - 3 , 8 ", "0-3,8"},
		{"5,1,3-4", "1,3-5"},
		{"1023", "1023"},
		{"0,0", "0"},
		{"", NULL},
		{" ", NULL},
		{",", NULL},
		{"0,", NULL},
		{",0", NULL},
		{"1-", NULL},
		{"-1", NULL},
		{"3-1", NULL},
		{"1024", NULL},
		{"99999999999999999999", NULL},
		{"a", NULL},
		{"0x1", NULL},
		{"1 2", NULL},
		{"0-3:2", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cpu_set_t s;
		char err[NR_ERRLEN] = "", back[128];
		int rc = nr_cpulist_parse(cases[i].in, strlen(cases[i].in), &s, err, sizeof err);
		if (!cases[i].out) {
			if (rc != -EINVAL)
				fail_msg("cpulist \"%s\" was accepted", cases[i].in);
			assert_true(strlen(err) > 0);
			continue;
		}
		if (rc != 0)
			fail_msg("cpulist \"%s\" refused: %s", cases[i].in, err);
		assert_true(nr_cpulist_format(&s, back, sizeof back) > 0);
		assert_string_equal(back, cases[i].out);
	}
	char tiny[3];
	cpu_set_t s;
	nr_cpulist_parse("0-3,8", 5, &s, NULL, 0);
	assert_int_equal(nr_cpulist_format(&s, tiny, sizeof tiny), -ENOSPC);
}

static void topology_parser(void **state)
{
	(void)state;
	struct nr_topology *t = malloc(sizeof *t);
	char err[NR_ERRLEN];
	assert_int_equal(nr_topology_parse("0-7;8-15", t, err, sizeof err), 0);
	assert_int_equal(t->nnodes, 2);
	assert_int_equal(t->emulated, 1);
	assert_int_equal(CPU_COUNT(&t->cpus[1]), 8);
	assert_true(CPU_ISSET(8, &t->cpus[1]));
	assert_int_equal(t->dist[0][1], 20);
	assert_int_equal(t->dist[1][1], 10);

	assert_int_equal(nr_topology_parse("0;1;-|10,22,16,22,10,16,16,16,10", t, err, sizeof err), 0);
	assert_int_equal(t->nnodes, 3);
	assert_int_equal(CPU_COUNT(&t->cpus[2]), 0);
	assert_int_equal(t->dist[0][1], 22);
	assert_int_equal(t->dist[0][2], 16);
	unsigned char order[NR_MAX_NODES];
	nr_topology_order(t, 0, order);
	assert_int_equal(order[0], 2); /* nearest first */
	assert_int_equal(order[1], 1);

	const char *bad[] = {"",           ";",         "0;",          "0;;1",
			     "0|",         "0|10,",     "0;1|10,20,20", "0;1|10,20,20,11,5",
			     "0;1|10,5,5,10", "0;1|11,20,20,10", "0|300", "0|10|10",
			     "0;1|10,20,20,10,10", "0;1|10 20,20,10", "x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		if (nr_topology_parse(bad[i], t, err, sizeof err) != -EINVAL)
			fail_msg("topology \"%s\" was accepted", bad[i]);
		assert_true(strlen(err) > 0);
	}
	/* 65 nodes */
	char many[400] = "";
	for (int i = 0; i < 65; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", i ? ";" : "", i);
	assert_int_equal(nr_topology_parse(many, t, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "more than 64 nodes"));
	free(t);
}

/* ---- one ring ---------------------------------------------------------- */

static void fifo_full_empty_null_on_one_node(void **state)
{
	(void)state;
	char spec[256]; /* one node on any machine (a real multi-node one too) */
	struct numaring *q = nr_test_create(8, 4, NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE,
					    nr_test_topology(spec, sizeof spec, 1, 0));
	struct numaring_worker *w = numaring_worker_attach(q);
	void *out;
	assert_int_equal(numaring_node_count(q), 1);
	assert_int_equal(numaring_dequeue(w, &out), -ENOENT);
	for (uintptr_t i = 0; i < 8; i++)
		assert_int_equal(numaring_enqueue(w, (void *)i), 0); /* item 0 is NULL */
	assert_int_equal(numaring_enqueue(w, (void *)99), -ENOBUFS);
	for (uintptr_t i = 0; i < 8; i++) {
		out = (void *)77;
		assert_int_equal(numaring_dequeue(w, &out), 0);
		assert_ptr_equal(out, (void *)i);
	}
	assert_int_equal(numaring_dequeue(w, &out), -ENOENT);
	struct numaring_stats st;
	numaring_worker_stats(w, &st, sizeof st);
	assert_int_equal(st.enqueued, 8);
	assert_int_equal(st.dequeued, 8);
	assert_int_equal(st.local_ops, 16);
	assert_int_equal(st.batches_out + st.batches_in, 0);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

static void bursts_partial_and_in_order(void **state)
{
	(void)state;
	char spec[256]; /* one node on any machine (a real multi-node one too) */
	struct numaring *q = nr_test_create(16, 4, NUMARING_LOOKUP_NONE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE,
					    nr_test_topology(spec, sizeof spec, 1, 0));
	assert_int_equal(numaring_node_count(q), 1);
	struct numaring_worker *w = numaring_worker_attach(q);
	void *in[40], *out[40];
	for (uintptr_t i = 0; i < 40; i++)
		in[i] = (void *)i;
	assert_int_equal(numaring_enqueue_burst(w, in, 0), 0);
	assert_int_equal(numaring_enqueue_burst(w, in, 10), 10);
	assert_int_equal(numaring_enqueue_burst(w, in + 10, 30), 6); /* room for 6 */
	assert_int_equal(numaring_enqueue_burst(w, in, 1), 0);
	assert_int_equal(numaring_dequeue_burst(w, out, 3), 3);
	assert_int_equal(numaring_dequeue_burst(w, out + 3, 40), 13);
	for (uintptr_t i = 0; i < 16; i++)
		assert_ptr_equal(out[i], (void *)i);
	assert_int_equal(numaring_dequeue_burst(w, out, 40), 0);
	/* single and burst operations mix on one ring */
	assert_int_equal(numaring_enqueue(w, in[1]), 0);
	assert_int_equal(numaring_enqueue_burst(w, in + 2, 2), 2);
	assert_int_equal(numaring_enqueue(w, in[4]), 0);
	void *one;
	assert_int_equal(numaring_dequeue(w, &one), 0);
	assert_ptr_equal(one, in[1]);
	assert_int_equal(numaring_dequeue_burst(w, out, 8), 3);
	assert_ptr_equal(out[2], in[4]);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

/* ---- emulated nodes ---------------------------------------------------- */

static void full_local_ring_moves_a_batch(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	struct numaring *q = nr_test_create(8, 4, NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE, topo2);
	struct numaring_stats st;
	void *out;
	assert_int_equal(numaring_node_count(q), 2);
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	struct numaring_worker *w = numaring_worker_attach(q);
	for (uintptr_t i = 0; i < 8; i++)
		assert_int_equal(numaring_enqueue(w, (void *)i), 0);
	assert_int_equal(numaring_worker_node(w), 0);
	numaring_worker_stats(w, &st, sizeof st);
	assert_int_equal(st.batches_out, 0);
	/* ring 0 is full: its 4 oldest items move to node 1 in one transfer */
	assert_int_equal(numaring_enqueue(w, (void *)8), 0);
	numaring_worker_stats(w, &st, sizeof st);
	assert_int_equal(st.batches_out, 1);
	assert_int_equal(st.items_out, 4);
	assert_int_equal(nr_ring_count(q->rings[1]), 4);
	assert_int_equal(nr_ring_count(q->rings[0]), 5);
	/* fill everything: 16 slots in all */
	for (uintptr_t i = 9; i < 16; i++)
		assert_int_equal(numaring_enqueue(w, (void *)i), 0);
	assert_int_equal(numaring_enqueue(w, (void *)16), -ENOBUFS);

	/* from node 1: its own ring first, then a batch from node 0 */
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	int seen[16] = {0};
	for (int k = 0; k < 16; k++) {
		assert_int_equal(numaring_dequeue(w, &out), 0);
		assert_true((uintptr_t)out < 16);
		seen[(uintptr_t)out]++;
	}
	assert_int_equal(numaring_worker_node(w), 1);
	assert_int_equal(numaring_dequeue(w, &out), -ENOENT);
	for (int k = 0; k < 16; k++)
		assert_int_equal(seen[k], 1);
	numaring_worker_stats(w, &st, sizeof st);
	assert_true(st.batches_in >= 1);
	assert_int_equal(st.enqueued, 16);
	assert_int_equal(st.dequeued, 16);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

/* linger: a consumer takes only full batches from another node, until it
 * has found nothing for linger_us; then what there is (nothing is stranded).
 * Out of range: EINVAL. */
static void linger_takes_full_batches_and_strands_nothing(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	lab.linger_us = 1000001;
	errno = 0;
	assert_null(numaring_lab_create(&cfg, &lab));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(numaring_last_error(), "linger_us 1000001"));

	numaring_config_init(&cfg);

	numaring_lab_init(&lab);
	cfg.capacity = 16;
	cfg.batch = 4;
	lab.lookup = NUMARING_LOOKUP_TABLE;
	cfg.topology = topo2;
	lab.linger_us = 20000; /* 20 ms */
	nr_test_unpin(); /* the library checks topologies against our affinity */
	struct numaring *q = numaring_lab_create(&cfg, &lab);
	assert_non_null(q);
	struct numaring_stats st;
	void *out;
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	struct numaring_worker *p = numaring_worker_attach(q);
	for (uintptr_t i = 1; i <= 3; i++) /* fewer than a batch on node 0 */
		assert_int_equal(numaring_enqueue(p, (void *)i), 0);
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	struct numaring_worker *c = numaring_worker_attach(q);
	/* within the linger: nothing taken, no gate touched */
	assert_int_equal(numaring_dequeue(c, &out), -ENOENT);
	numaring_worker_stats(c, &st, sizeof st);
	assert_int_equal(st.batches_in, 0);
	/* a full batch is there: taken at once, all four in one transfer */
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	assert_int_equal(numaring_enqueue(p, (void *)4), 0);
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	assert_int_equal(numaring_dequeue(c, &out), 0);
	numaring_worker_stats(c, &st, sizeof st);
	assert_int_equal(st.batches_in, 1);
	assert_int_equal(st.items_in, 4);
	for (int k = 0; k < 3; k++)
		assert_int_equal(numaring_dequeue(c, &out), 0);
	/* one item left behind on node 0: after the linger it comes anyway */
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	assert_int_equal(numaring_enqueue(p, (void *)5), 0);
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	int got = 0;
	for (int tries = 0; tries < 1000 && !got; tries++) {
		got = numaring_dequeue(c, &out) == 0;
		if (!got) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
	}
	assert_true(got);
	assert_int_equal((uintptr_t)out, 5);
	numaring_worker_stats(c, &st, sizeof st);
	assert_int_equal(st.batches_in, 2);
	numaring_worker_detach(p);
	numaring_worker_detach(c);
	numaring_destroy(q);
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
}

static void nearest_node_first(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	/* node 2 has memory, no CPUs; it is nearer to both than they are to each other */
	char spec[300];
	snprintf(spec, sizeof spec, "%s;-|10,30,16,30,10,14,16,14,10", topo2);
	struct numaring *q = nr_test_create(8, 4, NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE, spec);
	assert_int_equal(numaring_node_count(q), 3);
	assert_int_equal(numaring_node_distance(q, 0, 2), 16);
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	struct numaring_worker *w = numaring_worker_attach(q);
	for (uintptr_t i = 0; i < 9; i++)
		assert_int_equal(numaring_enqueue(w, (void *)i), 0);
	assert_int_equal(nr_ring_count(q->rings[2]), 4); /* pushed to the nearest, node 2 */
	assert_int_equal(nr_ring_count(q->rings[1]), 0);
	/* a consumer on node 1 steals from node 2 (14) before node 0 (30) */
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	void *out;
	assert_int_equal(numaring_dequeue(w, &out), 0);
	assert_int_equal(nr_ring_count(q->rings[2]), 0);
	assert_int_equal(nr_ring_count(q->rings[0]), 5);
	assert_int_equal(nr_ring_count(q->rings[1]), 3); /* the rest of the batch */
	numaring_worker_detach(w);
	numaring_destroy(q);
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
}

static void every_lookup_routes_to_the_cpus_node(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	for (int mode = 0; mode < NUMARING_LOOKUP_COUNT_; mode++) {
		struct numaring *q = nr_test_create(16, 4, (enum numaring_lookup)mode,
						    NUMARING_GATE_PERWORKER, NUMARING_BACKOFF_NONE,
						    topo2);
		void *out;
		assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
		struct numaring_worker *w = numaring_worker_attach(q);
		assert_int_equal(numaring_worker_node(w), 1);
		assert_int_equal(numaring_enqueue(w, NULL), 0);
		assert_int_equal(numaring_worker_node(w), 1);
		/* move to node 0: every mode but NONE follows, CACHED within recheck (8) */
		assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
		for (int k = 0; k < 8; k++) {
			assert_int_equal(numaring_enqueue(w, NULL), 0);
			assert_int_equal(numaring_dequeue(w, &out), 0);
		}
		int expect = mode == NUMARING_LOOKUP_NONE ? 1 : 0;
		if (numaring_worker_node(w) != expect)
			fail_msg("lookup %s routed to node %d, expected %d",
				 numaring_lookup_name(mode), numaring_worker_node(w), expect);
		struct numaring_stats st;
		numaring_worker_stats(w, &st, sizeof st);
		if (mode != NUMARING_LOOKUP_NONE)
			assert_true(st.node_changes >= 1);
		else
			assert_int_equal(st.lookups, 0);
		numaring_worker_detach(w);
		numaring_destroy(q);
	}
}

static void rseq_and_rdpid_report_what_is_in_force(void **state)
{
	(void)state;
	struct numaring *q = nr_test_create(16, 4, NUMARING_LOOKUP_RSEQ, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE, NULL);
	enum numaring_lookup in_force = numaring_lookup_in_force(q);
	assert_int_equal(in_force, numaring_rseq_node_supported() ? NUMARING_LOOKUP_RSEQ
								  : NUMARING_LOOKUP_TABLE);
	numaring_destroy(q);
	q = nr_test_create(16, 4, NUMARING_LOOKUP_RDPID, NUMARING_GATE_PERWORKER,
			   NUMARING_BACKOFF_NONE, NULL);
	assert_int_equal(numaring_lookup_in_force(q), numaring_rdpid_supported()
							      ? NUMARING_LOOKUP_RDPID
							      : NUMARING_LOOKUP_TABLE);
	numaring_destroy(q);
	print_message("rseq node_id: %s, rdpid: %s\n",
		      numaring_rseq_node_supported() ? "yes" : "no",
		      numaring_rdpid_supported() ? "yes" : "no");
}

/* ---- held items and orphans -------------------------------------------- */

static void held_items_survive_detach_when_all_full(void **state)
{
	(void)state;
	struct numaring *q = nr_test_create(4, 4, NUMARING_LOOKUP_NONE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE, NULL);
	unsigned nodes = numaring_node_count(q);
	struct numaring_worker *a = numaring_worker_attach(q);
	struct numaring_worker *b = numaring_worker_attach(q);
	/* a holds three items, as after a transfer interrupted by a full ring */
	a->pending[0] = (void *)1001;
	a->pending[1] = (void *)1002;
	a->pending[2] = NULL;
	a->npending = 3;
	/* b fills every ring */
	unsigned filled = 0;
	while (numaring_enqueue(b, (void *)(uintptr_t)filled) == 0)
		filled++;
	assert_int_equal(filled, 4 * nodes);
	numaring_worker_detach(a); /* no room anywhere: the items become orphans */
	assert_int_equal(atomic_load(&q->orphan_count), 3);
	int got1001 = 0, got1002 = 0, gotnull = 0, total = 0;
	void *out;
	while (numaring_dequeue(b, &out) == 0) {
		total++;
		got1001 += out == (void *)1001;
		got1002 += out == (void *)1002;
		gotnull += out == NULL;
	}
	assert_int_equal(total, (int)filled + 3);
	assert_int_equal(got1001, 1);
	assert_int_equal(got1002, 1);
	assert_int_equal(gotnull, 2); /* item 0 of b's and the held NULL */
	assert_int_equal(atomic_load(&q->orphan_count), 0);
	numaring_worker_detach(b);
	numaring_destroy(q);
}

static void held_items_come_back_first(void **state)
{
	(void)state;
	struct numaring *q = nr_test_create(8, 4, NUMARING_LOOKUP_NONE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE, NULL);
	struct numaring_worker *w = numaring_worker_attach(q);
	void *out[8];
	w->pending[0] = (void *)7;
	w->npending = 1;
	/* an enqueue puts held items back into a ring before its own item */
	assert_int_equal(numaring_enqueue(w, (void *)8), 0);
	assert_int_equal(w->npending, 0);
	w->pending[0] = (void *)9;
	w->npending = 1;
	assert_int_equal(numaring_dequeue_burst(w, out, 8), 3); /* held item first */
	assert_ptr_equal(out[0], (void *)9);
	assert_ptr_equal(out[1], (void *)7);
	assert_ptr_equal(out[2], (void *)8);
	assert_int_equal(numaring_dequeue_burst(w, out, 8), 0);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

/* ---- the path of a dequeue (numaring_dequeue_paths) ---------------------- */

/* The paths of w's last dequeue, which returned n items: counts and firsts. */
static void expect_paths(const struct numaring_worker *w, unsigned n, unsigned local,
			 unsigned local_first, unsigned transfer, unsigned transfer_first,
			 unsigned held, unsigned held_first)
{
	struct numaring_paths p;
	assert_int_equal(numaring_dequeue_paths(w, n, &p), 0);
	assert_int_equal(p.count[NUMARING_PATH_LOCAL], local);
	assert_int_equal(p.count[NUMARING_PATH_TRANSFER], transfer);
	assert_int_equal(p.count[NUMARING_PATH_HELD], held);
	assert_int_equal(p.first[NUMARING_PATH_LOCAL], local_first);
	assert_int_equal(p.first[NUMARING_PATH_TRANSFER], transfer_first);
	assert_int_equal(p.first[NUMARING_PATH_HELD], held_first);
}

/* On one node: the local ring, held items (first, then local ones in the
 * same burst), orphans (held); names; n that cannot be is refused. */
static void dequeue_paths_local_and_held(void **state)
{
	(void)state;
	char spec[256]; /* one node on any machine: nothing crosses */
	struct numaring *q = nr_test_create(8, 4, NUMARING_LOOKUP_NONE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE,
					    nr_test_topology(spec, sizeof spec, 1, 0));
	struct numaring_worker *w = numaring_worker_attach(q);
	struct numaring_paths p;
	void *out[8], *one;
	assert_string_equal(numaring_path_name(NUMARING_PATH_LOCAL), "local");
	assert_string_equal(numaring_path_name(NUMARING_PATH_TRANSFER), "transfer");
	assert_string_equal(numaring_path_name(NUMARING_PATH_HELD), "held");
	assert_string_equal(numaring_path_name(NUMARING_PATH_COUNT_), "?");
	assert_int_equal(numaring_dequeue_paths(w, 0, &p), -EINVAL);
	/* the local ring, single and burst */
	for (uintptr_t i = 1; i <= 5; i++)
		assert_int_equal(numaring_enqueue(w, (void *)i), 0);
	assert_int_equal(numaring_dequeue(w, &one), 0);
	expect_paths(w, 1, 1, 0, 0, 0, 0, 0);
	assert_int_equal(numaring_dequeue_burst(w, out, 3), 3);
	expect_paths(w, 3, 3, 0, 0, 0, 0, 0);
	/* held items first, then the local ring's, in one burst */
	w->pending[0] = (void *)9;
	w->pending[1] = (void *)10;
	w->npending = 2;
	assert_int_equal(numaring_dequeue_burst(w, out, 8), 3);
	assert_ptr_equal(out[0], (void *)10);
	assert_ptr_equal(out[2], (void *)5);
	expect_paths(w, 3, 1, 2, 0, 0, 2, 0);
	/* an enqueue in between changes nothing */
	assert_int_equal(numaring_enqueue(w, (void *)6), 0);
	expect_paths(w, 3, 1, 2, 0, 0, 2, 0);
	assert_int_equal(numaring_dequeue(w, &one), 0);
	assert_ptr_equal(one, (void *)6);
	/* n that this dequeue cannot have returned: refused, out untouched */
	memset(&p, 0xa5, sizeof p);
	assert_int_equal(numaring_dequeue_paths(w, 5, &p), -EINVAL);
	assert_int_equal(p.count[NUMARING_PATH_LOCAL], 0xa5a5a5a5u);
	/* an empty dequeue, then a local one: local */
	assert_int_equal(numaring_dequeue(w, &one), -ENOENT);
	assert_int_equal(numaring_enqueue(w, (void *)11), 0);
	assert_int_equal(numaring_dequeue(w, &one), 0);
	expect_paths(w, 1, 1, 0, 0, 0, 0, 0);
	/* a single dequeue of a held item */
	w->pending[0] = (void *)12;
	w->npending = 1;
	assert_int_equal(numaring_enqueue(w, (void *)13), 0); /* held goes back first */
	w->pending[0] = (void *)14;
	w->npending = 1;
	assert_int_equal(numaring_dequeue(w, &one), 0);
	assert_ptr_equal(one, (void *)14);
	expect_paths(w, 1, 0, 0, 0, 0, 1, 0);
	/* ... and the local ones after it, over two dequeues */
	assert_int_equal(numaring_dequeue(w, &one), 0);
	expect_paths(w, 1, 1, 0, 0, 0, 0, 0);
	assert_int_equal(numaring_dequeue_burst(w, out, 8), 1);
	expect_paths(w, 1, 1, 0, 0, 0, 0, 0);
	assert_int_equal(numaring_dequeue_burst(w, out, 8), 0);

	/* orphans: left with the queue by a worker that detached when every
	 * ring was full; they come out as held */
	struct numaring_worker *a = numaring_worker_attach(q);
	a->pending[0] = (void *)21;
	a->pending[1] = (void *)22;
	a->npending = 2;
	unsigned filled = 0;
	while (numaring_enqueue(w, (void *)(uintptr_t)(100 + filled)) == 0)
		filled++;
	numaring_worker_detach(a);
	assert_int_equal(atomic_load(&q->orphan_count), 2);
	unsigned local = 0, held = 0;
	for (;;) {
		unsigned got = numaring_dequeue_burst(w, out, 3);
		if (got == 0)
			break;
		assert_int_equal(numaring_dequeue_paths(w, got, &p), 0);
		assert_int_equal(p.count[NUMARING_PATH_LOCAL] + p.count[NUMARING_PATH_TRANSFER] +
					 p.count[NUMARING_PATH_HELD],
				 got);
		for (unsigned i = 0; i < p.count[NUMARING_PATH_HELD]; i++) {
			uintptr_t v = (uintptr_t)out[p.first[NUMARING_PATH_HELD] + i];
			assert_true(v == 21 || v == 22);
		}
		local += p.count[NUMARING_PATH_LOCAL];
		held += p.count[NUMARING_PATH_HELD];
	}
	assert_int_equal(local, filled);
	assert_int_equal(held, 2);
	numaring_worker_detach(w);
	numaring_destroy(q);
}

/* On two emulated nodes: a dequeue on an empty node takes a batch from the
 * other (transfer: the items it hands out at once; the rest of the batch
 * then comes out of the local ring), single and burst; a burst that empties
 * the other node and then finds orphans: transfer first, then held. */
static void dequeue_paths_transfer(void **state)
{
	(void)state;
	if (nr_test_ncpus() < 2)
		skip();
	struct numaring *q = nr_test_create(8, 4, NUMARING_LOOKUP_TABLE, NUMARING_GATE_PERWORKER,
					    NUMARING_BACKOFF_NONE, topo2);
	void *out[16], *one;
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	struct numaring_worker *prod = numaring_worker_attach(q);
	for (uintptr_t i = 1; i <= 6; i++)
		assert_int_equal(numaring_enqueue(prod, (void *)i), 0);
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	struct numaring_worker *cons = numaring_worker_attach(q);
	assert_int_equal(numaring_worker_node(cons), 1);
	/* single: one of the batch of 4 at once, three into the local ring */
	assert_int_equal(numaring_dequeue(cons, &one), 0);
	expect_paths(cons, 1, 0, 0, 1, 0, 0, 0);
	assert_int_equal(numaring_dequeue_burst(cons, out, 8), 3);
	expect_paths(cons, 3, 3, 0, 0, 0, 0, 0);
	/* burst: the other node's last two, all handed out */
	assert_int_equal(numaring_dequeue_burst(cons, out, 8), 2);
	expect_paths(cons, 2, 0, 0, 2, 0, 0, 0);
	assert_int_equal(numaring_dequeue_burst(cons, out, 8), 0);

	/* transfer, then orphans, in one burst: fill every ring, leave two
	 * orphans, empty node 1's ring, and leave node 0 two items */
	assert_int_equal(nr_test_pin(nr_test_cpu(0)), 0);
	struct numaring_worker *a = numaring_worker_attach(q);
	a->pending[0] = (void *)31;
	a->pending[1] = (void *)32;
	a->npending = 2;
	unsigned filled = 0;
	while (numaring_enqueue(prod, (void *)(uintptr_t)(100 + filled)) == 0)
		filled++;
	assert_int_equal(filled, 16);
	numaring_worker_detach(a);
	assert_int_equal(atomic_load(&q->orphan_count), 2);
	assert_int_equal(numaring_dequeue_burst(prod, out, 6), 6); /* node 0: 8 -> 2 */
	assert_int_equal(nr_test_pin(nr_test_cpu(1)), 0);
	assert_int_equal(numaring_dequeue_burst(cons, out, 16), 8); /* node 1: all local */
	expect_paths(cons, 8, 8, 0, 0, 0, 0, 0);
	assert_int_equal(numaring_dequeue_burst(cons, out, 16), 4);
	expect_paths(cons, 4, 0, 0, 2, 0, 2, 2);
	assert_true((uintptr_t)out[0] >= 100 && (uintptr_t)out[1] >= 100);
	assert_true(((uintptr_t)out[2] == 31 && (uintptr_t)out[3] == 32) ||
		    ((uintptr_t)out[2] == 32 && (uintptr_t)out[3] == 31));
	numaring_worker_detach(cons);
	numaring_worker_detach(prod);
	numaring_destroy(q);
}

/* ---- allocation failure ------------------------------------------------ */

static int fail_at, alloc_calls;
static int fail_nth(size_t size)
{
	(void)size;
	return ++alloc_calls == fail_at;
}

static void allocation_failure_returns_enomem(void **state)
{
	(void)state;
	struct numaring_config cfg;
	struct numaring_lab lab;
	numaring_config_init(&cfg);
	numaring_lab_init(&lab);
	cfg.topology = topo3; /* several rings: fail each one in turn */
	int failures = 0;
	nr_test_unpin();
	for (fail_at = 1; fail_at < 50; fail_at++) {
		alloc_calls = 0;
		nr_fault_alloc = fail_nth;
		errno = 0;
		struct numaring *q = numaring_lab_create(&cfg, &lab);
		struct numaring_worker *w = q ? numaring_worker_attach(q) : NULL;
		nr_fault_alloc = NULL;
		if (alloc_calls < fail_at) { /* every allocation done: success */
			assert_non_null(q);
			assert_non_null(w);
			numaring_worker_detach(w);
			numaring_destroy(q);
			break;
		}
		failures++;
		assert_int_equal(errno, ENOMEM);
		assert_non_null(strstr(numaring_last_error(), "out of memory"));
		if (q)
			numaring_destroy(q); /* attach failed; the queue itself is fine */
	}
	assert_true(failures >= 4); /* topology, queue, gates, rings, worker... */
	print_message("allocation failure injected at each of the %d allocations of create + "
		      "attach: ENOMEM every time\n", failures);
}

/* The flat ring at every allowed placement moves items in order, wrapping
 * around (the ring may start in the page before its cells: the mapping must
 * hold it); a placement that is not a multiple of 128 below the page size,
 * or a bad capacity, is refused with EINVAL. */
static void flat_placements(void **state)
{
	static const size_t ok[] = {0, 128, 256, 384, 512, 3968};
	static const size_t bad[] = {64, 100, 4096, 1 << 20};
	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct numaring_flat *f = numaring_flat_create_placed(8, ok[i]);
		assert_non_null(f);
		struct numaring_flat_handle *h = numaring_flat_attach(f);
		assert_non_null(h);
		void *in[5], *out[5];
		uintptr_t next = 1, want = 1;
		for (int round = 0; round < 10; round++) { /* 50 items through 8 cells */
			for (int k = 0; k < 5; k++)
				in[k] = (void *)next++;
			assert_int_equal(numaring_flat_enqueue_burst(h, in, 5), 5);
			assert_int_equal(numaring_flat_dequeue_burst(h, out, 5), 5);
			for (int k = 0; k < 5; k++)
				assert_int_equal((uintptr_t)out[k], want++);
		}
		numaring_flat_detach(h);
		numaring_flat_destroy(f);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		assert_null(numaring_flat_create_placed(8, bad[i]));
		assert_int_equal(errno, EINVAL);
	}
	errno = 0;
	assert_null(numaring_flat_create_placed(6, 128));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	nr_test_allowed();
	nr_test_topology(topo2, sizeof topo2, 2, 0);
	nr_test_topology(topo3, sizeof topo3, 2, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_create_anywhere),
		cmocka_unit_test(sized_structs),
		cmocka_unit_test(spin_lengths_checked_and_in_force),
		cmocka_unit_test(stats_add_sized_leaves_the_rest),
		cmocka_unit_test(backoff_counts_and_samples),
		cmocka_unit_test(invalid_configs_refused),
		cmocka_unit_test(allowed_cpu_not_named_refused),
		cmocka_unit_test(environment_topology_used_and_checked),
		cmocka_unit_test(names_round_trip),
		cmocka_unit_test(cpulist_parser),
		cmocka_unit_test(topology_parser),
		cmocka_unit_test(fifo_full_empty_null_on_one_node),
		cmocka_unit_test(bursts_partial_and_in_order),
		cmocka_unit_test(full_local_ring_moves_a_batch),
		cmocka_unit_test(linger_takes_full_batches_and_strands_nothing),
		cmocka_unit_test(nearest_node_first),
		cmocka_unit_test(every_lookup_routes_to_the_cpus_node),
		cmocka_unit_test(rseq_and_rdpid_report_what_is_in_force),
		cmocka_unit_test(held_items_survive_detach_when_all_full),
		cmocka_unit_test(held_items_come_back_first),
		cmocka_unit_test(dequeue_paths_local_and_held),
		cmocka_unit_test(dequeue_paths_transfer),
		cmocka_unit_test(allocation_failure_returns_enomem),
		cmocka_unit_test(flat_placements),
	};
	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
