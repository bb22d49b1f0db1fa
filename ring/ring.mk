# SPDX-License-Identifier: BSD-2-Clause
# The libraries: build/libnumaring{,_lab}.{a,so}, their tests, the micro-benchmarks,
# install. Included by the top-level Makefile (variables CC, CFLAGS_, B, ...).

# The library's version is the public header's: NUMARING_VERSION_MAJOR and
# _MINOR of ring/numaring.h (the minor is that of the newest NUMARING_0.x
# node of the version script), read from it so that the two cannot part.
VERSION  := $(shell awk '$$2 == "NUMARING_VERSION_MAJOR" { M = $$3 } $$2 == "NUMARING_VERSION_MINOR" { m = $$3 } END { print M "." m ".0" }' ring/numaring.h)
SONAME   := libnumaring.so.0
LAB_SONAME := libnumaring_lab.so.0

# Two libraries from one set of sources (docs/ring.md, "Two libraries"):
#   libnumaring      the production queue: the rseq and cached look-ups, the
#                    per-worker gate; what a user links (numaring.h).
#   libnumaring_lab  the same core compiled with -DNR_LAB, plus the study's
#                    ablations (numaring_lab.h: every look-up and gate,
#                    linger, the flat ring); what the harness and the
#                    experiments link. It exports the public API too.
# ring/*.h are the public headers (installed); ring/src/ is private.
RING_CORE_SRCS := ring/src/errors.c ring/src/routing.c ring/src/transfer.c \
	ring/src/lifecycle.c ring/src/names.c ring/src/nr_topology.c
RING_SRCS     := $(RING_CORE_SRCS) ring/src/ops.c
RING_LAB_SRCS := $(RING_CORE_SRCS) ring/src/lab_queue.c ring/src/lab.c
RING_HDRS := $(wildcard ring/*.h ring/src/*.h)
RING_OBJS     := $(RING_SRCS:%.c=$(B)/obj/%.o)
RING_LAB_OBJS := $(RING_LAB_SRCS:%.c=$(B)/obj-lab/%.o)
# The ring's tests link archives built with the test hooks (allocation-
# failure injection; production's look-up forced): the libraries proper have
# none. build/test/libnumaring.a is the lab's, which every white-box test
# links (the lab runs production's two look-ups through the same cores);
# build/test/libnumaring_prod.a is production's, for test_production.
RING_TEST_OBJS     := $(RING_LAB_SRCS:%.c=$(B)/obj-test-lab/%.o)
RING_PROD_TEST_OBJS := $(RING_SRCS:%.c=$(B)/obj-test/%.o)
RING_TEST_LIB      := $(B)/test/libnumaring.a
RING_PROD_TEST_LIB := $(B)/test/libnumaring_prod.a

RING_TESTS := test_ring test_stress test_placement test_fastpath
RING_TEST_BINS := $(RING_TESTS:%=$(B)/tests/%) $(B)/tests/test_production

lib: $(B)/libnumaring.a $(B)/libnumaring.so $(B)/libnumaring_lab.a $(B)/libnumaring_lab.so

# What the harness (and every program that runs the lab's variants) links:
# harness/harness.mk depends on NUMARING_LAB_SO and links NUMARING_LAB_LINK.
NUMARING_LAB_SO   := $(B)/libnumaring_lab.so
NUMARING_LAB_LINK := -L$(B) -lnumaring_lab

# The library's packages, checked before anything of it is compiled: a
# missing one is named with its Debian package and the command that installs
# it, instead of "hwloc.h: No such file or directory".
.PHONY: check-ring-pkgs
check-ring-pkgs:
	@command -v pkg-config >/dev/null 2>&1 || { echo "make: pkg-config is missing (Debian package pkg-config); scripts/deps.sh build installs what the library needs (as root) or prints the command" >&2; exit 1; }
	@for p in hwloc numa; do pkg-config --exists $$p || { \
	  case $$p in hwloc) d=libhwloc-dev ;; *) d=libnuma-dev ;; esac; \
	  echo "make: the library needs $$p (Debian package $$d), which pkg-config does not find; scripts/deps.sh build installs it (as root) or prints the command" >&2; \
	  exit 1; }; done



$(B)/obj/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -c $< -o $@

$(B)/obj-lab/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -DNR_LAB -c $< -o $@

$(B)/obj-test/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -DNR_TEST_HOOKS -c $< -o $@

$(B)/obj-test-lab/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -DNR_LAB -DNR_TEST_HOOKS -c $< -o $@

$(B)/libnumaring.a: $(RING_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/libnumaring_lab.a: $(RING_LAB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(RING_TEST_LIB): $(RING_TEST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(RING_PROD_TEST_LIB): $(RING_PROD_TEST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The shared libraries as they are installed: the file with the full
# version, the SONAME link programs load, and the link the linker finds
# (-lnumaring, -lnumaring_lab). Each has its own version script: production
# exports the NUMARING_0.x nodes only, the lab those and its NUMARING_LAB_*.
SOFILE := libnumaring.so.$(VERSION)
LAB_SOFILE := libnumaring_lab.so.$(VERSION)
$(B)/$(SOFILE): $(RING_OBJS) ring/libnumaring.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=ring/libnumaring.map \
		-o $@ $(RING_OBJS) $(LDFLAGS_) $(RING_LIBS)

$(B)/libnumaring.so: $(B)/$(SOFILE)
	ln -sf $(SOFILE) $(B)/$(SONAME)
	ln -sf $(SONAME) $@

$(B)/$(LAB_SOFILE): $(RING_LAB_OBJS) ring/libnumaring_lab.map
	$(CC) -shared -Wl,-soname,$(LAB_SONAME) -Wl,--version-script=ring/libnumaring_lab.map \
		-o $@ $(RING_LAB_OBJS) $(LDFLAGS_) $(RING_LIBS)

$(B)/libnumaring_lab.so: $(B)/$(LAB_SOFILE)
	ln -sf $(LAB_SOFILE) $(B)/$(LAB_SONAME)
	ln -sf $(LAB_SONAME) $@

# The white-box tests use the lab (and nr_internal.h with its layout).
$(B)/tests/%: ring/tests/%.c ring/tests/nr_test.h $(RING_TEST_LIB) $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -Iring/tests -DNR_LAB -DNR_TEST_HOOKS $< -o $@ $(RING_TEST_LIB) $(LDFLAGS_) $(RING_LIBS) -lcmocka

# Production's own queue: both its look-ups, cross-node transfers, held
# items, orphans, allocation failures, threads, on production's archive.
$(B)/tests/test_production: ring/tests/test_production.c ring/tests/nr_test.h $(RING_PROD_TEST_LIB) $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -Iring/tests -DNR_TEST_PRODUCTION -DNR_TEST_HOOKS $< -o $@ $(RING_PROD_TEST_LIB) $(LDFLAGS_) $(RING_LIBS) -lcmocka

# A program linked with the shared library as a user links it
# (-Lbuild -lnumaring -Wl,-rpath,build) runs, and finds versioned symbols.
$(B)/tests/link_check: ring/tests/link_check.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)

# The ABI kept (issue 23): a program built against the headers as shipped
# (ring/tests/abi-0.1, -I'd before ring/) runs against this shared library;
# the public headers compile without a feature macro, with _GNU_SOURCE and
# as C++; the library exports every released symbol version. Production's
# library is what users link: every one of these runs against it. The 0.1
# lab struct is the lab's: test_abi_old_lab runs the same file against
# libnumaring_lab.so with its lab case on (NR_ABI_LAB).
ABI_TEST_BINS := $(B)/tests/test_abi_old $(B)/tests/test_abi_old_lab $(B)/tests/test_abi_headers_c11 \
	$(B)/tests/test_abi_headers_gnu $(B)/tests/test_abi_headers_cxx
$(B)/tests/test_abi_old: ring/tests/test_abi_old.c $(wildcard ring/tests/abi-0.1/*.h) ring/src/nr_abi.h $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -Iring/tests/abi-0.1 $(CFLAGS_) -Iring/src $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_) -lcmocka
$(B)/tests/test_abi_old_lab: ring/tests/test_abi_old.c $(wildcard ring/tests/abi-0.1/*.h) ring/src/nr_abi.h $(B)/libnumaring_lab.so
	@mkdir -p $(dir $@)
	$(CC) -Iring/tests/abi-0.1 $(CFLAGS_) -Iring/src -DNR_ABI_LAB $< -o $@ -L$(B) -lnumaring_lab -Wl,-rpath,$(B) $(LDFLAGS_) -lcmocka
$(B)/tests/test_abi_headers_c11: ring/tests/test_abi_headers.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wpedantic $(OPT) $(WARN) $(SANFLAGS) -Iring -DNR_EXPECT_PLAIN $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)
$(B)/tests/test_abi_headers_gnu: ring/tests/test_abi_headers.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wpedantic $(OPT) $(WARN) $(SANFLAGS) -Iring -D_GNU_SOURCE -DNR_EXPECT_GNU $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)
$(B)/tests/test_abi_headers_cxx: ring/tests/test_abi_headers.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CXX) -x c++ -std=c++17 $(OPT) -Wall -Wextra $(SANFLAGS) -Iring $< -x none -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)

# The ring's tests: each binary prints cmocka's summary; any failure fails make.
# Then the libraries' shapes: exports and their versions (both), no lab in
# production's (ring/tests/check_no_lab.sh, its control the lab's library),
# no test hook in either archive, and the fast path's code.
test-ring: $(RING_TEST_BINS) $(B)/tests/link_check $(ABI_TEST_BINS) lib
	@set -e; for t in $(RING_TEST_BINS); do echo "== $$t"; $$t; done
	@echo "== $(B)/tests/link_check"; $(B)/tests/link_check
	@set -e; for t in $(ABI_TEST_BINS); do echo "== $$t"; $$t; done
	@ring/tests/check_abi_exports.sh $(B)/libnumaring.so ring/libnumaring.map ring/tests/abi-0.1/exports.txt
	@ring/tests/check_abi_exports.sh $(B)/libnumaring_lab.so ring/libnumaring_lab.map ring/tests/abi-0.1/exports.txt
	@set -e; for l in libnumaring.so libnumaring_lab.so; do \
	  objdump -T $(B)/$$l | grep -q 'NUMARING_0.1 *numaring_create$$' || \
	    { echo "test-ring: numaring_create is not versioned NUMARING_0.1 in $(B)/$$l" >&2; exit 1; }; \
	  ! objdump -T $(B)/$$l | grep -E ' nr_[a-z_0-9]+$$' || \
	    { echo "test-ring: $$l exports internal nr_* symbols" >&2; exit 1; }; done
	@objdump -T $(B)/libnumaring_lab.so | grep -q 'NUMARING_LAB_0.1 *numaring_lab_create$$' || \
	  { echo "test-ring: numaring_lab_create is not versioned NUMARING_LAB_0.1 in $(B)/libnumaring_lab.so" >&2; exit 1; }
	@ring/tests/check_no_lab.sh $(B)/$(SOFILE) $(B)/$(LAB_SOFILE)
	@# nm fails (and so does this) if an archive is missing or unreadable
	@set -e; for a in libnumaring.a libnumaring_lab.a; do \
	  nm $(B)/$$a > $(B)/$$a.nm; \
	  ! grep -w nr_fault_alloc $(B)/$$a.nm || \
	    { echo "test-ring: $$a carries the test hook nr_fault_alloc (it belongs in $(B)/test/ only)" >&2; exit 1; }; done
	@# the fast path's shape, in the optimised build without sanitizers or fault points
	$(if $(SAN)$(filter -DNR_FAULT_INJECT,$(CFLAGS))$(filter-out -O2 -g,$(OPT)),@echo "test-ring: check_fastpath skipped in this instrumented build",@scripts/check_fastpath.sh $(B)/$(SOFILE) $(B)/$(LAB_SOFILE))

# ---- the harness: build/numaring-bench --------------------------------------

# The ring's own micro-benchmark times the raw look-ups (ring/src/nr_lookup.h).
# Both time the lab's variants: they link the lab's archive.
$(B)/bench/bench_ring: ring/bench/bench_ring.c $(B)/libnumaring_lab.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -DNR_LAB $< -o $@ $(B)/libnumaring_lab.a $(LDFLAGS_) $(RING_LIBS) -lm

# (-Iharness: its spin-wait hint is the harness's one, harness/relax.h)
$(B)/bench/bench_oversub: ring/bench/bench_oversub.c $(B)/libnumaring_lab.a $(RING_HDRS) harness/relax.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iharness $< -o $@ $(B)/libnumaring_lab.a $(LDFLAGS_) $(RING_LIBS)

# 3 producers + 3 consumers on 2 CPUs, every lookup x gate x backoff:
bench-ring: deps-build
	@$(MAKE) --no-print-directory $(B)/bench/bench_ring
	$(B)/bench/bench_ring

build/numaring.pc: ring/numaring.pc.in Makefile
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

# Both libraries are installed: a program links -lnumaring (numaring.pc);
# the lab's -lnumaring_lab and numaring_lab.h are for the benchmarks.
install: lib build/numaring.pc
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 ring/numaring.h ring/numaring_lab.h ring/numaring_topology.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(B)/libnumaring.a $(DESTDIR)$(LIBDIR)/libnumaring.a
	install -m 755 $(B)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SOFILE)
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libnumaring.so
	install -m 644 $(B)/libnumaring_lab.a $(DESTDIR)$(LIBDIR)/libnumaring_lab.a
	install -m 755 $(B)/$(LAB_SOFILE) $(DESTDIR)$(LIBDIR)/$(LAB_SOFILE)
	ln -sf $(LAB_SOFILE) $(DESTDIR)$(LIBDIR)/$(LAB_SONAME)
	ln -sf $(LAB_SONAME) $(DESTDIR)$(LIBDIR)/libnumaring_lab.so
	install -m 644 build/numaring.pc $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

uninstall:
	rm -f $(DESTDIR)$(INCDIR)/numaring.h $(DESTDIR)$(INCDIR)/numaring_lab.h \
	      $(DESTDIR)$(INCDIR)/numaring_topology.h $(DESTDIR)$(LIBDIR)/libnumaring.a \
	      $(DESTDIR)$(LIBDIR)/libnumaring.so* $(DESTDIR)$(LIBDIR)/libnumaring_lab.a \
	      $(DESTDIR)$(LIBDIR)/libnumaring_lab.so* $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc
