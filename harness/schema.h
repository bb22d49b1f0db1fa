/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * schema.h - the columns of summary.csv, in order: one table that the
 * header, the row writer (report.c) and `numaring-bench --schema` (which the
 * Python scripts read, through scripts/summary-schema.csv) are all made from.
 *
 * X(name, type, description); type is str, int or float. A cell that does
 * not apply to a run is left empty (lookup for a peer queue, latency for a
 * queue that moves no data), never written as 0.
 */
#ifndef HB_SCHEMA_H
#define HB_SCHEMA_H

#define HB_SUMMARY_COLUMNS(X)                                                                    \
	X(queue, str, "the queue under test (--queue)")                                            \
	X(item, str, "inline: the item is a value; message: a pointer to a message (--item)")     \
	X(sample, int, "every sample-th item of a producer is timed (--sample)")                 \
	X(workload, str, "prodcons: producer threads enqueue, consumer threads dequeue; pairs: every thread enqueues then dequeues; mixed: every thread enqueues or dequeues at random (--workload)") \
	X(threads, int, "threads of the run: producers + consumers (prodcons), --threads (pairs, mixed)") \
	X(producers, int, "producer threads (pairs, mixed: every thread is a producer, so threads)") \
	X(consumers, int, "consumer threads (pairs, mixed: every thread is a consumer, so threads)") \
	X(enqueue_share, float, "mixed: the probability that an operation is an enqueue (--enqueue-share)") \
	X(prefill, int, "mixed: items enqueued before the start (half what the queue holds), verified with the others") \
	X(work_ns, int, "--work: local work between operations, drawn from 0..work_ns ns per operation (prodcons: both sides unless set apart)") \
	X(work_min_ns, int, "the least local work of an operation, ns (--work MIN-MAX: each draw is MIN..the side's bound); 0: draws start at 0") \
	X(producer_work_ns, int, "prodcons: a producer's work after each enqueue operation, 0..producer_work_ns ns") \
	X(consumer_work_ns, int, "prodcons: a consumer's work after each dequeue that brought items, 0..consumer_work_ns ns") \
	X(work_loops_per_ns, float, "the work loop's iterations per ns, calibrated at the start (meta.json's work); empty without work") \
	X(seed, int, "seed of the threads' generators (--seed); empty where the run draws nothing (no mixed, no work)") \
	X(lookup, str, "numaring: node look-up asked for")                                          \
	X(lookup_in_force, str, "numaring: node look-up in use (rseq/rdpid fall back to table)")    \
	X(recheck, int, "numaring: cached look-up re-checked every recheck operations")             \
	X(gate, str, "numaring: cross-node transfer gate")                                         \
	X(backoff, str, "numaring: backoff after a failed attempt")                                \
	X(linger_us, int, "numaring: consumers wait this long for a full batch (--linger)")        \
	X(pause_spin, int, "numaring: PAUSEs of backoff pause in force (--pause-spin, else the production constant)") \
	X(exp_cap, int, "numaring: backoff exp's cap in PAUSEs in force (--exp-cap, else the production constant)") \
	X(batch, int, "numaring: items per cross-node transfer; the burst size with bursts")       \
	X(bursts, int, "1: burst operations of batch items where the queue has them")              \
	X(capacity, int, "slots asked (--capacity: the whole queue's; --capacity-per-node: each of numaring's node rings)") \
	X(capacity_scope, str, "queue (--capacity) or node (--capacity-per-node): what capacity counts") \
	X(queue_slots, int, "items the queue held when full: capacity, or less where a queue keeps a slot empty (ck) or numaring's per-ring share was rounded down to a power of two; 0: unbounded") \
	X(pin, str, "thread placement (--pin)")                                                     \
	X(smt, str, "which hardware threads of a core the placement used (--smt: cores, siblings)") \
	X(threads_per_core, int, "most threads pinned to the CPUs of one core (1: a core each); empty if a thread was not pinned") \
	X(smt_shared, int, "1: two threads ran on two hyperthreads of one core; empty if a thread was not pinned") \
	X(queue_mem, str, "where the queue's memory was to go (--queue-mem): first-touch, producers, consumers, interleave or node:N; numaring and sharded place a ring per node themselves (meta.json's queue_memory)") \
	X(queue_pages, str, "the queue's pages per OS node at the end of the measured window, node:pages;... for every node with memory (0:12;1:0): the pages the harness's allocator handed out and the queue's own rings; not placed on emulated nodes; empty where not counted. meta.json's queue_memory says what is left out") \
	X(topology_kind, str, "real or emulated nodes")                                             \
	X(topology, str, "the emulated topology string, or real")                                  \
	X(nodes, int, "nodes of the run's topology")                                                \
	X(rate, float, "open loop: offered items per second; 0 closed loop")                        \
	X(load, float, "open loop: the offered rate as a fraction of capacity_ops_per_s (--load)")  \
	X(capacity_ops_per_s, float, "--load: the capacity, --capacity-ops or the closed-loop capacity run's (per-worker gate)") \
	X(warmup_s, float, "seconds run before measuring")                                          \
	X(ops, int, "what went through in the measured window: items (prodcons) or operations, enqueues + dequeues that succeeded (pairs, mixed); ops_kind says which") \
	X(ops_kind, str, "items or operations: what ops and throughput_ops_per_s count")       \
	X(duration_s, float, "length of the measured window")                                       \
	X(throughput_ops_per_s, float, "ops per second: items through the queue (prodcons; the slower side when nothing travels), or operations that succeeded (pairs, mixed)") \
	X(enqueue_ops_per_s, float, "items per second the producers enqueued")                     \
	X(dequeue_ops_per_s, float, "items per second the consumers dequeued")                     \
	X(harness_ops_per_s, float, "the harness's own ceiling: the null queue, same threads and placement (--calibrate)") \
	X(harness_ns_per_item, float, "thread time per item of the harness alone on its busier side (pairs, mixed: per operation)") \
	X(c2c_one_way_before_ns, float, "one cache line's one-way trip between the first producer's and the first consumer's CPUs (threads 0 and 1 of pairs, mixed), ping-pong just before the measured run; empty where not timed (pingpong.h)") \
	X(c2c_one_way_after_ns, float, "the same just after the measured run: a hypervisor may move vCPUs between physical cores") \
	X(p50_ns, float, "latency percentiles of the timed items, enqueue to dequeue")             \
	X(p90_ns, float, "")                                                                        \
	X(p99_ns, float, "")                                                                        \
	X(p999_ns, float, "")                                                                       \
	X(max_ns, float, "")                                                                        \
	X(mean_ns, float, "")                                                                       \
	X(latency_count, int, "timed items recorded (sent inside the measured window)")           \
	X(latency_local_p50_ns, float, "latency by path (numaring; empty for a queue that cannot say which path an item came by): median of the timed items the ring of the consumer's own node served") \
	X(latency_local_p99_ns, float, "99th percentile of those (local path)")                  \
	X(latency_local_count, int, "timed items of the local path; the local, transfer and held counts add up to latency_count") \
	X(latency_transfer_p50_ns, float, "median of the timed items that a cross-node batch handed to the dequeue that took it (the rest of the batch goes into the local ring: local path)") \
	X(latency_transfer_p99_ns, float, "99th percentile of those (transfer path)")            \
	X(latency_transfer_count, int, "timed items of the transfer path")                       \
	X(latency_held_p50_ns, float, "median of the timed items held off the rings: by the dequeuing worker after one of its transfers found no room, or left by a worker that detached when every ring was full") \
	X(latency_held_p99_ns, float, "99th percentile of those (held path)")                    \
	X(latency_held_count, int, "timed items of the held path")                               \
	X(inflight, float, "items in the queue on average (Little: throughput x mean latency)")   \
	X(enqueued, int, "items sent in the whole run, warm-up (and mixed's prefill) included")    \
	X(dequeued, int, "items received in the whole run")                                        \
	X(local_ops, int, "queue counter: items served by the thread's own node's ring")            \
	X(batches_out, int, "queue counter: transfers to another node")                            \
	X(batches_in, int, "queue counter: transfers from another node")                           \
	X(items_out, int, "queue counter: items moved by batches_out")                             \
	X(items_in, int, "queue counter: items moved by batches_in")                               \
	X(lookups, int, "queue counter: node look-ups")                                            \
	X(node_changes, int, "queue counter: look-ups that found another node")                    \
	X(failed_attempts, int, "queue counter: lost races (a failed CAS, a position taken first); full and empty retries and gate waits have their own columns") \
	X(gate_waits, int, "queue counter: transfers that found the gate held")                    \
	X(gate_backoffs, int, "queue counter: backoffs run between the polls of gate waits")       \
	X(backoff_ns_race, int, "queue counter: time in backoff after lost races, ns (one backoff in 16 timed, scaled)") \
	X(backoff_ns_gate, int, "queue counter: time in backoff inside gate waits, ns (sampled likewise)") \
	X(items_per_transfer, float, "realized batch: (items_in + items_out) / (batches_in + batches_out)") \
	X(failed_per_item, float, "failed attempts per item (whole run): did backoff have anything to do") \
	X(full_retries, int, "enqueues that found the queue full: retried (prodcons) or given up for the next operation (pairs, mixed)") \
	X(empty_polls, int, "dequeues that found the queue empty (pairs, mixed: before the final drain)") \
	X(fairness, float, "fewest / most successful operations of one thread over the whole run (pairs, mixed: its enqueues + dequeues; prodcons: the lower of the producers' and the consumers' ratio)") \
	X(window_waits, int, "producer waits for a free message or in-flight room (pairs, mixed: enqueues given up for want of them)") \
	X(context_switches, float, "--counters: context switches of every producer and consumer thread in the measured window, per item of ops (the items that went through the window); empty when not counted: meta.json's counters says why") \
	X(cpu_migrations, float, "--counters: CPU migrations of those threads in the window, per item of ops") \
	X(cycles, float, "--counters: user-space cycles of those threads in the window, per item of ops (empty without a hardware PMU)") \
	X(instructions, float, "--counters: user-space instructions of those threads in the window, per item of ops") \
	X(llc_misses, float, "--counters: user-space cache misses (PERF_COUNT_HW_CACHE_MISSES, the last level's on Intel) of those threads in the window, per item of ops") \
	X(pin_failures, int, "threads that could not be pinned")                                    \
	X(verify, str, "ok, failed (lost, duplicated or corrupted items, or an order the queue's guarantee rules out), off, count (--strip accounting: totals only), or n/a when nothing travels") \
	X(ordering, str, "the queue's stated order (fifo, per-producer, per-node, k-relaxed, n/a: the manifest's), which the consumers check on every item") \
	X(ordering_enforced, int, "1: an inversion fails the run (fifo, per-producer; per-node where the run has one node with CPUs, so every item goes through one ring); 0: counted only (k-relaxed always); empty when nothing travels") \
	X(inversions_per_million, float, "items that arrived below the highest sequence their consumer had seen from their producer, per million items received (whole run); empty when not checked") \
	X(max_backward_step, int, "the largest such step back, in the producer's sequence numbers (0: none)") \
	X(max_item_age_ns, float, "the oldest timed item's time from its send to its dequeue, whole run, warm-up and drain included") \
	X(stamps_lost, int, "closed loop: timed items whose send time had been overwritten in their producer's stamp ring before their consumer read it (no latency sample)") \
	X(host, str, "host name")                                                                   \
	X(clock, str, "tsc or clock_gettime")

enum hb_column {
#define HB_COL_ENUM(name, type, desc) HB_COL_##name,
	HB_SUMMARY_COLUMNS(HB_COL_ENUM)
#undef HB_COL_ENUM
	HB_COL_COUNT_
};

#endif /* HB_SCHEMA_H */
