/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_fastpath.c - no allocation and no system call on the fast path of
 * the lock-free modes (gate PERWORKER; lookup NONE, CACHED, TABLE, RSEQ,
 * RDPID).
 *
 * Allocations: this binary interposes malloc and friends and counts calls
 * made while a burst of operations runs. System calls: a child process runs
 * the burst under a seccomp filter that traps every system call (SIGSYS,
 * the call is not made) and reports how many it saw. Both need the plain
 * build: sanitizer runtimes own malloc and make system calls of their own.
 */
#include "nr_test.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define OPS 20000

static const enum numaring_lookup lockfree_lookups[] = {
	NUMARING_LOOKUP_NONE, NUMARING_LOOKUP_CACHED, NUMARING_LOOKUP_TABLE,
	NUMARING_LOOKUP_RSEQ, NUMARING_LOOKUP_RDPID,
};

/* A burst of fast-path operations: local enqueue/dequeue, bursts, and
 * dequeues of an empty one-node queue. */
static int burst_of_operations(struct numaring_worker *w)
{
	void *items[16], *out = NULL;
	int errors = 0;
	for (uintptr_t i = 0; i < OPS; i++) {
		errors += numaring_enqueue(w, (void *)i) != 0;
		errors += numaring_dequeue(w, &out) != 0;
		errors += out != (void *)i;
	}
	for (int i = 0; i < 16; i++)
		items[i] = (void *)(uintptr_t)i;
	for (int k = 0; k < OPS / 16; k++) {
		errors += numaring_enqueue_burst(w, items, 16) != 16;
		errors += numaring_dequeue_burst(w, items, 16) != 16;
	}
	return errors;
}

#if !NR_UNDER_SANITIZER

/* ---- counting allocations ---------------------------------------------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* volatile: gcc knows malloc as a builtin that reads no user memory and
 * would drop the stores around it */
static __thread volatile int counting;
static _Atomic long allocations;

void *malloc(size_t n)
{
	if (counting)
		atomic_fetch_add(&allocations, 1);
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (counting)
		atomic_fetch_add(&allocations, 1);
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		atomic_fetch_add(&allocations, 1);
	return __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (counting)
		atomic_fetch_add(&allocations, 1);
	void *p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (counting)
		atomic_fetch_add(&allocations, 1);
	return __libc_memalign(align, n);
}

void free(void *p)
{
	if (counting && p)
		atomic_fetch_add(&allocations, 1);
	__libc_free(p);
}

static void no_allocation_on_fast_path(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof lockfree_lookups / sizeof lockfree_lookups[0]; m++) {
		struct numaring *q = nr_test_create(1024, 32, lockfree_lookups[m],
						    NUMARING_GATE_PERWORKER,
						    NUMARING_BACKOFF_NONE, NULL);
		struct numaring_worker *w = numaring_worker_attach(q);
		/* the allocator itself is live: make sure the counter works */
		counting = 1;
		void *volatile probe = malloc(8); /* volatile: keep the pair */
		free(probe);
		counting = 0;
		assert_int_equal(atomic_exchange(&allocations, 0), 2);
		counting = 1;
		int errors = burst_of_operations(w);
		counting = 0;
		assert_int_equal(errors, 0);
		long n = atomic_exchange(&allocations, 0);
		if (n != 0)
			fail_msg("lookup %s: %ld allocations during %d operations",
				 numaring_lookup_name(lockfree_lookups[m]), n, 4 * OPS);
		numaring_worker_detach(w);
		numaring_destroy(q);
	}
}

/* ---- trapping system calls ----------------------------------------------- */

struct trap_report {
	long trapped;
	long last_nr;
	long getcpu_seen; /* traps of getcpu (the fault build also yields) */
	int errors;
};

static struct trap_report *report;

static void on_sigsys(int sig, siginfo_t *info, void *ctx)
{
	(void)sig;
	(void)ctx;
	report->trapped++;
	report->last_nr = info->si_syscall;
	if (info->si_syscall == SYS_getcpu)
		report->getcpu_seen++;
}

static int install_trap_all_filter(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void no_system_call_on_fast_path(void **state)
{
	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
#ifdef NR_FAULT_INJECT
	print_message("fault-injection build: its fault points yield on purpose\n");
	skip();
#endif
	report = mmap(NULL, sizeof *report, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	assert_true(report != MAP_FAILED);
	for (size_t m = 0; m < sizeof lockfree_lookups / sizeof lockfree_lookups[0]; m++) {
		memset(report, 0, sizeof *report);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct numaring *q = nr_test_create(1024, 32, lockfree_lookups[m],
							    NUMARING_GATE_PERWORKER,
							    NUMARING_BACKOFF_NONE, NULL);
			struct numaring_worker *w = numaring_worker_attach(q);
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_sigaction = on_sigsys;
			sa.sa_flags = SA_SIGINFO;
			sigaction(SIGSYS, &sa, NULL);
			report->errors = burst_of_operations(w); /* warm up, untrapped */
			if (install_trap_all_filter() < 0)
				syscall(SYS_exit_group, 3);
			report->trapped = 0;
			report->errors += burst_of_operations(w);
			syscall(SYS_exit_group, 0);
		}
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("lookup %s: child ended with status %#x (3: seccomp refused)",
				 numaring_lookup_name(lockfree_lookups[m]), status);
		assert_int_equal(report->errors, 0);
		if (report->trapped != 0)
			fail_msg("lookup %s: %ld system calls on the fast path (last: %ld)",
				 numaring_lookup_name(lockfree_lookups[m]), report->trapped,
				 report->last_nr);
	}
	munmap(report, sizeof *report);
}

/* The trap must catch a system call, or the test above proves nothing. */
static void trap_catches_a_system_call(void **state)
{
	(void)state;
	report = mmap(NULL, sizeof *report, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	assert_true(report != MAP_FAILED);
	memset(report, 0, sizeof *report);
	pid_t pid = fork();
	if (pid == 0) {
		struct numaring *q = nr_test_create(1024, 32, NUMARING_LOOKUP_SYSCALL,
						    NUMARING_GATE_PERWORKER,
						    NUMARING_BACKOFF_NONE, NULL);
		struct numaring_worker *w = numaring_worker_attach(q);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSYS, &sa, NULL);
		if (install_trap_all_filter() < 0)
			syscall(SYS_exit_group, 3);
		numaring_enqueue(w, NULL); /* lookup SYSCALL: one getcpu */
		syscall(SYS_exit_group, 0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(report->trapped >= 1);
	assert_true(report->getcpu_seen >= 1);
	munmap(report, sizeof *report);
}

#else /* NR_UNDER_SANITIZER */

static void no_allocation_on_fast_path(void **state)
{
	(void)state;
	print_message("sanitizer build: the allocation count needs the plain build (make test)\n");
	skip();
}

static void no_system_call_on_fast_path(void **state)
{
	(void)state;
	print_message("sanitizer build: the seccomp trap needs the plain build (make test)\n");
	skip();
}

static void trap_catches_a_system_call(void **state)
{
	(void)state;
	skip();
}

#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_allocation_on_fast_path),
		cmocka_unit_test(trap_catches_a_system_call),
		cmocka_unit_test(no_system_call_on_fast_path),
	};
	return cmocka_run_group_tests_name("fastpath", tests, NULL, NULL);
}
