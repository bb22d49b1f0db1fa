/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * item_sum.c - the widths of a consumer's account of a burst (item_sum.h).
 */
#include "item_sum.h"

#include <string.h>

#include "item.h"

_Static_assert(sizeof(void *) == sizeof(uint64_t), "inline items are 64-bit values in pointers");

static void sum_scalar(void *const *values, unsigned n, struct hb_item_sums *s)
{
	uint64_t any = 0, all = ~UINT64_C(0), pre = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = (uint64_t)(uintptr_t)values[i];
		any |= v;
		all &= v;
		pre += hb_item_premix(v);
	}
	s->any = any;
	s->all = all;
	s->premix = pre;
}

/* One body for both vector widths: LANES values per step, the rest one by
 * one. The premix (v ^ (v >> 31)) is written out for the vector type: the
 * same operations as hb_item_premix, lane by lane. */
#define SUM_LANES(name, bytes, attr)                                                        \
	attr static void name(void *const *values, unsigned n, struct hb_item_sums *s)      \
	{                                                                                   \
		typedef uint64_t vec __attribute__((vector_size(bytes)));                   \
		enum { LANES = (bytes) / 8 };                                               \
		vec any = {0}, all = ~any, pre = any;                                        \
		unsigned i = 0;                                                             \
		for (; i + LANES <= n; i += LANES) {                                        \
			vec v;                                                              \
			memcpy(&v, &values[i], sizeof v); /* unaligned: any burst start */ \
			any |= v;                                                           \
			all &= v;                                                           \
			pre += v ^ (v >> 31);                                               \
		}                                                                           \
		uint64_t a = 0, l = ~UINT64_C(0), p = 0;                                    \
		for (unsigned j = 0; j < LANES; j++) {                                      \
			a |= any[j];                                                        \
			l &= all[j];                                                        \
			p += pre[j];                                                        \
		}                                                                           \
		for (; i < n; i++) {                                                        \
			uint64_t v = (uint64_t)(uintptr_t)values[i];                        \
			a |= v;                                                             \
			l &= v;                                                             \
			p += hb_item_premix(v);                                             \
		}                                                                           \
		s->any = a;                                                                 \
		s->all = l;                                                                 \
		s->premix = p;                                                              \
	}

SUM_LANES(sum_vector, 16, )

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_BUILD 1
SUM_LANES(sum_avx2, 32, __attribute__((target("avx2"))))
#else
#define HAVE_AVX2_BUILD 0
#endif

static int cpu_has_avx2(void)
{
#if HAVE_AVX2_BUILD
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return 0;
#endif
}

enum hb_accounting hb_accounting_resolve(enum hb_accounting a)
{
	if (a == HB_ACCOUNT_AUTO)
		return cpu_has_avx2() ? HB_ACCOUNT_AVX2 : HB_ACCOUNT_VECTOR;
	return a;
}

hb_item_sum_fn *hb_item_sum_select(enum hb_accounting a)
{
	switch (hb_accounting_resolve(a)) {
	case HB_ACCOUNT_SCALAR:
		return sum_scalar;
	case HB_ACCOUNT_VECTOR:
		return sum_vector;
	case HB_ACCOUNT_AVX2:
#if HAVE_AVX2_BUILD
		return cpu_has_avx2() ? sum_avx2 : NULL;
#else
		return NULL;
#endif
	default:
		return NULL;
	}
}

static const char *const accounting_names[HB_ACCOUNT_COUNT_] = {
	[HB_ACCOUNT_AUTO] = "auto",
	[HB_ACCOUNT_SCALAR] = "scalar",
	[HB_ACCOUNT_VECTOR] = "vector",
	[HB_ACCOUNT_AVX2] = "avx2",
};

const char *hb_accounting_name(enum hb_accounting a)
{
	return (unsigned)a < HB_ACCOUNT_COUNT_ ? accounting_names[a] : "?";
}

int hb_accounting_parse(const char *s, enum hb_accounting *out)
{
	for (int a = 0; a < HB_ACCOUNT_COUNT_; a++)
		if (strcmp(s, accounting_names[a]) == 0) {
			*out = (enum hb_accounting)a;
			return 0;
		}
	return -1;
}
