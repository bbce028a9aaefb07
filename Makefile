# bench: the two set-up commands are `make run` and `make test`.
#   make run    install what is missing, build, run the bundled specs
#   make test   install what is missing, build with sanitizers, start a
#               scratch PostgreSQL, run every test
#   make bench  performance benchmarks (release build, tests/perf/)
#   make lint   lint the bundled specs, check formatting, and run clang-tidy
#               (.clang-tidy) over interp/*.c and targets/*.c with the release
#               build's compile database; about 90 s on 2 cores, so `make test`
#               does not run it: CI (.ci/run) runs `make lint` after it
#   make gate   run the bundled specs briefly on the memory target and gate
#               them against baselines/: fails on a collapse (2.5 times
#               slower), not on noise (docs/ci.md says why)
#   make baseline  re-record baselines/memory.json on this machine

RELEASE := build/release
ASAN    := build/asan
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
TIDY_JOBS ?= 2
BENCH   := $(RELEASE)/bench
SPECS   := specs/pizzas.yaml specs/banking.yaml
EXAMPLES := $(wildcard examples/*.yaml)
# `make gate`: the settings of the baseline and of the run gated against it.
GATE_BASELINE  := baselines/memory.json
GATE_RUN       := $(SPECS) --targets memory --iterations 20000 --runs 3
# Both thresholds mean 2.5 times slower: throughput down 60%, p50 up 150%.
GATE_METRICS   ?= --metric '*.throughput_per_s=60' --metric '*.p50_us=150'

.PHONY: all deps build build-asan run test bench lint format clean gate baseline

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release -DBENCH_SANITIZE=OFF \
		-DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
	@cmake --build $(RELEASE) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DBENCH_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

run: build
	@$(BENCH) lint $(SPECS) $(EXAMPLES)
	@scripts/pg-scratch.sh --if-needed $(BENCH) run $(SPECS)

test: build-asan
	@scripts/pg-scratch.sh ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS)

bench: build
	@tests/perf/run.sh $(RELEASE)

lint: build
	@$(BENCH) lint --strict $(SPECS) $(EXAMPLES)
	@clang-format --dry-run -Werror interp/*.c interp/*.h targets/*.c targets/*.h tests/*.c tests/*.h tests/perf/*.c
	@ls interp/*.c targets/*.c | xargs -P $(TIDY_JOBS) -n 4 clang-tidy -p $(RELEASE) --quiet

gate: build
	@$(BENCH) run $(GATE_RUN) --quiet --format json --output build/gate.json
	@$(BENCH) gate $(GATE_BASELINE) build/gate.json $(GATE_METRICS)

baseline: build
	@$(BENCH) run $(GATE_RUN) --label baseline --format json --output $(GATE_BASELINE)

format:
	@clang-format -i interp/*.c interp/*.h targets/*.c targets/*.h tests/*.c tests/*.h tests/perf/*.c

clean:
	rm -rf build
