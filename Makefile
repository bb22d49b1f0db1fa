# NumaRing - every entry point of the artifact.
#
#   make              build build/libnumaring.{a,so} (and the harness, when present)
#   make test         the test suite (installs/checks its Debian packages first)
#   make test-tsan    the ring's tests under ThreadSanitizer
#   make test-asan    the ring's tests under AddressSanitizer + UBSan
#   make bench-ring   micro-benchmark: ns per enqueue+dequeue for each lookup mode
#   make install      PREFIX=/usr/local DESTDIR= : header, libraries, numaring.pc
#   make clean
#
# Build products go to build/ (sanitizer builds to build/tsan, build/asan).

CC      ?= gcc
CXX     ?= g++
OPT     ?= -O2 -g
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
B       ?= build
SAN     ?=

ifeq ($(SAN),thread)
  SANFLAGS := -fsanitize=thread
  OPT      := -O1 -g
else ifeq ($(SAN),address)
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  OPT      := -O1 -g
endif

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-missing-field-initializers
CFLAGS_  := -std=gnu11 -pthread -fPIC $(OPT) $(WARN) $(SANFLAGS) -Iring $(CFLAGS)
LDFLAGS_ := -pthread $(SANFLAGS) $(LDFLAGS)
RING_LIBS := -lhwloc -lnuma

VERSION  := 0.1.0
SONAME   := libnumaring.so.0

RING_SRCS := ring/numaring.c ring/nr_topology.c ring/names.c
RING_HDRS := $(wildcard ring/*.h)
RING_OBJS := $(RING_SRCS:%.c=$(B)/obj/%.o)

RING_TESTS := test_ring test_stress test_placement test_fastpath
RING_TEST_BINS := $(RING_TESTS:%=$(B)/tests/%)

.PHONY: all lib test test-ring test-tsan test-asan bench-ring install uninstall clean deps-build deps-test

all: lib

lib: $(B)/libnumaring.a $(B)/libnumaring.so

deps-build:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh build test

$(B)/obj/%.o: %.c $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -c $< -o $@

$(B)/libnumaring.a: $(RING_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/libnumaring.so: $(RING_OBJS) ring/libnumaring.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=ring/libnumaring.map \
		-o $@ $(RING_OBJS) $(LDFLAGS_) $(RING_LIBS)

$(B)/tests/%: ring/tests/%.c ring/tests/nr_test.h $(B)/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) -Iring/tests $< -o $@ $(B)/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lcmocka

# The ring's tests: each binary prints cmocka's summary; any failure fails make.
test-ring: $(RING_TEST_BINS)
	@set -e; for t in $(RING_TEST_BINS); do echo "== $$t"; $$t; done

test: deps-test
	@$(MAKE) --no-print-directory lib
	@$(MAKE) --no-print-directory test-ring

test-tsan: deps-test
	@$(MAKE) --no-print-directory B=build/tsan SAN=thread test-ring

test-asan: deps-test
	@$(MAKE) --no-print-directory B=build/asan SAN=address test-ring

$(B)/bench/bench_ring: ring/bench/bench_ring.c $(B)/libnumaring.a $(RING_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_) $< -o $@ $(B)/libnumaring.a $(LDFLAGS_) $(RING_LIBS) -lm

bench-ring: deps-build
	@$(MAKE) --no-print-directory $(B)/bench/bench_ring
	$(B)/bench/bench_ring

build/numaring.pc: ring/numaring.pc.in Makefile
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

install: lib build/numaring.pc
	install -d $(DESTDIR)$(INCDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 ring/numaring.h $(DESTDIR)$(INCDIR)/numaring.h
	install -m 644 $(B)/libnumaring.a $(DESTDIR)$(LIBDIR)/libnumaring.a
	install -m 755 $(B)/libnumaring.so $(DESTDIR)$(LIBDIR)/libnumaring.so.$(VERSION)
	ln -sf libnumaring.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libnumaring.so
	install -m 644 build/numaring.pc $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

uninstall:
	rm -f $(DESTDIR)$(INCDIR)/numaring.h $(DESTDIR)$(LIBDIR)/libnumaring.a \
	      $(DESTDIR)$(LIBDIR)/libnumaring.so* $(DESTDIR)$(LIBDIR)/pkgconfig/numaring.pc

clean:
	rm -rf build
