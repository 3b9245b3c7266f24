# fleetmark: controller (src/), agent (agent/), tests (tests/).
#
#   make                 controller and native agent, into build/
#   make agents          static agents for every architecture (build/agents/ARCH/)
#   make test            build, then run every unit and end-to-end test
#   make check           the unit tests and the e2e tests that need no lab
#                        (plain build: no sanitizers, valgrind or fuzzing)
#   make install         PREFIX=/usr/local DESTDIR= (programs, agents, man pages,
#                        bash completion)
#   make SANITIZE=address,undefined   instrumented build (in build-san/)
#   make valgrind        the unit tests under valgrind (no error, no leak)
#   make fuzz            build the libFuzzer targets (build-fuzz/) and run each
#                        for FUZZ_SECONDS (default 20); needs clang
#   make V=1             show the commands
#
# CFLAGS/LDFLAGS are the user's; the flags the project needs are kept apart
# in AGENT_CFLAGS/CTL_CFLAGS and AGENT_LIBS/CTL_LIBS, and come first on each
# command line.  Warnings are errors when WERROR=1 (set when CI is).

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/lib/fleetmark
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
CC         ?= cc
CFLAGS     ?= -O2 -g
LDFLAGS    ?=
PKG_CONFIG ?= pkg-config
SANITIZE   ?=
WERROR     ?= $(if $(CI),1,)

ifeq ($(SANITIZE),)
BUILD ?= build
else
BUILD ?= build-san
# -O1 after the user's CFLAGS, as ASan's documentation suggests: the
# instrumented build compiles in 60% of the time -O2 takes, and finds the
# same errors.  gcc's may-be-uninitialized guesses differ between -O1 and
# -O2; the plain build keeps that warning.
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all \
	    -O1 -Wno-maybe-uninitialized
endif

ifeq ($(V),1)
Q =
msg = @true
else
Q = @
msg = @printf '  %-7s %s\n' $(1) $(2);
endif

WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	   -Wpointer-arith -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation -Wundef
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

# --- agent: C99, POSIX, pthreads; nothing else --------------------------------
AGENT_SRCS   = $(sort $(wildcard agent/*.c agent/bench/*.c))
AGENT_OBJS   = $(AGENT_SRCS:%.c=$(BUILD)/%.o)
AGENT_CFLAGS = -std=c99 -D_GNU_SOURCE -Iagent -Iinclude $(WARNINGS)
AGENT_LIBS   = -lpthread -lm

# --- controller -----------------------------------------------------------------
LIBS_PC      = libssh yaml-0.1 libcurl jansson libcrypto libxml-2.0
CTL_SRCS     = $(sort $(wildcard src/*.c src/*/*.c))
CTL_OBJS     = $(CTL_SRCS:%.c=$(BUILD)/%.o)
# pkg-config is asked once, when the controller's flags are first needed (not
# for `make agents`, `lint` or `clean`), with its errors shown; a package it
# cannot find stops the build in pc-check, before anything is compiled.
PC_CFLAGS    = $(eval PC_CFLAGS := $$(shell $$(PKG_CONFIG) --cflags $$(LIBS_PC)))$(PC_CFLAGS)
PC_LIBS      = $(eval PC_LIBS := $$(shell $$(PKG_CONFIG) --libs $$(LIBS_PC)))$(PC_LIBS)
CTL_CFLAGS   = -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(WARNINGS) -DFLEETMARK_LIBEXECDIR='"$(LIBEXECDIR)"' \
	       $(PC_CFLAGS)
CTL_LIBS     = $(PC_LIBS) -lpthread -lm

# --- unit tests: tests/unit/test-NAME.c -------------------------------------------
# Each is linked with an archive of every agent and controller object but
# the two mains: the linker takes only the objects the test reaches, so a
# test links in a third of the time and is a hundredth of the size, which
# valgrind and ASan then have less to read and register.
UNIT_SRCS    = $(sort $(wildcard tests/unit/test-*.c))
UNIT_BINS    = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
AGENT_LIB_OBJS = $(filter-out $(BUILD)/agent/main.o,$(AGENT_OBJS))
CTL_LIB_OBJS   = $(filter-out $(BUILD)/src/main.o,$(CTL_OBJS))
UNIT_LIB     = $(BUILD)/tests/libfleetmark.a

# --- fuzz targets: tests/fuzz/fuzz-NAME.c, with clang's libFuzzer -------------
# Their own object set in build-fuzz/: every module but the mains, compiled
# with clang for coverage-guided fuzzing under ASan and UBSan.  FUZZ_CFLAGS
# is the user's (CFLAGS may hold flags only gcc knows); tests/fuzz/run runs
# each target for FUZZ_SECONDS (`make fuzz`) or FUZZ_TEST_SECONDS (as a part
# of `make test`, which has a fresh clone's whole suite to get through).
FUZZ_CC      ?= clang
FUZZ_CFLAGS  ?= -O1 -g
FUZZ_SECONDS ?= 20
FUZZ_TEST_SECONDS ?= 12
FUZZ         = build-fuzz
FUZZ_SAN     = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_FLAGS   = $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Wno-unknown-warning-option \
	       -DFUZZ_DATA_DIR='"$(CURDIR)/tests/fuzz"'
FUZZ_SRCS    = $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BINS    = $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ)/%)
FUZZ_LIB_OBJS = $(AGENT_SRCS:%.c=$(FUZZ)/%.o) $(CTL_SRCS:%.c=$(FUZZ)/%.o) $(FUZZ)/tests/fuzz/util.o
FUZZ_LIB_OBJS := $(filter-out $(FUZZ)/agent/main.o $(FUZZ)/src/main.o,$(FUZZ_LIB_OBJS))
FUZZ_LIB     = $(FUZZ)/libfleetmark.a

# --- static agents, one per architecture ----------------------------------------
# x86_64 links with musl (a static glibc binary is ~870 KB, with musl ~120 KB);
# the others with Debian's glibc cross toolchains.
AGENT_ARCHES   = x86_64 aarch64 armhf ppc64 ppc64el s390x
AGENT_CC_x86_64  = musl-gcc
AGENT_CC_aarch64 = aarch64-linux-gnu-gcc
AGENT_CC_armhf   = arm-linux-gnueabihf-gcc
AGENT_CC_ppc64   = powerpc64-linux-gnu-gcc
AGENT_CC_ppc64el = powerpc64le-linux-gnu-gcc
AGENT_CC_s390x   = s390x-linux-gnu-gcc
AGENT_BINS     = $(AGENT_ARCHES:%=$(BUILD)/agents/%/fleetmark-agent)
# musl's include directory has no kernel headers (linux/perf_event.h for
# the perf-stat monitor): the host's, linked into a directory of their own
# so that no glibc header comes along.
KHEADERS       = $(BUILD)/musl-kheaders
AGENT_INC_x86_64 = -isystem $(KHEADERS)
STATIC_FLAGS   = -O2 -static -s -ffunction-sections -fdata-sections -Wl,--gc-sections

PROGRAMS = $(BUILD)/fleetmark-agent $(if $(CTL_SRCS),$(BUILD)/fleetmark)

# Static agents built earlier (make agents) are rebuilt with the programs
# when the agent's sources change, so a plain `make` never leaves a stale
# agent to be deployed.
all: $(PROGRAMS) $(filter $(wildcard $(BUILD)/agents/*/fleetmark-agent),$(AGENT_BINS))

$(BUILD)/agent/%.o: agent/%.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(AGENT_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/src/%.o: src/%.c | pc-check
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CTL_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%.o: tests/unit/%.c | pc-check
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CTL_CFLAGS) -Iagent -Itests/unit $(CFLAGS) $(SAN_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/fleetmark-agent: $(AGENT_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(AGENT_LIBS)

$(BUILD)/fleetmark: $(CTL_OBJS) | pc-check
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(CTL_LIBS)

$(UNIT_LIB): $(AGENT_LIB_OBJS) $(CTL_LIB_OBJS)
	$(call msg,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tests/test-%: $(BUILD)/tests/test-%.o $(UNIT_LIB) | pc-check
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(CTL_LIBS) $(AGENT_LIBS)

$(FUZZ)/agent/%.o: agent/%.c
	$(call msg,FUZZCC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(AGENT_CFLAGS) $(FUZZ_CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

$(FUZZ)/src/%.o: src/%.c | pc-check
	$(call msg,FUZZCC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(CTL_CFLAGS) $(FUZZ_CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

$(FUZZ)/tests/fuzz/%.o: tests/fuzz/%.c | pc-check
	$(call msg,FUZZCC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(CTL_CFLAGS) -Iagent -Itests/fuzz $(FUZZ_CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ)/fuzz-%: $(FUZZ)/tests/fuzz/fuzz-%.o $(FUZZ_LIB) | pc-check
	$(call msg,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(CTL_LIBS) $(AGENT_LIBS)

# One static, stripped binary per architecture, compiled in one step.
$(BUILD)/agents/%/fleetmark-agent: $(AGENT_SRCS) $(wildcard agent/*.h include/wire.h) | $(KHEADERS)
	$(call msg,STATIC,$@)
	@command -v $(AGENT_CC_$*) >/dev/null || { echo "make agents: $(AGENT_CC_$*) not found (run tools/deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(Q)$(AGENT_CC_$*) $(AGENT_CFLAGS) $(AGENT_INC_$*) $(STATIC_FLAGS) -o $@.tmp $(AGENT_SRCS) $(AGENT_LIBS) && mv $@.tmp $@

$(KHEADERS):
	@mkdir -p $@.tmp
	@ln -sfn /usr/include/linux $@.tmp/linux
	@ln -sfn /usr/include/asm-generic $@.tmp/asm-generic
	@ln -sfn /usr/include/$$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/asm $@.tmp/asm
	@rm -rf $@ && mv $@.tmp $@

agents: $(AGENT_BINS)

unit: $(UNIT_BINS)

# The unit tests again under ASan and UBSan (build-san/tests/), for tests/run.
san-unit:
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined unit

# The unit tests under valgrind's memcheck (tests/run's vg/test-*).
valgrind: unit
	tests/run vg/

# The controller built with ASan and UBSan (build-san/fleetmark): tests/run
# runs the e2e tests with it when it is there.  After san-unit: two make
# processes must not build the same build-san/ objects at once.
san-ctl: san-unit
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined build-san/fleetmark

fuzzers: $(FUZZ_BINS)

fuzz: fuzzers
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run

# The fuzz targets are built by tests/run, on one core beside the first
# tests (which leave one free most of the time), rather than before them.
test: all agents unit san-unit san-ctl
	FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) FLEETMARK_SUITE_BUILD=fuzzers tests/run $(T)

check: all unit
	FLEETMARK_CHECK=1 tests/run $(T)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(LIBEXECDIR)/src/agent/bench $(DESTDIR)$(LIBEXECDIR)/src/include
	install -m 644 agent/*.c agent/*.h agent/Makefile $(DESTDIR)$(LIBEXECDIR)/src/agent/
	install -m 644 agent/bench/*.c $(DESTDIR)$(LIBEXECDIR)/src/agent/bench/
	install -m 644 include/wire.h $(DESTDIR)$(LIBEXECDIR)/src/include/
	for a in $(AGENT_ARCHES); do \
		if [ -f $(BUILD)/agents/$$a/fleetmark-agent ]; then \
			install -d $(DESTDIR)$(LIBEXECDIR)/agents/$$a && \
			install -m 755 $(BUILD)/agents/$$a/fleetmark-agent $(DESTDIR)$(LIBEXECDIR)/agents/$$a/; \
		fi; \
	done
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 docs/man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 contrib/completion/fleetmark.bash $(DESTDIR)$(BASHCOMPDIR)/fleetmark

# The packages the controller needs, or pkg-config's own message and a stop.
pc-check:
	@$(PKG_CONFIG) --print-errors --exists $(LIBS_PC) || { \
		echo "make: pkg-config cannot find what the controller needs ($(LIBS_PC)); run tools/deps" >&2; \
		exit 1; }

# tools/check-includes keeps each src/X/*-int.h inside its family; cppcheck
# runs under each part's own standard (the agent is C99, the controller C11).
lint:
	tools/check-includes
	tools/test-costs --check docs/testing.md
	cppcheck --quiet --error-exitcode=1 --std=c99 -D_GNU_SOURCE -Iagent -Iinclude \
		--suppress=missingIncludeSystem agent
	cppcheck --quiet --error-exitcode=1 --std=c11 -D_GNU_SOURCE -Iinclude -Isrc \
		--library=tools/cppcheck-jansson.cfg \
		--suppress=missingIncludeSystem src
	shellcheck -x tests/run tools/test-costs tests/fuzz/run tests/lib.sh tests/e2e/*.sh tests/lab/lab tests/lab/qemu-board tests/lab/archive tests/lab/s3 tests/bench/*.sh \
		tools/deps tools/check-includes .ci/run contrib/completion/fleetmark.bash

clean:
	rm -rf build build-san build-fuzz tests/out

# `make -s print-CTL_LIBS`: a variable's value, for scripts that link
# against the controller's objects (tests/e2e/t300).
print-%:
	@echo $($*)

.PHONY: all agents unit san-unit san-ctl valgrind fuzzers fuzz test check install lint clean pc-check
.DELETE_ON_ERROR:
.SECONDARY:

-include $(AGENT_OBJS:.o=.d) $(CTL_OBJS:.o=.d) $(UNIT_BINS:%=%.d) \
	 $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_BINS:$(FUZZ)/%=$(FUZZ)/tests/fuzz/%.d)
