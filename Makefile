# subtemper — common tasks. `make help` lists them.
GO        ?= go
TAGS      ?=
BENCHTIME ?= 1x
OUT       ?= out
FUZZTIME  ?= 20s
STATICCHECK ?= v0.6.1

.PHONY: help deps build test fuzz staticcheck test-openblas bench bench-cost run cuda-bundle clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

deps: ## download Go modules; install OpenBLAS/LAPACKE from Debian if missing (needs root or sudo)
	$(GO) mod download
	@for p in libopenblas-dev liblapacke-dev; do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" -eq 0 ]; then s=; else s=sudo; fi; \
		$$s apt-get update -qq && $$s apt-get install -y -qq $$missing; \
	fi

build: ## build the CLI into bin/subtemper (TAGS=openblas for the OpenBLAS backend)
	$(GO) build -tags '$(TAGS)' -o bin/subtemper ./cmd/subtemper

test: ## run every test of the module under the race detector (pure Go; the README's test command)
	$(GO) test -count=1 -race -timeout 20m ./...

fuzz: ## run each CSV reader's fuzz target for FUZZTIME (default 20s)
	$(GO) test -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime $(FUZZTIME) ./gp/
	$(GO) test -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime $(FUZZTIME) ./mvn/
	$(GO) test -run '^$$' -fuzz '^FuzzReadSigmaCSV$$' -fuzztime $(FUZZTIME) ./mvn/
	$(GO) test -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime $(FUZZTIME) ./diag/

staticcheck: ## staticcheck at a pinned version (go run fetches it)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...

test-openblas: ## run every test with the OpenBLAS backend compiled in
	$(GO) test -count=1 -tags openblas ./...

bench: ## linear-algebra and model benchmarks of every compiled-in backend (TAGS=openblas to include it)
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench . -benchtime $(BENCHTIME) ./linalg/... ./gp/ ./mvn/

bench-cost: ## cost-ratio benchmarks of the tempering drivers, measured vs predicted (long: about an hour on 2 cores)
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench Iteration -benchtime 3x -timeout 3h ./bench/

run: build ## the main job: sample a synthetic GP's hyperparameters (STT + HMC) and print the summary
	./bin/subtemper gp --out $(OUT)/gp

cuda-bundle: ## pack a minimal Go toolchain + vendored modules into .cuda-bundle/ for the GPU machine (which has no Go)
	scripts/cuda-bundle.sh .cuda-bundle

clean: ## remove build outputs
	rm -rf bin $(OUT)
