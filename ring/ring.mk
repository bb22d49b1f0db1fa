# SPDX-License-Identifier: BSD-2-Clause
# The library: build/libnumaring.{a,so}, its tests, its micro-benchmarks,
# install. Included by the top-level Makefile (variables CC, CFLAGS_, B, ...).

VERSION  := 0.1.0
SONAME   := libnumaring.so.0

# ring/*.h are the public headers (installed); ring/src/ is private.
RING_SRCS := ring/src/numaring.c ring/src/nr_topology.c ring/src/names.c ring/src/lab.c
RING_HDRS := $(wildcard ring/*.h ring/src/*.h)
RING_OBJS := $(RING_SRCS:%.c=$(B)/obj/%.o)
# The ring's tests link a separate archive built with the test hooks
# (allocation-failure injection): the library proper has none.
RING_TEST_OBJS := $(RING_SRCS:%.c=$(B)/obj-test/%.o)

RING_TESTS := test_ring test_stress test_placement test_fastpath
RING_TEST_BINS := $(RING_TESTS:%=$(B)/tests/%)

lib: $(B)/libnumaring.a $(B)/libnumaring.so

# What the harness (and every program that runs the lab's variants) links:
# harness/harness.mk depends on NUMARING_LAB_SO and links NUMARING_LAB_LINK.
NUMARING_LAB_SO   := $(B)/libnumaring.so
NUMARING_LAB_LINK := -L$(B) -lnumaring

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

$(B)/obj-test/ring/%.o: ring/%.c $(RING_HDRS) | check-ring-pkgs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -DNR_TEST_HOOKS -c $< -o $@

$(B)/libnumaring.a: $(RING_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/test/libnumaring.a: $(RING_TEST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The shared library as it is installed: the file with the full version,
# the SONAME link programs load, and the link the linker finds (-lnumaring).
SOFILE := libnumaring.so.$(VERSION)
$(B)/$(SOFILE): $(RING_OBJS) ring/libnumaring.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=ring/libnumaring.map \
		-o $@ $(RING_OBJS) $(LDFLAGS_) $(RING_LIBS)

$(B)/libnumaring.so: $(B)/$(SOFILE)
	ln -sf $(SOFILE) $(B)/$(SONAME)
	ln -sf $(SONAME) $@

$(B)/tests/%: ring/tests/%.c ring/tests/nr_test.h $(B)/test/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src -Iring/tests -DNR_TEST_HOOKS $< -o $@ $(B)/test/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lcmocka

# A program linked with the shared library as a user links it
# (-Lbuild -lnumaring -Wl,-rpath,build) runs, and finds versioned symbols.
$(B)/tests/link_check: ring/tests/link_check.c $(wildcard ring/*.h) $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_)

# The ABI kept (issue 23): a program built against the headers as shipped
# (ring/tests/abi-0.1, -I'd before ring/) runs against this shared library;
# the public headers compile without a feature macro, with _GNU_SOURCE and
# as C++; the library exports every released symbol version.
ABI_TEST_BINS := $(B)/tests/test_abi_old $(B)/tests/test_abi_headers_c11 \
	$(B)/tests/test_abi_headers_gnu $(B)/tests/test_abi_headers_cxx
$(B)/tests/test_abi_old: ring/tests/test_abi_old.c $(wildcard ring/tests/abi-0.1/*.h) ring/src/nr_abi.h $(B)/libnumaring.so
	@mkdir -p $(dir $@)
	$(CC) -Iring/tests/abi-0.1 $(CFLAGS_) -Iring/src $< -o $@ -L$(B) -lnumaring -Wl,-rpath,$(B) $(LDFLAGS_) -lcmocka
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
test-ring: $(RING_TEST_BINS) $(B)/tests/link_check $(ABI_TEST_BINS) $(B)/libnumaring.a
	@set -e; for t in $(RING_TEST_BINS); do echo "== $$t"; $$t; done
	@echo "== $(B)/tests/link_check"; $(B)/tests/link_check
	@set -e; for t in $(ABI_TEST_BINS); do echo "== $$t"; $$t; done
	@ring/tests/check_abi_exports.sh $(B)/libnumaring.so ring/libnumaring.map ring/tests/abi-0.1/exports.txt
	@objdump -T $(B)/libnumaring.so | grep -q 'NUMARING_0.1 *numaring_create$$' || \
	  { echo "test-ring: numaring_create is not versioned NUMARING_0.1 in $(B)/libnumaring.so" >&2; exit 1; }
	@! objdump -T $(B)/libnumaring.so | grep -E ' nr_[a-z_]+$$' || \
	  { echo "test-ring: libnumaring.so exports internal nr_* symbols" >&2; exit 1; }
	@objdump -T $(B)/libnumaring.so | grep -q 'NUMARING_LAB_0.1 *numaring_lab_create$$' || \
	  { echo "test-ring: numaring_lab_create is not versioned NUMARING_LAB_0.1" >&2; exit 1; }
	@# nm fails (and so does this) if the archive is missing or unreadable
	@nm $(B)/libnumaring.a > $(B)/libnumaring.a.nm
	@! grep -w nr_fault_alloc $(B)/libnumaring.a.nm || \
	  { echo "test-ring: libnumaring.a carries the test hook nr_fault_alloc (it belongs in $(B)/test/ only)" >&2; exit 1; }
	@# the fast path's shape, in the optimised build without sanitizers or fault points
	$(if $(SAN)$(filter -DNR_FAULT_INJECT,$(CFLAGS))$(filter-out -O2 -g,$(OPT)),@echo "test-ring: check_fastpath skipped in this instrumented build",@scripts/check_fastpath.sh $(B)/$(SOFILE))

# ---- the harness: build/numaring-bench --------------------------------------

# The ring's own micro-benchmark times the raw look-ups (ring/src/nr_lookup.h).
$(B)/bench/bench_ring: ring/bench/bench_ring.c $(B)/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/src $< -o $@ $(B)/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lm

$(B)/bench/bench_oversub: ring/bench/bench_oversub.c $(B)/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $< -o $@ $(B)/libnumaring.a $(LDFLAGS_) $(RING_LIBS)

# 3 producers + 3 consumers on 2 CPUs, every lookup x gate x backoff:
bench-ring: deps-build
	@$(MAKE) --no-print-directory $(B)/bench/bench_ring
	$(B)/bench/bench_ring

build/numaring.pc: ring/numaring.pc.in Makefile
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

install: lib build/numaring.pc
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 ring/numaring.h ring/numaring_lab.h ring/numaring_topology.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(B)/libnumaring.a $(DESTDIR)$(LIBDIR)/libnumaring.a
	install -m 755 $(B)/libnumaring.so $(DESTDIR)$(LIBDIR)/libnumaring.so.$(VERSION)
	ln -sf libnumaring.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libnumaring.so
	install -m 644 build/numaring.pc $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

uninstall:
	rm -f $(DESTDIR)$(INCDIR)/numaring.h $(DESTDIR)$(INCDIR)/numaring_lab.h \
	      $(DESTDIR)$(INCDIR)/numaring_topology.h $(DESTDIR)$(LIBDIR)/libnumaring.a \
	      $(DESTDIR)$(LIBDIR)/libnumaring.so* $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

