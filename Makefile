# mcpfs — plain Makefile. `make`, `make check`, `make demo`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=`. SANITIZER=1 builds with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
LIBDIR = $(PREFIX)/lib/mcpfs
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/mcpfs
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
UNITDIR ?= $(PREFIX)/lib/systemd/system

PKGS = fuse3 jansson msgpack libcurl libpcre2-8 libseccomp libmicrohttpd libcrypto
PKG_CONFIG ?= pkg-config
ifneq ($(filter-out deps deps-test deps-bench deps-system clean help,$(MAKECMDGOALS) all),)
PKG_MISSING := $(shell for p in $(PKGS); do $(PKG_CONFIG) --exists $$p || echo $$p; done)
endif

CC ?= cc
WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wswitch-enum -Wno-format-nonliteral
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -MMD -MP \
	-DMCPFS_SRCDIR='"$(CURDIR)"' -DMCPFS_LIBDIR='"$(LIBDIR)"' \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl, libcrypto and libmicrohttpd are dlopen'ed on first use
# (servers/curl_lib.c, crypto_lib.c, serve/mhd_lib.c): their headers only;
# the unit tests link libcrypto to check it.
# libseccomp runs at build time only: it turns the jail's policy into BPF.
LIBS = $(shell $(PKG_CONFIG) --libs $(filter-out libcurl libcrypto libseccomp libmicrohttpd,$(PKGS)) 2>/dev/null) \
       -ldl -lpthread -lm
SECCOMP_LIBS = $(shell $(PKG_CONFIG) --libs libseccomp 2>/dev/null)

ifeq ($(SANITIZER),1)
BUILD ?= build-asan
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD ?= build
endif

PARTS = common servers codegen search tree fusefs executor workspaces skills pii policy serve cli
SRC = $(foreach d,$(PARTS),$(wildcard $(d)/*.c))
OBJ = $(SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/templates_embed.o $(BUILD)/gen/default_config.o \
      $(BUILD)/gen/executor_embed.o $(BUILD)/gen/workspaces_embed.o $(BUILD)/gen/seccomp_filter.o
LIB_OBJ = $(filter-out $(BUILD)/cli/main.o,$(OBJ))
TEMPLATES = $(sort $(wildcard templates/*.py templates/*.ts templates/*.md templates/*.tmpl))
WS_TEMPLATES = $(sort $(wildcard templates/workspace/*))
JAIL_RUNTIME = executor/runtime/ts.cjs
# The rest of the jail's TypeScript runtime (executor/runtime/README.md):
# sucrase bundled, with a V8 code cache that only the node which made it
# accepts, so it is built here by the jail's node, after `make deps`.
JAIL_NODE = /usr/bin/node
RUNTIME_DIST = executor/runtime/dist/sucrase.cache
RUNTIME_BUILT = $(if $(wildcard executor/runtime/node_modules/esbuild),$(RUNTIME_DIST))

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check test unit demo bench install uninstall clean deps deps-test deps-bench deps-system deps-npm format-check help
all: $(BUILD)/mcpfs $(RUNTIME_BUILT)

$(RUNTIME_DIST): executor/runtime/build.mjs executor/runtime/ts.cjs \
		executor/runtime/package-lock.json $(wildcard $(JAIL_NODE))
	@echo "  GEN executor/runtime/dist"
	@$(JAIL_NODE) --experimental-vm-modules executor/runtime/build.mjs

$(BUILD)/mcpfs: $(OBJ) | pkgcheck
	@echo "  LD $@"
	@$(CC) $(LDFLAGS) -o $@ $(OBJ) $(LIBS)

$(BUILD)/libmcpfs.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $(LIB_OBJ)

$(BUILD)/%.o: %.c | pkgcheck
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/templates_embed.c: $(TEMPLATES) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh cg_embedded_files $(TEMPLATES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/default_config.c: servers/default.json scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh config_embedded_files servers/default.json > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/executor_embed.c: $(JAIL_RUNTIME) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh executor_embedded_files $(JAIL_RUNTIME) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/workspaces_embed.c: $(WS_TEMPLATES) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh ws_embedded_files $(WS_TEMPLATES) > $@.tmp && mv $@.tmp $@

# The jail's seccomp filter, compiled from its policy once, here.
$(BUILD)/gen/seccomp_policy: executor/policy/seccomp_policy.c | pkgcheck
	@mkdir -p $(dir $@)
	@echo "  LD $@"
	@$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(SECCOMP_LIBS)

$(BUILD)/gen/seccomp_filter.c: $(BUILD)/gen/seccomp_policy
	$< > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmcpfs.a
	@mkdir -p $(dir $@)
	@echo "  LD $@"
	@$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libmcpfs.a $(LIBS) \
		$(shell $(PKG_CONFIG) --libs libcrypto 2>/dev/null)

.PHONY: pkgcheck
pkgcheck:
ifneq ($(strip $(PKG_MISSING)),)
	$(error missing libraries: $(PKG_MISSING); run 'make deps' (as root it installs the Debian -dev packages))
endif

unit: $(UNIT_BIN)

deps:
	sh scripts/deps.sh

deps-test:
	sh scripts/deps.sh --test

deps-bench:
	sh scripts/deps.sh --bench

# The full suite: C unit tests and end-to-end tests against real servers, for
# the plain build and once more under ASan+UBSan, and the format check.
# pytest prints the summary, the last line CI reads.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

check: deps-test
	$(MAKE) -j$(JOBS) all unit
	$(MAKE) -j$(JOBS) SANITIZER=1 all unit
	sh scripts/check.sh

demo: deps
	$(MAKE) -j$(JOBS) all
	sh scripts/demo.sh

bench: deps-bench
	$(MAKE) -j$(JOBS) all
	sh bench/run.sh

format-check:
	sh scripts/format-check.sh

# What goes where: README.md, "Install". The config is not replaced when
# present (it may be edited); uninstall removes it only when unchanged.
install: $(BUILD)/mcpfs $(RUNTIME_BUILT)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/servers $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/mcpfs
	install -m 0755 $(BUILD)/mcpfs $(DESTDIR)$(BINDIR)/mcpfs
	cp -R servers/package.json servers/package-lock.json $(DESTDIR)$(LIBDIR)/servers/
	if [ -d servers/node_modules ]; then cp -R servers/node_modules $(DESTDIR)$(LIBDIR)/servers/; fi
	if [ -d executor/runtime/dist ]; then install -d $(DESTDIR)$(LIBDIR)/runtime/dist && \
		install -m 0644 executor/runtime/dist/sucrase.js executor/runtime/dist/sucrase.cache \
		$(DESTDIR)$(LIBDIR)/runtime/dist/; fi
	install -m 0644 dist/mcpfs.1 $(DESTDIR)$(MANDIR)/man1/mcpfs.1
	install -m 0644 dist/mcpfs.bash $(DESTDIR)$(BASHCOMPDIR)/mcpfs
	install -m 0644 dist/_mcpfs $(DESTDIR)$(ZSHCOMPDIR)/_mcpfs
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' dist/mcpfs.service.in \
		> $(DESTDIR)$(UNITDIR)/mcpfs.service && chmod 0644 $(DESTDIR)$(UNITDIR)/mcpfs.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/mcpfs/config.json ] || \
		install -m 0644 servers/default.json $(DESTDIR)$(SYSCONFDIR)/mcpfs/config.json
	install -m 0644 README.md BENCHMARKS.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mcpfs $(DESTDIR)$(MANDIR)/man1/mcpfs.1 \
		$(DESTDIR)$(BASHCOMPDIR)/mcpfs $(DESTDIR)$(ZSHCOMPDIR)/_mcpfs \
		$(DESTDIR)$(UNITDIR)/mcpfs.service
	rm -rf $(DESTDIR)$(LIBDIR) $(DESTDIR)$(DOCDIR)
	if cmp -s servers/default.json $(DESTDIR)$(SYSCONFDIR)/mcpfs/config.json; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/mcpfs/config.json; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/mcpfs 2>/dev/null || true; fi

clean:
	rm -rf build build-asan executor/runtime/dist

help:
	@echo "make | make check | make demo | make bench | make install PREFIX=... DESTDIR=... | make uninstall | make clean"

-include $(OBJ:.o=.d)
