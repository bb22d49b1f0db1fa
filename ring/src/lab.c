/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lab.c - the parts of numaring_lab.h that are not the queue itself: the
 * flat ring (the per-node ring used alone) and the look-up timing loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nr_backoff.h"
#include "nr_lookup.h"
#include "nr_ring.h"
#include "numaring_lab.h"

struct numaring_flat {
	struct nr_ring *r;
	void *map;    /* the mapping that holds r (r is `map` or a little past it) */
	size_t bytes; /* its length */
};

struct numaring_flat_handle {
	/* its own line pair: failures is written on every lost race */
	_Alignas(NR_DESTRUCTIVE) struct nr_ring *r;
	struct nr_backoff bo;
};

static void *aligned(size_t size)
{
	void *p = NULL;
	return posix_memalign(&p, NR_DESTRUCTIVE, size) == 0 ? p : NULL;
}

/*
 * The ring lives in its own mapping, page-aligned as each node's ring of
 * numaring_create (lifecycle.c, create_allocate): numaring against flat then
 * compares the same ring at the same place in memory. From the heap, where
 * it used to come from, its cells landed wherever the allocator put them,
 * and with bursts of 32 the ring's speed depends on where its cells start
 * modulo 512 bytes on the development machine (README, make
 * bench-placement): the comparison measured placement as much as routing.
 */
struct numaring_flat *numaring_flat_create(size_t capacity)
{
	return numaring_flat_create_placed(capacity, offsetof(struct nr_ring, cells));
}

struct numaring_flat *numaring_flat_create_placed(size_t capacity, size_t cells_at)
{
	struct numaring_flat *f;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), header = offsetof(struct nr_ring, cells);
	size_t start;
	void *p;
	if (capacity < 2 || (capacity & (capacity - 1)) != 0 || capacity > ((size_t)1 << 40) ||
	    cells_at % NR_DESTRUCTIVE != 0 || cells_at >= page) {
		errno = EINVAL;
		return NULL;
	}
	if (!(f = malloc(sizeof *f))) {
		errno = ENOMEM;
		return NULL;
	}
	/* the ring starts where its cells then begin cells_at bytes into a page
	 * (its header is a multiple of NR_DESTRUCTIVE, so its lines stay apart) */
	start = (cells_at + page - header % page) % page;
	f->bytes = (start + nr_ring_bytes(capacity) + page - 1) / page * page;
	p = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	f->map = p;
	f->r = (struct nr_ring *)((char *)p + start);
	nr_ring_init(f->r, capacity);
	return f;
}

void numaring_flat_destroy(struct numaring_flat *f)
{
	if (!f)
		return;
	munmap(f->map, f->bytes);
	free(f);
}

const void *numaring_flat_ring(const struct numaring_flat *f, size_t *len)
{
	if (len)
		*len = f->bytes;
	return f->map;
}

struct numaring_flat_handle *numaring_flat_attach(struct numaring_flat *f)
{
	struct numaring_flat_handle *h = aligned(sizeof *h);
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->r = f->r;
	/* NumaRing's default backoff: flat measures its ring alone */
	nr_backoff_init(&h->bo, NUMARING_BACKOFF_DEFAULT, NUMARING_PAUSE_SPIN, NUMARING_EXP_MAX_SPIN,
			0, (uint32_t)(uintptr_t)h);
	return h;
}

void numaring_flat_detach(struct numaring_flat_handle *h)
{
	free(h);
}

int numaring_flat_enqueue(struct numaring_flat_handle *h, void *item)
{
	return nr_ring_enqueue(h->r, item, &h->bo) ? 0 : -ENOBUFS;
}

int numaring_flat_dequeue(struct numaring_flat_handle *h, void **item)
{
	return nr_ring_dequeue(h->r, item, &h->bo) ? 0 : -ENOENT;
}

unsigned numaring_flat_enqueue_burst(struct numaring_flat_handle *h, void *const *items,
				     unsigned n)
{
	return nr_ring_enqueue_burst(h->r, items, n, &h->bo);
}

unsigned numaring_flat_dequeue_burst(struct numaring_flat_handle *h, void **items, unsigned n)
{
	return nr_ring_dequeue_burst(h->r, items, n, &h->bo);
}

uint64_t numaring_flat_failures(const struct numaring_flat_handle *h)
{
	return h->bo.failures;
}

uint64_t numaring_lab_lookup_run(enum numaring_lookup mode, unsigned n, const int *cpu_table,
				 unsigned table_len)
{
	uint64_t s = 0;
	switch (mode) {
	case NUMARING_LOOKUP_LIBNUMA:
		for (unsigned i = 0; i < n; i++)
			s += (uint64_t)numa_node_of_cpu(sched_getcpu());
		break;
	case NUMARING_LOOKUP_SYSCALL:
		for (unsigned i = 0; i < n; i++) {
			unsigned cpu = 0, node = 0;
			nr_getcpu_syscall(&cpu, &node);
			s += node;
		}
		break;
	case NUMARING_LOOKUP_TABLE:
		for (unsigned i = 0; i < n; i++) {
			unsigned c = (unsigned)sched_getcpu();
			s += c < table_len ? (uint64_t)cpu_table[c] : 0;
		}
		break;
	case NUMARING_LOOKUP_RSEQ:
		for (unsigned i = 0; i < n; i++)
			s += nr_rseq_node();
		break;
	case NUMARING_LOOKUP_RDPID:
		for (unsigned i = 0; i < n; i++)
			s += nr_rdpid() >> 12;
		break;
	default:
		break;
	}
	return s;
}
