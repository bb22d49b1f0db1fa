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
	X(sample, int, "every sample-th item of a producer carries a send time (--sample)")       \
	X(producers, int, "producer threads")                                                       \
	X(consumers, int, "consumer threads")                                                       \
	X(lookup, str, "numaring: node look-up asked for")                                          \
	X(lookup_in_force, str, "numaring: node look-up in use (rseq/rdpid fall back to table)")    \
	X(recheck, int, "numaring: cached look-up re-checked every recheck operations")             \
	X(gate, str, "numaring: cross-node transfer gate")                                         \
	X(backoff, str, "numaring: backoff after a failed attempt")                                \
	X(linger_us, int, "numaring: consumers wait this long for a full batch (--linger)")        \
	X(batch, int, "numaring: items per cross-node transfer; the burst size with bursts")       \
	X(bursts, int, "1: burst operations of batch items where the queue has them")              \
	X(capacity, int, "slots (per node ring for numaring)")                                      \
	X(pin, str, "thread placement (--pin)")                                                     \
	X(smt, str, "which hardware threads of a core the placement used (--smt: cores, siblings)") \
	X(threads_per_core, int, "most threads pinned to the CPUs of one core (1: a core each); empty if a thread was not pinned") \
	X(smt_shared, int, "1: two threads ran on two hyperthreads of one core; empty if a thread was not pinned") \
	X(topology_kind, str, "real or emulated nodes")                                             \
	X(topology, str, "the emulated topology string, or real")                                  \
	X(nodes, int, "nodes of the run's topology")                                                \
	X(rate, float, "open loop: offered items per second; 0 closed loop")                        \
	X(load, float, "open loop: the offered rate as a fraction of capacity_ops_per_s (--load)")  \
	X(capacity_ops_per_s, float, "--load: throughput of the closed-loop capacity run (per-worker gate)") \
	X(warmup_s, float, "seconds run before measuring")                                          \
	X(ops, int, "items that went through in the measured window")                              \
	X(duration_s, float, "length of the measured window")                                       \
	X(throughput_ops_per_s, float, "items per second through the queue (the slower side when nothing travels)") \
	X(enqueue_ops_per_s, float, "items per second the producers enqueued")                     \
	X(dequeue_ops_per_s, float, "items per second the consumers dequeued")                     \
	X(harness_ops_per_s, float, "the harness's own ceiling: the null queue, same threads and placement (--calibrate)") \
	X(harness_ns_per_item, float, "thread time per item of the harness alone on its busier side") \
	X(p50_ns, float, "latency percentiles of the timed items, enqueue to dequeue")             \
	X(p90_ns, float, "")                                                                        \
	X(p99_ns, float, "")                                                                        \
	X(p999_ns, float, "")                                                                       \
	X(max_ns, float, "")                                                                        \
	X(mean_ns, float, "")                                                                       \
	X(latency_count, int, "timed items recorded (sent inside the measured window)")           \
	X(inflight, float, "items in the queue on average (Little: throughput x mean latency)")   \
	X(enqueued, int, "items sent in the whole run, warm-up included")                          \
	X(dequeued, int, "items received in the whole run")                                        \
	X(local_ops, int, "queue counter: items served by the thread's own node's ring")            \
	X(batches_out, int, "queue counter: transfers to another node")                            \
	X(batches_in, int, "queue counter: transfers from another node")                           \
	X(items_out, int, "queue counter: items moved by batches_out")                             \
	X(items_in, int, "queue counter: items moved by batches_in")                               \
	X(lookups, int, "queue counter: node look-ups")                                            \
	X(node_changes, int, "queue counter: look-ups that found another node")                    \
	X(failed_attempts, int, "queue counter: lost races and retries")                            \
	X(gate_waits, int, "queue counter: transfers that found the gate held")                    \
	X(items_per_transfer, float, "realized batch: (items_in + items_out) / (batches_in + batches_out)") \
	X(failed_per_item, float, "failed attempts per item (whole run): did backoff have anything to do") \
	X(full_retries, int, "enqueues the harness retried because the queue was full")            \
	X(empty_polls, int, "dequeues that found the queue empty")                                  \
	X(window_waits, int, "producer waits for a free message or in-flight room")                \
	X(context_switches, float, "--counters: context switches of every producer and consumer thread in the measured window, per item of ops (the items that went through the window); empty when not counted: meta.json's counters says why") \
	X(cpu_migrations, float, "--counters: CPU migrations of those threads in the window, per item of ops") \
	X(cycles, float, "--counters: user-space cycles of those threads in the window, per item of ops (empty without a hardware PMU)") \
	X(instructions, float, "--counters: user-space instructions of those threads in the window, per item of ops") \
	X(llc_misses, float, "--counters: user-space cache misses (PERF_COUNT_HW_CACHE_MISSES, the last level's on Intel) of those threads in the window, per item of ops") \
	X(pin_failures, int, "threads that could not be pinned")                                    \
	X(verify, str, "ok, failed, off, or n/a when nothing travels")                             \
	X(host, str, "host name")                                                                   \
	X(clock, str, "tsc or clock_gettime")

enum hb_column {
#define HB_COL_ENUM(name, type, desc) HB_COL_##name,
	HB_SUMMARY_COLUMNS(HB_COL_ENUM)
#undef HB_COL_ENUM
	HB_COL_COUNT_
};

#endif /* HB_SCHEMA_H */
