# pcviz: included by the top-level Makefile (before guest-programs).
#
#   build/host/pcviz       host build, dynamic, with --replay (libtracecmd)
#   build/guest/bin/pcviz  static guest build for the initramfs, no --replay
#   build/host/pcviz-tests/*  unit tests of the model, decoder, parsers and batch output
#   build/host/pcviz-asan, build/host/pcviz-asan-tests/*  the same under AddressSanitizer
#                          and UBSan, for make check (tests/host/pcviz-unit.sh, pcviz-fuzz.sh)

PCVIZ_SRCS := $(sort $(wildcard pcviz/*.c))
PCVIZ_TEST_SRCS := $(sort $(wildcard pcviz/tests/*.c))
# The parts without terminal or tracefs code, for the unit tests.
PCVIZ_PURE := cells cgroup charges decode evictions memcg message model options output procfs residency synth words writes

PCVIZ_HOST_OBJS := $(patsubst pcviz/%.c,$(B)/host/pcviz-obj/%.o,$(PCVIZ_SRCS))
PCVIZ_GUEST_OBJS := $(patsubst pcviz/%.c,$(B)/guest/pcviz-obj/%.o,$(PCVIZ_SRCS))
PCVIZ_TEST_OBJS := $(patsubst pcviz/tests/%.c,$(B)/host/pcviz-obj/tests/%.o,$(PCVIZ_TEST_SRCS))
PCVIZ_TESTS := $(patsubst pcviz/tests/%.c,$(B)/host/pcviz-tests/%,$(PCVIZ_TEST_SRCS))
PCVIZ_ASAN_OBJS := $(patsubst pcviz/%.c,$(B)/host/pcviz-asan-obj/%.o,$(PCVIZ_SRCS))
PCVIZ_ASAN_TEST_OBJS := $(patsubst pcviz/tests/%.c,$(B)/host/pcviz-asan-obj/tests/%.o,$(PCVIZ_TEST_SRCS))
PCVIZ_ASAN_TESTS := $(patsubst pcviz/tests/%.c,$(B)/host/pcviz-asan-tests/%,$(PCVIZ_TEST_SRCS))

# lib/ restates what pcviz needs of the patched UAPI (cachestat): no kernel tree.
PCVIZ_CFLAGS := $(COMMON_CFLAGS) -Iinclude
# Evaluated only when a pcviz recipe runs (the packages come with make deps).
PCVIZ_PKGS = libtracefs libtraceevent ncursesw
PCVIZ_HOST_CFLAGS = $(PCVIZ_CFLAGS) -DPCVIZ_REPLAY $(shell pkg-config --cflags libtracecmd $(PCVIZ_PKGS))
PCVIZ_HOST_LIBS = $(shell pkg-config --libs libtracecmd $(PCVIZ_PKGS)) -lm
PCVIZ_TEST_LIBS = $(shell pkg-config --libs libtraceevent) -lm
PCVIZ_GUEST_CFLAGS = $(PCVIZ_CFLAGS) $(shell pkg-config --cflags $(PCVIZ_PKGS))
# --no-warnings: libtraceevent.a carries a dlopen() for plugins, which a
# static link warns about; pcviz loads no plugins.
PCVIZ_GUEST_LIBS = -static $(shell pkg-config --static --libs $(PCVIZ_PKGS)) -lm -Wl,--no-warnings

GUEST_TOOLS += $(B)/guest/bin/pcviz

##@ Building
## make pcviz: the page-cache viewer: build/host/pcviz (--replay of a guest's trace.dat)
## and the guest's static build (docs/pcviz.md)
pcviz: $(B)/host/pcviz $(B)/guest/bin/pcviz $(PCVIZ_TESTS)

$(B)/host/pcviz-obj/%.o: pcviz/%.c $(CFLAGS_FILE) | $(DEPS_STAMP)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(PCVIZ_HOST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/host/pcviz-asan-obj/%.o: pcviz/%.c $(CFLAGS_FILE) | $(DEPS_STAMP)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(PCVIZ_HOST_CFLAGS) $(SANITIZE) $(DEPFLAGS) -c -o $@ $<

$(B)/guest/pcviz-obj/%.o: pcviz/%.c $(CFLAGS_FILE) | $(DEPS_STAMP)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)$(GUEST_CC) $(PCVIZ_GUEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/host/pcviz: $(PCVIZ_HOST_OBJS) $(B)/host/version.o $(LIBPCLAB)
	@echo "  LD      $@"
	$(Q)gcc -o $@ $^ $(PCVIZ_HOST_LIBS)

$(B)/host/pcviz-asan: $(PCVIZ_ASAN_OBJS) $(B)/host/version.o $(LIBPCLAB_ASAN)
	@echo "  LD      $@"
	$(Q)gcc $(SANITIZE) -o $@ $^ $(PCVIZ_HOST_LIBS)

$(B)/guest/bin/pcviz: $(PCVIZ_GUEST_OBJS) $(B)/guest/version.o $(LIBPCLAB_GUEST)
	@echo "  LD      $@"
	$(Q)mkdir -p $(@D)
	$(Q)$(GUEST_CC) -o $@ $^ $(PCVIZ_GUEST_LIBS)

$(PCVIZ_TESTS): $(B)/host/pcviz-tests/%: $(B)/host/pcviz-obj/tests/%.o \
		$(patsubst %,$(B)/host/pcviz-obj/%.o,$(PCVIZ_PURE)) $(LIBPCLAB)
	@echo "  LD      $@"
	$(Q)mkdir -p $(@D)
	$(Q)gcc -o $@ $^ $(PCVIZ_TEST_LIBS)

$(PCVIZ_ASAN_TESTS): $(B)/host/pcviz-asan-tests/%: $(B)/host/pcviz-asan-obj/tests/%.o \
		$(patsubst %,$(B)/host/pcviz-asan-obj/%.o,$(PCVIZ_PURE)) $(LIBPCLAB_ASAN)
	@echo "  LD      $@"
	$(Q)mkdir -p $(@D)
	$(Q)gcc $(SANITIZE) -o $@ $^ $(PCVIZ_TEST_LIBS)

$(PCVIZ_TEST_OBJS): $(B)/host/pcviz-obj/tests/%.o: pcviz/tests/%.c $(CFLAGS_FILE) | $(DEPS_STAMP)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(PCVIZ_HOST_CFLAGS) -Ipcviz -Itests/lib/both $(DEPFLAGS) -c -o $@ $<

$(PCVIZ_ASAN_TEST_OBJS): $(B)/host/pcviz-asan-obj/tests/%.o: pcviz/tests/%.c $(CFLAGS_FILE) | $(DEPS_STAMP)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(PCVIZ_HOST_CFLAGS) $(SANITIZE) -Ipcviz -Itests/lib/both $(DEPFLAGS) -c -o $@ $<

# make check runs the host tests of pcviz (tests/host/pcviz-*.sh), the
# sanitizer builds among them.
check: $(B)/host/pcviz $(PCVIZ_TESTS) $(B)/host/pcviz-asan $(PCVIZ_ASAN_TESTS)
