# SPDX-License-Identifier: MIT
# Front door.  `make` builds build/confine; `make demo` installs what is missing, builds and
# shows the sandbox at work; `make check` runs every test.
BUILD ?= build
MESON_OPTS ?=
PREFIX ?= /usr/local

.PHONY: all deps demo check integration bench install clean format format-check windows check-windows

# A tree set up before meson.build made PIE the default keeps b_pie=false (meson applies
# default_options at setup only): it is set here, so that tests/cli/hardening.t holds there too.
all: $(BUILD)/build.ninja
	@meson configure $(BUILD) | grep -Eq '^ *b_pie +true ' || meson configure $(BUILD) -Db_pie=true
	ninja -C $(BUILD)

# Warnings are errors in the project's own builds (a plain `meson setup` leaves them warnings).
$(BUILD)/build.ninja:
	@command -v meson >/dev/null && command -v ninja >/dev/null || scripts/install-deps build
	meson setup $(BUILD) --prefix=$(PREFIX) -Dwerror=true $(MESON_OPTS)

deps:
	scripts/install-deps build

demo:
	scripts/install-deps build
	$(MAKE) all
	scripts/demo $(BUILD)

# JOBS: test files at a time (tests/run -j; default twice the CPUs).
check:
	scripts/install-deps test
	$(MAKE) all
	tests/run $(if $(JOBS),-j $(JOBS)) $(BUILD)

# What reaches beyond loopback (the npm registry: the official MCP server and SDK; npm install
# and npx with the tool caches, R39), on both backends; not part of `check`.  Without the
# registry each check is a loud skip (exit status 77).
integration: all
	CONFINE_BUILD=$(BUILD) bash tests/integration/mcp-sdk.sh
	CONFINE_BUILD=$(BUILD) CONFINE_TEST_BACKEND=landlock bash tests/integration/mcp-sdk.sh
	CONFINE_BUILD=$(BUILD) bash tests/integration/npm-registry.sh

bench:
	scripts/install-deps bench
	$(MAKE) all
	bench/run $(BUILD)

# Windows (SPEC 10): confine.exe cross-built with MinGW-w64, warnings as errors; its tests run
# under Wine (tests/windows/run-wine).  Write protection is tested under Wine, not on Windows.
BUILD_WINDOWS ?= build-windows

windows:
	scripts/install-deps windows
	test -f $(BUILD_WINDOWS)/build.ninja || \
	  meson setup $(BUILD_WINDOWS) --cross-file meson/x86_64-w64-mingw32.ini -Dwerror=true
	ninja -C $(BUILD_WINDOWS)

check-windows: windows
	tests/windows/run-wine $(BUILD_WINDOWS)

install: all
	meson install -C $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD_WINDOWS)
