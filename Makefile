# hookd's entry points. `make run` and `make test` work on a fresh Debian 12 as root.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS       ?= $(shell nproc)
LISTEN     ?= 127.0.0.1:8071
DATABASE   ?= ./hookd.db
CMAKE_FLAGS ?=
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: all deps build build-hookd build-asan build-tsan tsan run install check test soak bench fuzz format tidy clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHOOKD_SANITIZE=ON \
	  -DHOOKD_BUILD_BENCH=OFF $(CMAKE_FLAGS)

$(TSAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHOOKD_TSAN=ON \
	  -DHOOKD_BUILD_BENCH=OFF $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The sanitizer build compiles only the unit-test binaries it runs (scripts/test.sh).
build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target hookd_unit_tests

# ThreadSanitizer on the concurrent parts' test binaries (scripts/tsan.sh lists them).
build-tsan: deps $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $$(bash scripts/tsan.sh --targets)

tsan: build-tsan
	@bash scripts/tsan.sh $(TSAN_BUILD)

# The daemon alone (no tests, no benchmarks): what `make run` needs.
build-hookd: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target hookd

# Without TOKEN (or [auth] tokens in CONFIG) hookd generates an API token and prints it once.
# Builds only the daemon, so a new user sees it listening as soon as possible.
run: build-hookd
	./$(BUILD)/hookd serve --listen $(LISTEN) --database $(DATABASE) \
	  $(if $(CONFIG),--config $(CONFIG)) $(if $(TOKEN),--token $(TOKEN))

# The daemon, its systemd unit, man page and configs, and the C++ library (libhookd.a,
# include/hookd, hookd.pc) under PREFIX, staged under DESTDIR if given (docs/operations.md,
# "Install as a service").
install: build-hookd
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

# The quick suite between commits: Release unit tests + one end-to-end smoke per job
# (scripts/check.sh, docs/testing.md).
check:
	@BUILD=$(BUILD) JOBS=$(JOBS) CMAKE_FLAGS="$(CMAKE_FLAGS)" bash scripts/check.sh

# Everything: deps, both builds, ASan unit tests, the whole Release suite, each phase timed
# (scripts/test.sh configures and builds the trees itself).
test:
	@BUILD=$(BUILD) ASAN_BUILD=$(ASAN_BUILD) JOBS=$(JOBS) CMAKE_FLAGS="$(CMAKE_FLAGS)" \
	  bash scripts/test.sh

# The soak (tests/soak, docs/testing.md): SQLite and PostgreSQL side by side, SOAK_SECONDS each
# (make test runs them for 120 s).
SOAK_SECONDS ?= 1800
soak: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target hookd hookd_soak_tests
	HOOKD_SOAK_SECONDS=$(SOAK_SECONDS) ctest --test-dir $(BUILD) -L soak -j 2 \
	  --output-on-failure --timeout $$(( $(SOAK_SECONDS) + 900 ))

bench: build
	@bash bench/run.sh

# Random-seeded fuzzing of the parsers and the API under ASan+UBSan (A33), FUZZ_SECONDS per
# target, or FUZZ_RUNS inputs per target if given; a finding is written to
# fuzz-finding-<target>.bin (docs/testing.md).
FUZZ_SECONDS ?= 30
FUZZ_RUNS ?=
fuzz: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target hookd_fuzz
	./$(ASAN_BUILD)/tests/fuzz/hookd_fuzz \
	  $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS))

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

tidy: build
	clang-tidy -p $(BUILD) --quiet --extra-arg=-std=c++2b $$(git ls-files 'src/*.cpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
