# SPDX-License-Identifier: BSD-2-Clause
# peers.mk - the peer-queue adapters of the benchmark harness (harness/peers/),
# for the top-level Makefile to `include`. Paths are relative to the
# repository root; registry.c lists every adapter in hq_all[].

# C sources: one adapter per queue, plus the registry.
PEER_C_SRCS := harness/peers/numaring.c harness/peers/flat.c harness/peers/ck.c \
               harness/peers/rte.c harness/peers/moodycamel.c harness/peers/boost.c \
               harness/peers/tbb.c harness/peers/scq.c harness/peers/lcrq.c harness/peers/xenium.c harness/peers/sharded.c \
               harness/peers/urcu.c \
               harness/peers/mutex.c harness/peers/faa.c harness/peers/null.c \
               harness/peers/fault.c harness/peers/registry.c

# C++ sources: the moodycamel, Boost.Lockfree, oneTBB and xenium shims (extern "C");
# build with $(CXX) -std=c++17.
# Under -fsanitize=thread g++ warns (-Wtsan) about moodycamel's and xenium's
# atomic_thread_fence (xenium's hazard pointers fence each protection): add
# -Wno-tsan for these files in TSan builds.
PEER_CXX_SRCS := harness/peers/moodycamel.cpp harness/peers/boost.cpp harness/peers/tbb.cpp \
                 harness/peers/xenium.cpp

# Extra C flags for every peer file: queue.h and peers.h (harness/),
# numaring.h and nr_ring.h (ring/). ck_ring.h, urcu/wfcqueue.h (multiarch
# directory), concurrentqueue/ and xenium/ are on the compiler's default path.
PEER_CFLAGS := -Iharness -Iring

# Extra C flags for rte.c and harness/loops.c (rte_ops.h): DPDK 22.11's include directories. rte_ring.h
# pulls rte_config.h in itself; pkg-config's "-include rte_config.h" and
# -march=corei7 are not needed and left out, so no object is built for a
# newer CPU than the rest of the harness.
PEER_RTE_CFLAGS := -I/usr/include/dpdk -I/usr/include/x86_64-linux-gnu/dpdk

# Link libraries of the peers (after libnumaring.a -lhwloc -lnuma):
#   -lrte_ring     rte_ring_init, rte_ring_get_memsize; its DT_NEEDED brings
#                  librte_eal, librte_kvargs, librte_telemetry, libbsd, libfdt
#                  (loaded, never initialised: no EAL)
#   -lurcu-common  the cds_wfcq_* functions (liburcu and liburcu-cds have none)
#   -ltbb          oneTBB's concurrent_bounded_queue (its micro-queues' code)
#   -lstdc++       the C++ shims, when the link is done by $(CC)
# ck_ring, moodycamel, Boost.Lockfree and xenium are header-only: no library.
PEER_LIBS := -lrte_ring -lurcu-common -ltbb -lstdc++
