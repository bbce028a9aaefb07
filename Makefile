# bench: the two set-up commands are `make run` and `make test`.
#   make run    install what is missing, build, run the bundled specs
#   make test   install what is missing, build with sanitizers, start a
#               scratch PostgreSQL, run every test
#   make bench  performance benchmarks (release build, tests/perf/)
#   make lint   lint the bundled specs and check formatting

RELEASE := build/release
ASAN    := build/asan
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
BENCH   := $(RELEASE)/bench
SPECS   := specs/pizzas.yaml specs/banking.yaml
EXAMPLES := $(wildcard examples/*.yaml)

.PHONY: all deps build build-asan run test bench lint format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release -DBENCH_SANITIZE=OFF >/dev/null
	@cmake --build $(RELEASE) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DBENCH_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN) -j $(JOBS)

run: build
	@$(BENCH) lint $(SPECS) $(EXAMPLES)
	@$(BENCH) run $(SPECS)

test: build-asan
	@scripts/pg-scratch.sh ctest --test-dir $(ASAN) --output-on-failure -j $(JOBS)

bench: build
	@tests/perf/run.sh $(RELEASE)

lint: build
	@$(BENCH) lint --strict $(SPECS) $(EXAMPLES)
	@clang-format --dry-run -Werror interp/*.c interp/*.h tests/*.c tests/perf/*.c

format:
	@clang-format -i interp/*.c interp/*.h tests/*.c tests/perf/*.c

clean:
	rm -rf build
