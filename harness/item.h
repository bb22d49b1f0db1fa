/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * item.h - what travels through the queue under test, and how the consumer
 * accounts for it.
 *
 * Two item modes (--item):
 *
 *   inline   the item is a pointer-sized value that carries everything the
 *            consumer needs, so no memory is touched per item beyond the
 *            queue's own lines:
 *
 *              bit 63      timed: the item's send time is kept (see below)
 *              bits 48..62 the producer (0..32767)
 *              bits 0..47  the producer's sequence number (mod 2^48), on
 *                          every item, timed or not: the consumer checks the
 *                          order of each producer's items on every item
 *
 *            Every `sample`-th item of a producer (sequence % sample == 0) is
 *            timed. Its send time travels beside it, not in it: in open loop
 *            it is the item's intended send time, t0 + sequence x interval
 *            (the producer's t0, published before its first item); in closed
 *            loop the producer reads the clock once for the operation that
 *            carries it and stores it in its stamp ring (struct hb_producer:
 *            slot sequence / sample mod the ring's size, tagged with the
 *            lap, so that a slot overwritten before the consumer read it is
 *            recognised and the sample dropped, never misread); the
 *            consumer reads the clock once per dequeue that returned a timed
 *            item. The other items are never timed, so the clock (a read
 *            can cost as much as a whole hand-over: the probe's clock row
 *            measures it) stays off most items.
 *
 *   message  the item is a pointer to a struct hb_msg of the producer's pool
 *            (the realistic payload case): the message holds the same value
 *            as an inline item, and a state word (1: in flight) that the
 *            consumer checks and clears, which names a duplicate delivered
 *            to one consumer, or to two one after the other (two at the same
 *            moment: the counts catch it). The message's line travels to the
 *            consumer and back per item.
 *
 * Order (both modes): each consumer keeps, per producer, the next sequence
 * it expects (one past the highest it has seen); an item below it is an
 * inversion (counted, with the step back from the highest seen). A queue
 * that keeps each producer's order (every "fifo" and "per-producer" queue
 * of queue.h: one consumer's successive dequeues see one producer's items
 * in the order they went in) never shows one; the run fails where the
 * queue's stated guarantee says it should not (bench.c).
 *
 * Verification (both modes): each producer publishes how many items it
 * sent (its values are a function of the count: sequences 0..sent-1, the
 * multiples of the sample timed); each consumer keeps, per producer named
 * in the value, a count and a checksum of what it received. After the run,
 * for every producer, the counts and checksums summed over the consumers
 * must equal the producer's.
 *
 * The checksum telescopes. Item s of producer p adds
 *
 *     hb_item_check(p, s) = H(p, s + 1) - H(p, s)    (mod 2^64)
 *
 * where H (hb_item_hash) is a bijection of the untimed value (splitmix64's
 * finalizer). So a run of consecutive sequences a..b-1 adds H(p, b) - H(p, a),
 * whatever its length: a consumer that receives one producer's items in
 * unbroken order (every item of 1P1C, and the runs of a burst) keeps the
 * run's two ends and does no arithmetic per item, and the main thread's
 * expected checksum is H(p, sent) - H(p, 0). A consumer checks each item
 * against the run (is it the next sequence of the same producer?), which is
 * also the order check: one compare per item does the count, the checksum
 * and the order together (workers_pvt.h, take). Then:
 *   - a lost or duplicated item changes the count: always caught;
 *   - one value changed into another (corruption, or an item attributed to
 *     the wrong producer) moves that producer's checksum by the difference
 *     of two pseudo-random words: caught but for a chance of about 2^-64;
 *     a producer field outside 0..producers-1 is counted as bad; a timed
 *     bit where the sequence says otherwise (or none where it says timed)
 *     adds HB_ITEM_TIMED_WRONG to the checksum, so it is caught too;
 *   - several errors that keep every count equal escape only if their
 *     words cancel exactly in the sum: about 2^-64 for unrelated errors.
 */
#ifndef HB_ITEM_H
#define HB_ITEM_H

#include <stdatomic.h>
#include <stdint.h>

enum hb_item_kind { HB_ITEM_INLINE, HB_ITEM_MESSAGE, HB_ITEM_COUNT_ };

#define HB_ITEM_TIMED (UINT64_C(1) << 63)
#define HB_ITEM_PRODUCER_SHIFT 48
#define HB_ITEM_PRODUCER_MASK UINT64_C(0x7fff)
#define HB_ITEM_LOW_MASK ((UINT64_C(1) << 48) - 1)
#define HB_ITEM_MAX_PRODUCERS 32768u

/* An untimed value: producer p, sequence seq. */
static inline uint64_t hb_item_untimed(uint64_t p, uint64_t seq)
{
	return (p << HB_ITEM_PRODUCER_SHIFT) | (seq & HB_ITEM_LOW_MASK);
}

/* A timed value: producer p, sequence seq (its send time is kept beside it). */
static inline uint64_t hb_item_timed(uint64_t p, uint64_t seq)
{
	return HB_ITEM_TIMED | hb_item_untimed(p, seq);
}

/* Producer p's value of sequence seq in a run that times one item in
 * sample_mask + 1: what it sends, and what the main thread sums. */
static inline uint64_t hb_item_value(uint64_t p, uint64_t seq, uint64_t sample_mask)
{
	return (seq & sample_mask) == 0 ? hb_item_timed(p, seq) : hb_item_untimed(p, seq);
}

static inline unsigned hb_item_producer(uint64_t v)
{
	return (unsigned)((v >> HB_ITEM_PRODUCER_SHIFT) & HB_ITEM_PRODUCER_MASK);
}

static inline uint64_t hb_item_seq(uint64_t v)
{
	return v & HB_ITEM_LOW_MASK;
}

/* A stamp ring's slot (closed loop): the lap's tag in the top 16 bits, the
 * send time's low 48 bits below. */
static inline uint64_t hb_stamp(uint64_t tag, uint64_t ticks)
{
	return (tag << 48) | (ticks & HB_ITEM_LOW_MASK);
}

static inline unsigned hb_stamp_tag(uint64_t stamp)
{
	return (unsigned)(stamp >> 48);
}

/* The full time of a stamp (or of any value whose low 48 bits are a time)
 * read at `now` (ticks): the field holds the low 48 bits, and it was taken
 * less than 2^48 ticks ago. */
static inline uint64_t hb_item_send_time(uint64_t v, uint64_t now)
{
	return now - ((now - v) & HB_ITEM_LOW_MASK);
}

/* H of item.h's checksum: splitmix64's finalizer of the untimed value of
 * producer p, sequence seq (mod 2^48, so that the sum telescopes across a
 * wrap too): a bijection (each xor-shift and each multiplication by an odd
 * constant is invertible), its words spread over all 64 bits. */
static inline uint64_t hb_item_hash(uint64_t p, uint64_t seq)
{
	uint64_t x = hb_item_untimed(p, seq);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* What the run of sequences a..b-1 of producer p adds to the checksum
 * (0 for an empty run, a == b). */
static inline uint64_t hb_item_check_run(uint64_t p, uint64_t a, uint64_t b)
{
	return hb_item_hash(p, b) - hb_item_hash(p, a);
}

/* What one item, sequence seq of producer p, adds to the checksum. */
static inline uint64_t hb_item_check(uint64_t p, uint64_t seq)
{
	return hb_item_check_run(p, seq, seq + 1);
}

/* Added to the checksum for an item whose timed bit the sequence does not
 * call for (or that lacks it): any non-zero word makes the sum differ. */
#define HB_ITEM_TIMED_WRONG UINT64_C(0x5851f42d4c957f2d)

/* Whether sequence seq is timed in a run with sample mask sample_mask. */
static inline int hb_item_due_timed(uint64_t seq, uint64_t sample_mask)
{
	return (seq & sample_mask) == 0;
}

/* One message of a producer's pool (message mode). */
struct hb_msg {
	uint64_t value;         /* the inline value this message stands for */
	_Atomic uint32_t state; /* 1: in flight, 0: free (released by its consumer) */
	uint32_t pad_;
};

/* What a consumer counted for one producer: the items folded in (count,
 * sum) and the open run [run, next), which is not yet in them (so that a
 * run of any length costs its ends only). hb_tally_count and hb_tally_sum
 * read the two with the open run folded in. */
struct hb_tally {
	uint64_t count;
	uint64_t sum;  /* of hb_item_check, mod 2^64 */
	uint64_t next; /* one past the highest sequence seen: the order check */
	uint64_t run;  /* the first sequence of the open run (== next: none) */
};

static inline uint64_t hb_tally_count(const struct hb_tally *t)
{
	return t->count + (t->next - t->run);
}

static inline uint64_t hb_tally_sum(const struct hb_tally *t, uint64_t p)
{
	return t->sum + hb_item_check_run(p, t->run, t->next);
}

/* Names of enum hb_item_kind, parsed and printed through one table. */
const char *hb_item_name(enum hb_item_kind k);
int hb_item_parse(const char *s, enum hb_item_kind *out);

#endif /* HB_ITEM_H */
