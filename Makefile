# Front door: `make` builds, `make test` runs every test, `make demo` sets up a fresh machine and
# runs the demo. Build folders: build/ (release, the binary is build/sluice), build-asan/, build-fuzz/.
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
WERROR ?= ON

.PHONY: all build deps demo test test-asan fuzz bench format format-check clean

all: build

build:
	@test -f build/build.ninja || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
	    -DSLUICE_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build build -j $(JOBS)

deps:
	scripts/install-deps

demo: deps build
	scripts/demo

test: build
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-asan:
	@test -f build-asan/build.ninja || cmake -S . -B build-asan -G Ninja \
	    -DCMAKE_BUILD_TYPE=Debug -DSLUICE_SANITIZE=ON -DSLUICE_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --test-dir build-asan --output-on-failure -j $(JOBS)

# Every libFuzzer target runs for FUZZ_SECONDS (clang only).
FUZZ_SECONDS ?= 60
fuzz:
	@test -f build-fuzz/build.ninja || CXX=clang++ cmake -S . -B build-fuzz -G Ninja \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_FUZZ=ON -DSLUICE_BUILD_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS)
	fuzz/run-all build-fuzz $(FUZZ_SECONDS)

bench: build
	bench/run
	bench/data-plane
	bench/csv
	bench/registry

# Every C++ file tracked by git, formatted with the repository's .clang-format (clang-format 14).
FORMAT_FILES = $(shell git ls-files --cached --others --exclude-standard '*.cc' '*.h')
format:
	@clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files formatted"

clean:
	rm -rf build build-asan build-fuzz
