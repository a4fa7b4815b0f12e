# pclab: a page-cache laboratory.  `make help` lists the targets.
#
# Every target that needs Debian packages depends on the deps stamp, so the
# two commands in README.md work on a fresh Debian 12 machine.

MAKEFLAGS += --no-builtin-rules --no-print-directory
.SUFFIXES:
.DELETE_ON_ERROR:

V ?= 0
ifeq ($(V),1)
Q :=
else
Q := @
endif
export V

# User-facing knobs (documented in `make help`).
MEM ?= 256
CPUS ?= 2
CMD ?=
EXTRA ?=
NAME ?= run
TIMEOUT ?= 0
KERNEL ?= release
DURATION ?= 30m
export MEM CPUS TIMEOUT

B := build
RESULTS ?= results
KSRC := $(B)/linux
KPKG := linux-source-6.12
KTARBALL := /usr/src/$(KPKG).tar.xz
STAMP := $(B)/stamp

DEPS_STAMP := $(STAMP)/deps
TREE_STAMP := $(STAMP)/tree
SERIES_STAMP := $(STAMP)/series

# The series' layers, in the order they apply, each a format-patch series
# of its own in kernel/patches/LAYER: core (the feature), lab (counters,
# trace events, the 2019 switch), test (fault injection for the tests).
LAYERS := core lab test
LAYER_DIRS := $(addprefix kernel/patches/,$(LAYERS))
layer_patches = $(sort $(filter-out %/0000-cover-letter.patch,$(wildcard kernel/patches/$(1)/*.patch)))
PATCHES := $(foreach l,$(LAYERS),$(call layer_patches,$(l)))
CONFIG_FRAGMENTS := $(sort $(wildcard kernel/config/*.config))
DEBUG_FRAGMENTS := $(CONFIG_FRAGMENTS) $(sort $(wildcard kernel/config/debug/*.config))
# Without cgroups, event tracing on, the rest as small as the series allows:
# a configuration 0-day would build (merged onto tinyconfig on its own)
NOCGROUP_FRAGMENTS := $(sort $(wildcard kernel/config/nocgroup/*.config))
# The core layer alone: the debug kernel without the lab and test options
CORE_FRAGMENTS := $(DEBUG_FRAGMENTS) $(sort $(wildcard kernel/config/core/*.config))

kimage = $(B)/kernel/$(1)/arch/x86/boot/bzImage
KIMAGE_release := $(call kimage,release)
KIMAGE_debug := $(call kimage,debug)
KIMAGE_nocgroup := $(call kimage,nocgroup)
# A kernel exercise's debug kernel (see "Kernel exercises" below)
KERNEL_EXERCISES := $(sort $(patsubst labs/kernel-exercises/%.patch,%,$(wildcard labs/kernel-exercises/*.patch)))
EXERCISE ?=
KEX_TOP = $(B)/kernel-exercise/$(EXERCISE)
KEX_SRC = $(KEX_TOP)/build/linux
KEX_OBJ = $(KEX_TOP)/build/kernel/debug
KEX_IMAGE = $(KEX_OBJ)/arch/x86/boot/bzImage
# make shell/run/trace KERNEL=exercise EXERCISE=NAME boot it (rebuilt first)
ifneq ($(EXERCISE),)
KIMAGE_exercise := $(KEX_IMAGE)
$(KEX_IMAGE): kernel-exercise ;
else ifeq ($(KERNEL),exercise)
$(error KERNEL=exercise boots a kernel exercise: name it, EXERCISE=NAME (one of: $(KERNEL_EXERCISES)))
endif

GEN_INIT_CPIO := $(B)/host/gen_init_cpio
HEADERS_STAMP := $(B)/headers/.installed
INITRAMFS := $(B)/initramfs.cpio

# A value as one shell word: single-quoted, its own single quotes escaped.
shq = '$(subst ','\'',$(1))'

# Kbuild refuses a source or output directory whose path holds white space
# or a colon; say so before running it.  Expands to nothing otherwise.
kbuild_path_ok = $(if $(or $(word 2,$(CURDIR)),$(findstring :,$(CURDIR))),$(error the checkout's \
	path "$(CURDIR)" holds a space or a colon, which the kernel's build system (Kbuild) \
	refuses: move the checkout to a path without them))

# Write $(2) to file $(1) only when it changes: a prerequisite that tracks a
# list (of patches, of flags), not just the files' times.  $(2) is data (a
# student's EXERCISE_SRC among them): make's own file function writes it,
# no shell sees it.
define track
$(shell mkdir -p $(dir $(1)))
$(if $(and $(wildcard $(1)),$(call same_text,$(file <$(1)),$(2))),,$(file >$(1),$(2)))
endef
# same_text A,B: non-empty if A and B are the same text
same_text = $(and $(findstring x$(1)x,x$(2)x),$(findstring x$(2)x,x$(1)x))
$(call track,$(STAMP)/patch-list,$(PATCHES))

.DEFAULT_GOAL := all
# Defined before .PHONY uses them: lab1 ... are commands, never files.
LABS := $(sort $(patsubst labs/%/run,%,$(wildcard labs/lab*/run)))
GRADE_LABS := $(addprefix grade-,$(LABS))
COMPARE_LABS := $(addsuffix -compare,$(LABS))
# The graded exercises: labs/exercises/NAME/grade, make grade-NAME.
EXERCISES := $(sort $(patsubst labs/exercises/%/grade,%,$(wildcard labs/exercises/*/grade)))
GRADE_EXERCISES := $(addprefix grade-,$(EXERCISES))
# make check grades the untouched skeletons and the solutions
EXERCISE_BINS := $(foreach e,$(EXERCISES) selftest,$(B)/exercises/$(e)/bin/$(e) $(B)/exercises/$(e)/solution/bin/$(e))
.PHONY: all help deps kernel kernel-debug headers initramfs guest-programs pcviz run shell trace soak \
	kernel-check-series kernel-core kernel-configs \
	check $(LABS) labs grade $(GRADE_LABS) $(COMPARE_LABS) $(GRADE_EXERCISES) bench clean distclean \
	kernel-export kernel-exercise kernel-reset grade-kernel lab7

# make help prints the targets' "## " comments: "## make USAGE: TEXT" just
# above a target's rule (conditionals may come between), TEXT going on over
# further "## " lines, under the heading of the last "##@ " line before it.
# The headings, in the order help prints them:
##@ Start here
##@ Testing
##@ Building
##@ Running (guest consoles log to results/NAME/console.log)
##@ Kernel series
##@ Instructors
##@ Cleaning

##@ Building
## make all: kernel and initramfs (the default)
all: kernel initramfs

# --- Debian packages ---------------------------------------------------------

## make deps: install missing Debian packages (as root; otherwise prints the command);
## the list: scripts/packages.list
deps:
	$(Q)scripts/deps
	$(Q)mkdir -p $(STAMP) && touch $(DEPS_STAMP)

$(DEPS_STAMP): scripts/packages.list scripts/deps
	$(Q)scripts/deps
	$(Q)mkdir -p $(STAMP) && touch $@

# Installed by the deps step; order-only so its date never forces a rebuild.
$(KTARBALL): | $(DEPS_STAMP)
	@:

# --- Kernel ------------------------------------------------------------------

$(TREE_STAMP): $(KTARBALL) | $(DEPS_STAMP)
	$(Q)kernel/scripts/prepare-tree $(KTARBALL) $(KPKG) $(KSRC)
	$(Q)touch $@

$(SERIES_STAMP): $(TREE_STAMP) $(PATCHES) $(STAMP)/patch-list kernel/scripts/apply-series
	@echo "  SERIES  $(words $(PATCHES)) patch(es) from kernel/patches:$(foreach l,$(LAYERS), $(l) $(words $(call layer_patches,$(l))))"
	$(Q)kernel/scripts/apply-series $(KSRC) $(LAYER_DIRS)
	$(Q)touch $@

# config_stamp NAME,OBJ,SRC,TREE,FRAGMENTS: kernel NAME configured in
# directory OBJ from source SRC (ready once the stamp TREE is), tinyconfig
# plus the config fragments FRAGMENTS; the one rule of every kernel's config.
define config_stamp
$(2)/.config-stamp: $(4) $(5) kernel/scripts/make-config kernel/scripts/check-config
	$$(kbuild_path_ok)@echo "  CONFIG  $(1): tinyconfig + $(notdir $(5))"
	$$(Q)kernel/scripts/make-config $(3) $$(@D) $(5)
	$$(Q)touch $$@
endef
$(eval $(call config_stamp,release,$(B)/kernel/release,$(KSRC),$(SERIES_STAMP),$(CONFIG_FRAGMENTS)))
$(eval $(call config_stamp,debug,$(B)/kernel/debug,$(KSRC),$(SERIES_STAMP),$(DEBUG_FRAGMENTS)))
$(eval $(call config_stamp,nocgroup,$(B)/kernel/nocgroup,$(KSRC),$(SERIES_STAMP),$(NOCGROUP_FRAGMENTS)))

$(B)/kernel/%/arch/x86/boot/bzImage: $(B)/kernel/%/.config-stamp $(SERIES_STAMP)
	$(kbuild_path_ok)@echo "  KERNEL  $* (log: $(B)/kernel/$*.log)"
	$(Q)kernel/scripts/build-kernel $(KSRC) $(B)/kernel/$* $(B)/kernel/$*.log bzImage
	$(Q)touch $@
	@echo "  KERNEL  $@ ($$(cat $(B)/kernel/$*/include/config/kernel.release))"

$(HEADERS_STAMP): $(SERIES_STAMP)
	$(kbuild_path_ok)@echo "  HEADERS $(B)/headers (patched UAPI)"
	$(Q)$(MAKE) -s -C $(KSRC) O=$(abspath $(B)/headers-obj) \
		INSTALL_HDR_PATH=$(abspath $(B)/headers) headers_install >/dev/null
	$(Q)touch $@

# The kernel's own host program, built as Kbuild builds it, not with the
# project's flags; it includes system headers only.
$(GEN_INIT_CPIO): $(TREE_STAMP)
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D)
	$(Q)gcc -O2 -o $@ $(KSRC)/usr/gen_init_cpio.c

# The host's TSC rate, for TCG guests (see initramfs/tsc-khz.c)
TSC_KHZ := $(B)/host/tsc-khz
$(TSC_KHZ): initramfs/tsc-khz.c $(CFLAGS_FILE)
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(HOST_CFLAGS) $(DEPFLAGS) -o $@ $<

# make kernel SERIES=core: the core layer alone (kernel-core)
SERIES ?= all
ifeq ($(filter all core,$(SERIES)),)
$(error SERIES=$(SERIES): choose all (every layer) or core (the feature alone))
endif
## make kernel: linux-source-6.12 extracted into build/linux, the series applied, the
## release kernel built with ccache (build/kernel/release), the patched UAPI headers
## (build/headers); SERIES=core: the core layer alone (make kernel-core)
ifneq ($(EXERCISE),)
kernel: kernel-exercise
else ifeq ($(SERIES),core)
kernel: kernel-core $(HEADERS_STAMP) $(GEN_INIT_CPIO)
else
kernel: $(KIMAGE_release) $(HEADERS_STAMP) $(GEN_INIT_CPIO)
endif
## make kernel-debug: the same with the debug options of kernel/config/debug/ (lockdep,
## DEBUG_VM, KFENCE, ...) in build/kernel/debug
kernel-debug: $(KIMAGE_debug) $(HEADERS_STAMP) $(GEN_INIT_CPIO)
## make headers: the patched UAPI headers alone (build/headers)
headers: $(HEADERS_STAMP)

# The core layer alone (make kernel-core, or make kernel SERIES=core), as
# make check boots it: the feature must build and pass the contract suites
# without the lab and test layers.  A worktree of its own at pclab-core,
# laid out like the checkout (build/linux beside build/kernel/debug, under
# build/core) so that ccache, which hashes paths relative to that top,
# serves every file the other layers leave alone.
CORE_TOP := $(B)/core
CORE_SRC := $(CORE_TOP)/build/linux
CORE_OBJ := $(CORE_TOP)/build/kernel/debug
KIMAGE_core := $(CORE_OBJ)/arch/x86/boot/bzImage

$(STAMP)/core-tree: $(SERIES_STAMP)
	@echo "  TREE    $(CORE_SRC) (pclab-core: the core layer alone)"
	$(Q)if [ -d $(CORE_SRC) ]; then git -C $(CORE_SRC) checkout -q --detach pclab-core; \
	else git -C $(KSRC) worktree prune && \
		git -C $(KSRC) worktree add -q --detach $(abspath $(CORE_SRC)) pclab-core; fi
	$(Q)touch $@

$(eval $(call config_stamp,core,$(CORE_OBJ),$(CORE_SRC),$(STAMP)/core-tree,$(CORE_FRAGMENTS)))

$(KIMAGE_core): $(CORE_OBJ)/.config-stamp $(STAMP)/core-tree
	$(kbuild_path_ok)@echo "  KERNEL  core (log: $(CORE_OBJ).log)"
	$(Q)kernel/scripts/build-kernel $(CORE_SRC) $(CORE_OBJ) $(CORE_OBJ).log bzImage
	$(Q)touch $@

## make kernel-core: the core layer of the series alone (build/core; = make kernel SERIES=core)
kernel-core: $(KIMAGE_core)

## make kernel-configs: the whole series in the release, debug and no-cgroups configurations
## (make check builds and links all three)
kernel-configs: $(KIMAGE_release) $(KIMAGE_debug) $(KIMAGE_nocgroup)

# Build and link vmlinux at every patch of the three layers in turn
# (bisectability), with the debug configuration: the release one plus the
# options that build the series' debug-only files.  Cold, it compiles the
# kernel once per patch that edits a widely included header (seven of
# seventeen); ccache serves an unchanged prefix of the series afterwards.
##@ Kernel series
## make kernel-check-series: build and link the debug kernel at every patch of the series
## (long when cold)
kernel-check-series: $(KIMAGE_debug)
	$(kbuild_path_ok)$(Q)kernel/scripts/check-series $(KSRC) $(B)/kernel/debug/.config \
		$(B)/series-check

# Regenerate kernel/patches from the commits on top of pclab-base, layer by
# layer (the branches pclab-core, pclab-lab, pclab), keeping the hand-written
# part of each cover letter.
## make kernel-export: regenerate kernel/patches from the commits in build/linux
kernel-export: $(TREE_STAMP)
	$(Q)kernel/scripts/export-series $(KSRC) $(LAYER_DIRS)

# --- C: one set of flags, the compiler's header dependencies ----------------

# Every C file of the project is compiled with these; each kind of program
# adds its include paths (and -static for the guest, the sanitizers for the
# host's tests).
COMMON_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror
# Every compile also writes the headers it read (-MMD -MP) to
# build/dep/OUTPUT.d, read back at the end of this file, so a header's
# change rebuilds what includes it and nothing else.  Kept apart from the
# outputs: build/guest/fixtures is copied into the guest whole.  Headers
# under -isystem (the patched UAPI, the kselftest harness) stay out of a .d;
# the stamps of the trees they come from stand for them.
depfile = $(patsubst $(B)/%,$(B)/dep/%.d,$@)
DEPFLAGS = -MMD -MP -MF $(depfile)
# A .d also names the source it was compiled from; should that source
# move or go (a .d of an older tree), its output is rebuilt from what its
# rule names now, as -MP does for a header, not refused ("No rule").
%.c: ;
# Every C output depends on this file, which changes with the flags (below
# pcviz.mk's include): new flags rebuild, and so does an output built before
# it had a .d.
CFLAGS_FILE := $(B)/cflags

# --- lib/: what pcviz, the tools and the C tests share ----------------------

# Headers in include/pclab/, sources in lib/.  One archive per way of
# compiling: the host's programs, the host's sanitized tests, and the
# guest's static programs (GUEST_CC).  No kernel tree is needed.
LIB_SRCS := $(sort $(filter-out lib/version.c,$(wildcard lib/*.c)))
LIB_CFLAGS := $(COMMON_CFLAGS) -Iinclude
LIBPCLAB := $(B)/host/libpclab.a
LIBPCLAB_ASAN := $(B)/host/libpclab-asan.a
LIBPCLAB_GUEST := $(B)/guest/libpclab.a
lib_objs = $(patsubst lib/%.c,$(B)/$(1)/%.o,$(LIB_SRCS))

$(B)/host/lib-obj/%.o: lib/%.c $(CFLAGS_FILE)
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(LIB_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/host/lib-asan-obj/%.o: lib/%.c $(CFLAGS_FILE)
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(LIB_CFLAGS) $(SANITIZE) $(DEPFLAGS) -c -o $@ $<

$(B)/guest/lib-obj/%.o: lib/%.c $(CFLAGS_FILE)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)$(GUEST_CC) $(LIB_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIBPCLAB): $(call lib_objs,host/lib-obj)
$(LIBPCLAB_ASAN): $(call lib_objs,host/lib-asan-obj)
$(LIBPCLAB_GUEST): $(call lib_objs,guest/lib-obj)
$(LIBPCLAB) $(LIBPCLAB_ASAN) $(LIBPCLAB_GUEST):
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

# The version the programs print (--version), from scripts/version: one
# definition for the project.  $(B)/version changes only when the version
# does, so a second make does nothing; lib/version.c, the one file compiled
# with it, stays out of the archives, so a new commit relinks the programs
# that print it (pcviz and the tools), not every test.
PCLAB_VERSION := $(shell scripts/version)
$(call track,$(B)/version,$(PCLAB_VERSION))
VERSION_CFLAGS = -DPCLAB_VERSION='"$(PCLAB_VERSION)"'

$(B)/host/version.o: lib/version.c $(B)/version $(CFLAGS_FILE)
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(LIB_CFLAGS) $(VERSION_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/guest/version.o: lib/version.c $(B)/version $(CFLAGS_FILE)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)$(GUEST_CC) $(LIB_CFLAGS) $(VERSION_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# --- Guest programs and initramfs -------------------------------------------

GUEST_CC := gcc
# The guest suites are written on the kernel's kselftest harness
# (tools/testing/selftests/kselftest_harness.h in the extracted tree).
KSELFTEST := $(KSRC)/tools/testing/selftests
GUEST_CFLAGS := $(COMMON_CFLAGS) -static -isystem $(B)/headers/include -Iinclude -Itests/lib/both -Itests/lib/guest
GUEST_TEST_SRCS := $(sort $(wildcard tests/guest/*.c))
GUEST_TESTS := $(patsubst tests/guest/%.c,$(B)/guest/tests/%,$(GUEST_TEST_SRCS))
# The scripts the guest runs of labs/ and bench/: nothing else of them
# (handouts, answer keys, solutions, the host's scripts) enters the guest.
GUEST_LAB_FILES := $(sort $(wildcard labs/live.sh labs/lib/guest.sh labs/lib/proc.sh \
	labs/lab*/guest.sh labs/exercises/*/check.sh labs/kernel-exercises/guest.sh)) bench/guest.sh
GUEST_TEST_SCRIPTS := $(sort $(wildcard tests/guest/*.sh tests/lib/both/* tests/lib/guest/* tests/fixtures/*/*)) \
	tests/run-guest-suites tests/soak

# Suites that must fail, for tests/vm/harness.sh: built like the guest
# suites, run from the test tree's fixtures/.
GUEST_FIXTURES := $(patsubst tests/%.c,$(B)/guest/%,$(sort $(wildcard tests/fixtures/*/*.c)))

# The harness comes from the extracted kernel tree, hence its stamp: a fresh
# clone extracts the tree before it builds the suites.
GUEST_SUITE_DEPS = $(CFLAGS_FILE) $(LIBPCLAB_GUEST) $(HEADERS_STAMP) $(TREE_STAMP)
define guest_suite_cc
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -isystem $(KSELFTEST) $(DEPFLAGS) -o $@ $< $(LIBPCLAB_GUEST) -luring
endef

$(B)/guest/tests/%: tests/guest/%.c $(GUEST_SUITE_DEPS)
	$(guest_suite_cc)

$(B)/guest/fixtures/%: tests/fixtures/%.c $(GUEST_SUITE_DEPS)
	$(guest_suite_cc)

# The project's own tools, for the guest's /usr/local/bin: tools/NAME.c, or
# a folder of its own, tools/NAME/, for a tool of several files (iolab);
# tools/tool.h is what they share.  Objects, linked with libpclab.
IOLAB_SRCS := tools/iolab/main.c tools/iolab/options.c tools/iolab/stats.c
# iolab's kernel-free parts, also linked into the host's unit test.
IOLAB_LIB := tools/iolab/options.c tools/iolab/stats.c
ONE_FILE_TOOLS := $(patsubst tools/%.c,$(B)/guest/bin/%,$(sort $(wildcard tools/*.c)))
TOOLS := $(ONE_FILE_TOOLS) $(B)/guest/bin/iolab
GUEST_TOOLS := $(TOOLS)
tool_objs = $(patsubst tools/%.c,$(B)/guest/tools-obj/%.o,$(1))

$(B)/guest/tools-obj/%.o: tools/%.c $(CFLAGS_FILE) $(HEADERS_STAMP)
	@echo "  CC      $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(ONE_FILE_TOOLS): $(B)/guest/bin/%: $(B)/guest/tools-obj/%.o
$(B)/guest/bin/iolab: $(call tool_objs,$(IOLAB_SRCS))
$(TOOLS): $(B)/guest/version.o $(LIBPCLAB_GUEST)
	@echo "  LD      $@"
	$(Q)mkdir -p $(@D)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -o $@ $(filter %.o,$^) $(LIBPCLAB_GUEST) -luring -lm

HOST_CFLAGS := $(COMMON_CFLAGS)
# Host test programs run under ASan and UBSan; any report is fatal
# (-fno-sanitize-recover), so a report is a failed test.
SANITIZE := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all
IOLAB_UNIT_OBJS := $(patsubst tools/%.c,$(B)/host/tools-asan-obj/%.o,$(IOLAB_LIB))
$(B)/host/tools-asan-obj/%.o: tools/%.c $(CFLAGS_FILE)
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(HOST_CFLAGS) $(SANITIZE) $(DEPFLAGS) -Iinclude -c -o $@ $<

define host_test_cc
	@echo "  HOSTCC  $@"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)gcc $(HOST_CFLAGS) $(SANITIZE) $(DEPFLAGS) -Iinclude -Itests/lib/both -o $@ $< $(filter %.o %.a,$^) -lm
endef

$(B)/host/iolab-unit: tools/iolab/tests/iolab-unit.c $(IOLAB_UNIT_OBJS) $(LIBPCLAB_ASAN) $(CFLAGS_FILE)
	$(host_test_cc)

# lib/'s unit tests, fixtures included (tests/host/lib.sh)
$(B)/host/lib-unit: lib/tests/lib-unit.c $(LIBPCLAB_ASAN) $(CFLAGS_FILE)
	$(host_test_cc)

include pcviz/pcviz.mk

$(call track,$(CFLAGS_FILE),$(LIB_CFLAGS) | $(GUEST_CFLAGS) | $(HOST_CFLAGS) | $(SANITIZE) | \
	$(PCVIZ_CFLAGS) | $(value DEPFLAGS))

##@ Building
## make guest-programs: the guest's tools, suites and fixtures, without the initramfs
guest-programs: $(GUEST_TESTS) $(GUEST_FIXTURES) $(GUEST_TOOLS)

# The initramfs holds programs only: busybox, /init, the tools and pcviz.
$(INITRAMFS): initramfs/init initramfs/mkinitramfs initramfs/mkcpio initramfs/add-program \
		$(GEN_INIT_CPIO) $(GUEST_TOOLS) | $(DEPS_STAMP) $(TSC_KHZ)
	@echo "  INITRD  $@"
	$(Q)initramfs/mkinitramfs $(GEN_INIT_CPIO) $@ /usr/local/bin=$(B)/guest/bin

# What the guest reads at run time: run-vm shares a snapshot of
# build/guest/inputs read-only at /usr/share/pclab, where the lab, exercise
# and bench scripts keep their paths and the test tree (the suites, the
# fixtures and the scripts that run them) is /usr/share/pclab/tests, also
# /usr/lib/pclab/tests.  An edited script or a rebuilt suite needs no new
# initramfs.  Made afresh each time (rm -rf first), never written into:
# the snapshots of running guests are hard links to its files.
GUEST_INPUTS := $(B)/guest/inputs.stamp
$(GUEST_INPUTS): $(GUEST_TESTS) $(GUEST_FIXTURES) $(GUEST_TEST_SCRIPTS) $(GUEST_LAB_FILES)
	@echo "  INPUTS  $(B)/guest/inputs"
	$(Q)rm -rf $(B)/guest/inputs && mkdir -p $(B)/guest/inputs/tests/suites
	$(Q)mkdir -p $(B)/guest/inputs/tests/lib
	$(Q)cp -a tests/lib/both tests/lib/guest $(B)/guest/inputs/tests/lib/
	$(Q)cp -a tests/fixtures tests/run-guest-suites tests/soak $(B)/guest/inputs/tests/
	$(Q)cp -a $(B)/guest/fixtures/. $(B)/guest/inputs/tests/fixtures/
	$(Q)cp -a $(wildcard tests/guest/*.sh) $(GUEST_TESTS) $(B)/guest/inputs/tests/suites/
	$(Q)cp -a --parents $(GUEST_LAB_FILES) $(B)/guest/inputs/
	$(Q)touch $@

## make initramfs: the guest's root file system (build/initramfs.cpio) and what it
## reads at run time (build/guest/inputs)
initramfs: $(INITRAMFS) $(GUEST_INPUTS)
# Every target that boots a guest
run shell trace check soak $(LABS) $(GRADE_EXERCISES) grade-kernel grade-selftest bench: $(GUEST_INPUTS)

# --- Running -----------------------------------------------------------------

ifeq ($(filter release debug exercise,$(KERNEL)),)
$(error KERNEL=$(KERNEL): choose release or debug (or exercise, with EXERCISE=NAME))
endif
ifneq ($(filter run trace,$(MAKECMDGOALS)),)
ifeq ($(strip $(value CMD)),)
$(error make $(filter run trace,$(MAKECMDGOALS)): give the command, e.g. CMD='uname -r')
endif
endif

RUN_VM = initramfs/run-vm -k $(call shq,$(KIMAGE_$(KERNEL))) -i $(call shq,$(INITRAMFS)) \
	-n $(call shq,$(NAME)) -o $(call shq,$(RESULTS)) $(if $(EXTRA),-e $(call shq,$(EXTRA)))

# CMD goes through a file, verbatim: quotes, $ and newlines need no escaping.
# The file is this make's own (its process ID in the name), so two makes at
# once do not run each other's command; it is removed after the run.
cmd_file = $(B)/$(1).$(shell echo $$PPID).cmd

##@ Running (guest consoles log to results/NAME/console.log)
## make run CMD=...: run CMD in the guest (by /bin/sh); its status is make's
run: $(KIMAGE_$(KERNEL)) $(INITRAMFS)
	$(file >$(call cmd_file,run),$(value CMD))
	$(Q)status=0; $(RUN_VM) -C $(call cmd_file,run) || status=$$?; \
		rm -f -- $(call cmd_file,run); exit $$status

## make shell: interactive guest shell; exit powers it off, Ctrl-a x kills a stuck guest
shell: $(KIMAGE_$(KERNEL)) $(INITRAMFS)
	$(Q)$(RUN_VM) -I

EVENTS ?= filemap:mm_filemap_dropbehind_mark filemap:mm_filemap_dropbehind_serve \
	filemap:mm_filemap_dropbehind_claim filemap:mm_filemap_dropbehind_end \
	filemap:mm_filemap_dropbehind_call

## make trace CMD=... [EVENTS=...]: record CMD with trace-cmd, report it on the host
## (results/trace/report.txt; docs/tracepoints.md)
trace: $(KIMAGE_$(KERNEL)) $(INITRAMFS)
	$(file >$(call cmd_file,trace),$(value CMD))
	$(Q)status=0; scripts/trace $(call shq,$(KIMAGE_$(KERNEL))) $(call shq,$(INITRAMFS)) \
		$(call shq,$(if $(filter run,$(NAME)),trace,$(NAME))) $(call shq,$(EVENTS)) \
		$(call cmd_file,trace) || status=$$?; rm -f -- $(call cmd_file,trace); exit $$status

# --- Tests -------------------------------------------------------------------

# The series' end is built and linked in the release, debug and no-cgroups
# configurations, and the core series alone is booted for its contract suites
##@ Testing
## make check: build the four kernels (release, debug, no-cgroups, core alone) and run
## every test; results/check/summary.txt ends with N passed, N failed, N skipped
check: $(KIMAGE_debug) $(KIMAGE_release) $(KIMAGE_nocgroup) $(KIMAGE_core) $(INITRAMFS) \
		$(B)/host/iolab-unit $(B)/host/lib-unit $(EXERCISE_BINS) | $(DEPS_STAMP)
	$(Q)tests/run-check

## make soak [DURATION=30m]: the reliability suites in a loop on the debug kernel, a line
## per round; results/soak/summary.txt
soak: $(KIMAGE_debug) $(INITRAMFS) | $(DEPS_STAMP)
	$(Q)scripts/soak $(KIMAGE_debug) $(INITRAMFS) $(DURATION)

# --- Labs --------------------------------------------------------------------

# The host's pcviz decodes the labs' traces (labs/lib/facts.sh: trace_fact).
##@ Start here
## make lab1 ... lab6: run a lab (labs/labN/README.md); the first make lab1 installs
## the packages and builds what the labs need
$(LABS): %: $(KIMAGE_release) $(INITRAMFS) $(B)/host/pcviz
	$(Q)labs/$@/run

# Grading reads results/labN only: no kernel, no boot; the host's pcviz
# decodes the labs' traces again (labs/lib/facts.sh: trace_fact).
## make grade-lab1 ... grade-lab6: grade a lab's last run again (no boot)
$(GRADE_LABS): grade-%: $(B)/host/pcviz | $(DEPS_STAMP)
	$(Q)GRADE=1 labs/$*/run

## make grade: grade every lab again, one line each, one score (results/grade/grade.json)
grade: $(B)/host/pcviz | $(DEPS_STAMP)
	$(Q)labs/grade

## make lab1-compare ... lab6-compare: a lab's runs side by side, check by check: the last
## one and those kept in results/labN.runs/
$(COMPARE_LABS): %-compare: | $(DEPS_STAMP)
	$(Q)labs/compare $*

## make labs: every lab in order; a failing self-check stops the series
labs: $(LABS)

## make lab7 (= make grade-backup): the capstone: your backup beside a hot service
## (labs/lab7/README.md)
lab7: grade-backup

.PHONY: handin
## make handin: your predictions, answers, exercise sources and kept runs in one tar with
## a manifest, results/handin/handin-TIME.tar (labs/handin --help)
handin: | $(DEPS_STAMP)
	$(Q)labs/handin

# --- Exercises ---------------------------------------------------------------

# The student's program NAME is built from labs/exercises/NAME/NAME.c (or
# EXERCISE_SRC) into build/exercises/NAME/bin/NAME, the reference solution
# from labs/solutions/NAME.c into build/exercises/NAME/solution/bin/NAME,
# both like the guest tools (static, libpclab).  Neither goes into the
# initramfs: the grader hands the binary to the guest in run-vm's EXTRA.
# The student's source path is tracked, so EXERCISE_SRC=... rebuilds.
SOLUTION ?= 0
# A student release (make student-release) has no reference solutions
ifeq ($(wildcard labs/solutions/*.c),)
ifeq ($(SOLUTION),1)
$(error SOLUTION=1 grades the reference solutions, which this tree does not have (a student release: docs/instructors.md))
endif
ifneq ($(filter check,$(MAKECMDGOALS)),)
$(error make check grades the reference solutions and the kernel track's bugs, which this tree does not have (a student release: docs/instructors.md))
endif
endif
EXERCISE_SRC ?=
exercise_src = $(or $(EXERCISE_SRC),$(2)/$(1).c)
exercise_bin = $(B)/exercises/$(1)$(if $(filter 1,$(SOLUTION)),/solution)/bin/$(1)
EXERCISE_DEPS = $(CFLAGS_FILE) $(LIBPCLAB_GUEST) $(HEADERS_STAMP)
define exercise_cc
	@echo "  CC      $@ ($<)"
	$(Q)mkdir -p $(@D) $(dir $(depfile))
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBPCLAB_GUEST)
endef
# exercise_rules NAME DIR COMPILE DEPS: the student's NAME from DIR/NAME.c
# (or EXERCISE_SRC) and the reference from labs/solutions/NAME.c, each
# built by the recipe COMPILE with DEPS.  Another source rebuilds the
# program; the old one's .d goes first, so that a source since deleted is
# not asked for.
define exercise_rules
$(if $(call same_text,$(file <$(B)/exercises/$(1)/source),$(call exercise_src,$(1),$(2))),,$(shell \
	rm -f $(B)/dep/exercises/$(1)/bin/$(1).d))
$(call track,$(B)/exercises/$(1)/source,$(call exercise_src,$(1),$(2)))
$(B)/exercises/$(1)/bin/$(1): $(call exercise_src,$(1),$(2)) $(B)/exercises/$(1)/source $(4)
	$$($(3))
$(B)/exercises/$(1)/solution/bin/$(1): labs/solutions/$(1).c $(4)
	$$($(3))
grade-$(1): $(call exercise_bin,$(1))
endef
$(foreach e,$(EXERCISES),$(eval $(call exercise_rules,$(e),labs/exercises/$(e),exercise_cc,$(EXERCISE_DEPS))))

# graded on the release kernel, as the labs run
## make grade-ucat, make grade-ucp, make grade-backup: build and grade your exercise
## (labs/exercises/README.md); SOLUTION=1 grades the reference solution,
## EXERCISE_SRC=FILE another source
$(GRADE_EXERCISES): grade-%: $(KIMAGE_release) $(INITRAMFS)
	$(Q)EXERCISE_BIN=$(call exercise_bin,$*) labs/exercises/$*/grade

# --- Kernel exercises --------------------------------------------------------

# make kernel EXERCISE=NAME builds the debug kernel with the deliberate bug
# of labs/kernel-exercises/NAME.patch, from a git worktree of its own where
# the student fixes it.  The worktree repeats the checkout's layout
# (build/linux beside build/kernel/debug, under build/kernel-exercise/NAME)
# so that ccache, which hashes paths relative to that top, serves every file
# the bug does not touch.  Kbuild runs every time: the student's edits are
# what it must see, and it knows their dependencies.
define kex_name_ok
	$(if $(filter $(EXERCISE),$(KERNEL_EXERCISES)),,$(error EXERCISE=$(EXERCISE) is no kernel \
	exercise; there are: $(KERNEL_EXERCISES) (labs/kernel-exercises/README.md)))
endef

## make kernel EXERCISE=NAME: the kernel track: the debug kernel with a bug to find and fix,
## in a worktree of its own (labs/kernel-exercises/README.md);
## make shell KERNEL=exercise EXERCISE=NAME boots it
kernel-exercise: $(SERIES_STAMP) $(HEADERS_STAMP) $(GEN_INIT_CPIO)
	$(kex_name_ok)$(kbuild_path_ok)$(Q)kernel/scripts/exercise-tree $(KSRC) \
		labs/kernel-exercises/$(EXERCISE).patch $(KEX_SRC)
	@# configured once, and again only when a fragment changes: every grade runs this
	$(Q)stamp=$(KEX_OBJ)/.config-stamp; \
	if [ ! -e "$$stamp" ] || [ -n "$$(find $(DEBUG_FRAGMENTS) kernel/scripts/make-config -newer "$$stamp")" ]; then \
		kernel/scripts/make-config $(KEX_SRC) $(KEX_OBJ) $(DEBUG_FRAGMENTS) && touch "$$stamp"; \
	fi
	@echo "  KERNEL  $(EXERCISE) (log: $(KEX_TOP)/build/kernel/debug.log)"
	$(Q)kernel/scripts/build-kernel $(KEX_SRC) $(KEX_OBJ) $(KEX_TOP)/build/kernel/debug.log bzImage
	@echo "  KERNEL  $(KEX_IMAGE): the source to fix is $(KEX_SRC)"

## make kernel-reset EXERCISE=NAME: start the kernel exercise over from its bug
kernel-reset:
	$(kex_name_ok)$(Q)kernel/scripts/exercise-tree -r $(KSRC) \
		labs/kernel-exercises/$(EXERCISE).patch $(KEX_SRC)

## make grade-kernel EXERCISE=NAME: boot the exercise's kernel and grade it by the suite
## that catches its bug
grade-kernel: kernel-exercise $(INITRAMFS)
	$(Q)EXERCISE_KERNEL=$(KEX_IMAGE) labs/kernel-exercises/grade $(EXERCISE)

# The kernel track's testing exercise: the student's tests are a guest
# suite (labs/kernel-exercises/selftest/selftest.c), graded by the bugs
# they catch: the grader builds the debug kernel with each bug, once, in
# build/kernel-mutant (labs/kernel-exercises/selftest/grade).
$(eval $(call exercise_rules,selftest,labs/kernel-exercises/selftest,guest_suite_cc,$(GUEST_SUITE_DEPS)))
.PHONY: grade-selftest
## make grade-selftest: the kernel track's testing exercise: your tests on the series'
## kernel and on kernels with bugs planted, a point per bug they catch
## (labs/kernel-exercises/README.md); SOLUTION=1, EXERCISE_SRC=FILE as for the exercises
grade-selftest: $(KIMAGE_debug) $(INITRAMFS) $(SERIES_STAMP) $(HEADERS_STAMP) $(GEN_INIT_CPIO)
	$(Q)EXERCISE_BIN=$(call exercise_bin,selftest) labs/kernel-exercises/selftest/grade

# --- Benchmarks --------------------------------------------------------------

# The same source without the series, for BASELINE=1: a git worktree at the
# pristine tag, configured like the release kernel.
BASE_SRC := $(B)/linux-base
KIMAGE_baseline := $(call kimage,baseline)
BASELINE_FRAGMENTS := $(CONFIG_FRAGMENTS) $(sort $(wildcard kernel/config/baseline/*.config))

$(STAMP)/base-tree: $(TREE_STAMP)
	@echo "  TREE    $(BASE_SRC) (pclab-base: no series)"
	$(Q)rm -rf $(BASE_SRC) && git -C $(KSRC) worktree prune
	$(Q)git -C $(KSRC) worktree add -q --detach $(abspath $(BASE_SRC)) pclab-base
	$(Q)touch $@

$(eval $(call config_stamp,baseline,$(B)/kernel/baseline,$(BASE_SRC),$(STAMP)/base-tree,$(BASELINE_FRAGMENTS)))

$(KIMAGE_baseline): $(B)/kernel/baseline/.config-stamp
	$(kbuild_path_ok)@echo "  KERNEL  baseline (log: $(B)/kernel/baseline.log)"
	$(Q)kernel/scripts/build-kernel $(BASE_SRC) $(B)/kernel/baseline $(B)/kernel/baseline.log bzImage
	$(Q)touch $@

BASELINE ?= 0
## make bench [BASELINE=1] [QUICK=1] [BENCH_PERF=1] [BENCH_SCENARIOS="cseqread fsync ..."]:
## the benchmark matrix (docs/bench.md): results/bench/summary.md, CSVs, plots;
## BASELINE=1 also builds and measures the kernel without the series;
## BENCH_PERF=1 profiles the matrix's runs (a perf report per run)
bench: $(KIMAGE_release) $(INITRAMFS) $(if $(filter 1,$(BASELINE)),$(KIMAGE_baseline))
	$(Q)bench/run

##@ Instructors
RELEASE_DIR ?= $(B)/student-release
.PHONY: student-release
## make student-release [RELEASE_DIR=...]: the tree to hand to students (build/student-release):
## HEAD without answer keys, solutions, bug patches and expected results (docs/instructors.md)
student-release:
	$(Q)scripts/student-release $(call shq,$(RELEASE_DIR))

# The handouts' reference runs (labs/reference/record): make LAB and make
# LAB QUICK=1 as a student runs them, each a boot of its own
REFERENCE_LABS := $(filter $(patsubst labs/%/predictions.txt,%,$(wildcard labs/lab*/predictions.txt)),$(LABS))
.PHONY: reference
## make reference LAB=labN: run make LAB and make LAB QUICK=1 as a student does, keep what
## they measured with the commit (labs/reference/), rewrite the handout's reference-run table
reference: | $(DEPS_STAMP)
	$(if $(filter $(REFERENCE_LABS),$(LAB)),,$(error name a lab: make reference LAB=labN, one of $(REFERENCE_LABS)))
	$(Q)labs/reference/record $(LAB)
	$(Q)labs/reference/record $(LAB) quick
	$(Q)labs/reference/render --write $(LAB)

.PHONY: grade-submission
## make grade-submission SUBMISSION=FILE.tar: grade a make handin archive from its exercise
## sources alone, each in a fresh guest, with the hidden tests: results/submission/
## (docs/instructors.md, "Grading a submission")
grade-submission: $(KIMAGE_release) $(INITRAMFS) $(GUEST_INPUTS) | $(DEPS_STAMP)
	$(if $(SUBMISSION),,$(error name the archive: make grade-submission SUBMISSION=FILE.tar))
	$(Q)labs/grade-submission $(call shq,$(SUBMISSION))

# --- Cleaning ----------------------------------------------------------------

##@ Cleaning
## make clean: remove results and project build outputs
clean:
	$(Q)rm -rf results $(B)/guest $(B)/vm $(B)/host $(B)/submission $(B)/dep/submission $(INITRAMFS) \
		$(INITRAMFS).root

## make distclean: also remove the extracted kernel tree, kernels and images
distclean: clean
	$(Q)rm -rf $(B)

# --- Help --------------------------------------------------------------------

##@ Start here
## make help: this list, with the variables' current values
help:
	@echo 'pclab: a page-cache laboratory'
	@awk '/^##@ / { h = substr($$0, 5); if (!(h in text)) { order[n++] = h; text[h] = "" } \
			entry = 0; next } \
		/^## / { line = substr($$0, 4) } \
		/^## / && !entry && match(line, /:( |$$)/) { use = substr(line, 1, RSTART - 1); \
			line = substr(line, RSTART + 2); entry = 1; \
			text[h] = text[h] (line == "" ? "  " use "\n" : length(use) < 16 ? \
				sprintf("  %-17s%s\n", use, line) : "  " use "  " line "\n"); next } \
		/^## / { text[h] = text[h] sprintf("%19s%s\n", "", line); next } \
		{ entry = 0 } \
		END { for (i = 0; i < n; i++) if (text[order[i]] != "") \
			printf "\n%s:\n%s", order[i], text[order[i]] }' \
		$(filter-out %.d,$(MAKEFILE_LIST))
	@echo
	@echo 'Variables (current values):'
	@echo '  MEM=$(MEM)        guest memory in MiB'
	@echo '  CPUS=$(CPUS)         guest CPUs'
	@echo '  KERNEL=$(KERNEL)   kernel for run/shell/trace: release, debug, or exercise (EXERCISE=NAME)'
	@echo '  CMD=$(CMD)'
	@echo '                   command for make run (run by /bin/sh in the guest)'
	@echo '  EXTRA=$(EXTRA)'
	@echo '                   host directory copied to /extra in the guest, first on PATH'
	@echo '  NAME=$(NAME)        run name: results land in results/NAME'
	@echo '  TIMEOUT=$(TIMEOUT)      seconds before a run is killed (0: never)'
	@echo '  EVENTS=$(EVENTS)'
	@echo '                   events for make trace'
	@echo '  DURATION=$(DURATION)    how long make soak runs (s, m or h)'
	@echo '  QUICK=1          labs with small sizes (what make check runs)'
	@echo '  LIVE=1           labs: pcviz shows the lab'"'"'s files live while it runs'
	@echo '  PREDICT=skip     labs: run without your predictions (a lab otherwise waits for them)'
	@echo '  LAB_DATA_MIB, LAB_SECONDS, LAB_FS   lab data set (default 10x MEM), timed runs, ext4/xfs'
	@echo '  V=$(V)            1 shows every command'

# The header dependencies of every C output (DEPFLAGS)
-include $(shell find $(B)/dep -name '*.d' 2>/dev/null)
