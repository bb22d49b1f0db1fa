/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * item_sum.c - the called widths of a consumer's account of a burst
 * (item_sum.h); the default, inline, is compiled into the loops.
 */
#include "item_sum.h"

#include <string.h>

#include "item.h"

_Static_assert(sizeof(void *) == sizeof(uint64_t), "inline items are 64-bit values in pointers");

static void sum_scalar(void *const *values, unsigned n, struct hb_item_sums *s)
{
	uint64_t off = 0, base = n ? hb_item_run_base((uint64_t)(uintptr_t)values[0]) : 0;
	for (unsigned i = 0; i < n; i++)
		off |= (uint64_t)(uintptr_t)values[i] ^ (base + i);
	s->off = off;
}

static void sum_vector(void *const *values, unsigned n, struct hb_item_sums *s)
{
	HB_ITEM_SUMS_BODY(16, values, n, s);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_BUILD 1
__attribute__((target("avx2"))) static void sum_avx2(void *const *values, unsigned n,
						     struct hb_item_sums *s)
{
	HB_ITEM_SUMS_BODY(32, values, n, s);
}
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
	return a == HB_ACCOUNT_AUTO ? HB_ACCOUNT_INLINE : a;
}

int hb_accounting_available(enum hb_accounting a)
{
	return (unsigned)a < HB_ACCOUNT_COUNT_ && (a != HB_ACCOUNT_AVX2 || cpu_has_avx2());
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
	default: /* inline: the loops' own pass */
		return NULL;
	}
}

static const char *const accounting_names[HB_ACCOUNT_COUNT_] = {
	[HB_ACCOUNT_AUTO] = "auto",
	[HB_ACCOUNT_SCALAR] = "scalar",
	[HB_ACCOUNT_VECTOR] = "vector",
	[HB_ACCOUNT_AVX2] = "avx2",
	[HB_ACCOUNT_INLINE] = "inline",
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
