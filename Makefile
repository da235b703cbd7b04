# subtemper — common tasks. `make help` lists them.
GO        ?= go
TAGS      ?=
BENCHTIME ?= 1x
OUT       ?= out
FUZZTIME  ?= 20s
STATICCHECK ?= v0.6.1
# OpenBLAS threads for the benchmarks: left to itself OpenBLAS starts one
# per core, and on a shared machine a 4 ms factorisation then measured
# 3.5 s. BLAS_THREADS=0 lets OpenBLAS choose.
BLAS_THREADS ?= 1

.PHONY: help deps build test fuzz staticcheck test-openblas bench bench-cost killresume slurm-test run cuda-bundle clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

deps: ## download Go modules; install OpenBLAS/LAPACKE from Debian if missing (needs root or sudo)
	$(GO) mod download
	@for p in libopenblas-dev liblapacke-dev; do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" -eq 0 ]; then s=; else s=sudo; fi; \
		$$s apt-get update -qq && $$s apt-get install -y -qq $$missing; \
	fi

# OpenBLAS is found when pkg-config knows it (or the linker cache lists
# libopenblas) and the LAPACKE header is installed; `make build` (and so
# `make run`) then builds with -tags openblas unless TAGS is given on the
# command line or in the environment. TAGS= forces the pure-Go build.
HAVE_OPENBLAS := $(shell { pkg-config --exists openblas 2>/dev/null || ldconfig -p 2>/dev/null | grep -q libopenblas; } && test -f /usr/include/lapacke.h && echo yes)
BUILD_TAGS := $(TAGS)
ifeq ($(origin TAGS),file)
ifeq ($(HAVE_OPENBLAS),yes)
BUILD_TAGS := openblas
endif
endif

build: ## build the CLI into bin/subtemper, with OpenBLAS when installed (TAGS=... overrides: TAGS= for pure Go, TAGS=cuda)
	@case " $(BUILD_TAGS) " in \
	*" openblas "*) echo "make build: OpenBLAS found: building with -tags '$(BUILD_TAGS)'; the default --backend is the fastest compiled in";; \
	*" cuda "*) echo "make build: building with -tags '$(BUILD_TAGS)' (no OpenBLAS: the CPU backend is pure-Go gonum)";; \
	*) if [ "$(HAVE_OPENBLAS)" = yes ]; then why="TAGS is set without openblas"; else why="OpenBLAS is not installed (libopenblas-dev, liblapacke-dev; 'make deps' installs them)"; fi; \
	echo "make build: $$why: building the pure-Go gonum backend only, about 4x slower on GP fits than OpenBLAS (231 against 54 CPU-seconds for N = 512, D = 8, STT, 400 iterations)";; esac
	$(GO) build -tags '$(BUILD_TAGS)' -o bin/subtemper ./cmd/subtemper

test: ## run every test of the module under the race detector (pure Go; the README's test command)
	$(GO) test -count=1 -race -timeout 20m ./...

fuzz: ## run each reader's fuzz target (CSV, netCDF, the test-file reader, the fit folder's reader, which minimises inputs for 3 s, not 60: each run writes and reads a folder; the checkpoint reader) for FUZZTIME (default 20s); scripts/fuzz.sh lists them and tells Go 1.26's spurious end-of-run deadline failure from a found input
	GO='$(GO)' FUZZTIME='$(FUZZTIME)' scripts/fuzz.sh

staticcheck: ## staticcheck at a pinned version (go run fetches it)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...

test-openblas: ## run every test with the OpenBLAS backend compiled in
	$(GO) test -count=1 -tags openblas ./...

bench: ## linear-algebra and model benchmarks of every compiled-in backend (TAGS=openblas to include it), named backend=<name> for benchstat -col /backend, with cpu-ns/op; OpenBLAS on BLAS_THREADS threads (default 1)
	OPENBLAS_NUM_THREADS=$(BLAS_THREADS) $(GO) test -tags '$(TAGS)' -run '^$$' -bench . -benchtime $(BENCHTIME) ./linalg/... ./gp/ ./mvn/

bench-cost: ## cost-ratio benchmarks of the tempering drivers, measured vs predicted (long: about an hour on 2 cores); OpenBLAS on BLAS_THREADS threads
	OPENBLAS_NUM_THREADS=$(BLAS_THREADS) $(GO) test -tags '$(TAGS)' -run '^$$' -bench Iteration -benchtime 3x -timeout 3h ./bench/

killresume: ## SIGKILL a gp run at 30 random instants, resume each, check its draws.csv against the uninterrupted run's (about 5 minutes on 2 cores; docs/RESUME.md)
	scripts/killresume.sh

slurm-test: ## start a one-node Slurm from Debian's packages (installs slurm-wlm and munge; root), fit as an array job of chain groups, merge, check against a one-process run (docs/CLUSTER.md)
	scripts/slurm/test.sh

run: build ## the main job: sample a synthetic GP's hyperparameters with the default sampler and print the summary
	./bin/subtemper gp --out $(OUT)/gp

cuda-bundle: ## pack a minimal Go toolchain + vendored modules into .cuda-bundle/ for the GPU machine (which has no Go)
	scripts/cuda-bundle.sh .cuda-bundle

clean: ## remove build outputs
	rm -rf bin $(OUT)
