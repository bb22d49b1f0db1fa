/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hq_mem.hpp - the harness's allocator of queue memory (hq_mem.h) for the
 * C++ shims: a queue object made in it (hq_make, hq_unmake) and a standard
 * allocator over it (hq_node_allocator), so that --queue-mem places what a
 * C++ queue allocates and the run counts it. Under first-touch both make
 * the calls the shims made before (malloc, or an aligned allocation where
 * the type asks for more than malloc's 16 bytes), in the same order.
 */
#ifndef HQ_MEM_HPP
#define HQ_MEM_HPP

#include <cstddef>
#include <new>
#include <utility>

#include "hq_mem.h"

/* alignof(T) for hq_node_alloc: 0 (malloc's) up to 16 */
template <class T> constexpr size_t hq_align_of()
{
	return alignof(T) > 16 ? alignof(T) : 0;
}

/* A T made with args in the allocator's memory; nullptr when out of memory
 * or when its constructor throws (nothing may throw through the C callers). */
template <class T, class... A> T *hq_make(A &&...args) noexcept
{
	void *p = hq_node_alloc(sizeof(T), hq_align_of<T>());
	if (!p)
		return nullptr;
	try {
		return new (p) T(std::forward<A>(args)...);
	} catch (...) {
		hq_node_free(p);
		return nullptr;
	}
}

template <class T> void hq_unmake(T *t) noexcept
{
	if (!t)
		return;
	t->~T();
	hq_node_free(t);
}

/* A standard allocator over hq_node_alloc (Boost.Lockfree's nodes). */
template <class T> struct hq_node_allocator {
	using value_type = T;
	template <class U> struct rebind {
		using other = hq_node_allocator<U>;
	};
	hq_node_allocator() noexcept = default;
	template <class U> hq_node_allocator(const hq_node_allocator<U> &) noexcept {}
	T *allocate(std::size_t n)
	{
		void *p = hq_node_alloc(n * sizeof(T), hq_align_of<T>());
		if (!p)
			throw std::bad_alloc();
		return static_cast<T *>(p);
	}
	void deallocate(T *p, std::size_t) noexcept
	{
		hq_node_free(p);
	}
};

template <class T, class U>
bool operator==(const hq_node_allocator<T> &, const hq_node_allocator<U> &) noexcept
{
	return true;
}

template <class T, class U>
bool operator!=(const hq_node_allocator<T> &, const hq_node_allocator<U> &) noexcept
{
	return false;
}

#endif /* HQ_MEM_HPP */
