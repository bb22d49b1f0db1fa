# SPDX-License-Identifier: BSD-2-Clause
# What the scripts run: experiments, report, plots, paper, the scripts' tests,
# soak and the side benchmarks. Included by the top-level Makefile.

# ---- experiments, plots ------------------------------------------------------

PYTHON      ?= /usr/bin/python3
EXPERIMENTS ?=
PROFILE     ?=
REPS        ?=
FORCE       ?=
TOPOLOGY    ?=
COMPARE     ?=
# a wall-clock budget for all of make experiments (90m, 1h, 4:00:00): the
# planner leaves out exploratory, then figure-only points, never a claim's,
# and says what (scripts/runner/sizing.py fit_budget). Not the stopping
# rule's factor (the runner's --budget).
TIME_BUDGET ?=
EXP_ARGS = $(if $(EXPERIMENTS),--experiments '$(EXPERIMENTS)') $(if $(PROFILE),--profile $(PROFILE)) \
	$(if $(REPS),--reps $(REPS)) $(if $(FORCE),--force) $(if $(TOPOLOGY),--topology '$(TOPOLOGY)') \
	$(if $(LIKWID),--likwid) $(if $(TIME_BUDGET),--time-budget '$(TIME_BUDGET)') \
	$(if $(RESULTS),--results $(RESULTS))

.PHONY: experiments plots deps-experiments test-scripts test-scripts-slow

deps-experiments:
	@scripts/deps.sh build peers experiments

# The side benchmarks' options (scripts/runner/side.py): those EXPERIMENTS
# names (all without it; none where it names sweeps only), sized by PROFILE.
SIDE_ARGS = $(if $(EXPERIMENTS),--experiments '$(EXPERIMENTS)') $(if $(PROFILE),--profile $(PROFILE)) \
	$(if $(RESULTS),--results $(RESULTS)) --bench $(B)/numaring-bench --bare $(B)/bench/bare_loop \
	--oversub $(B)/bench/bench_oversub
SIDE_BINS = $(B)/bench/bare_loop $(B)/bench/bench_oversub

# Every experiment for this host, then the side benchmarks it names, then the
# plots, then the reproduction report of this working tree's results
# (scripts/analysis/claims.py). Runs that failed to run or verify make it end
# non-zero after the plots are drawn; a claim that does not hold (a point
# above the ceiling model, say) is in the report, never a failure.
experiments: export NUMARING_MAKE_STARTED := $(shell date +%s)
experiments: deps-experiments
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bench_ring $(SIDE_BINS) $(if $(LIKWID),bench-likwid)
	@rc=0; $(PYTHON) -m scripts.runner.experiments run $(EXP_ARGS) || rc=$$?; \
	 if [ $$rc -ne 2 ] && [ $$rc -ne 130 ]; then \
	   src=0; $(PYTHON) -m scripts.runner.side run $(SIDE_ARGS) || src=$$?; \
	   if [ $$src -eq 130 ]; then exit 130; fi; [ $$src -eq 0 ] || rc=1; \
	   $(MAKE) --no-print-directory plots || rc=1; \
	   echo; $(PYTHON) -m scripts.runner.experiments report $(if $(RESULTS),--results $(RESULTS)) || rc=1; \
	   $(PYTHON) -m scripts.runner.experiments record-time $(if $(RESULTS),--results $(RESULTS)) || :; fi; \
	 exit $$rc

# The side benchmarks whose claims the reproduction report reads, as make
# experiments runs them after the sweeps (into the same host folder, sized by
# PROFILE, those EXPERIMENTS names; their time is in its estimate):
# scripts/runner/side.py, `python3 -m scripts.runner.side list` for each
# profile's options and time. Each runs whatever the one before did: a
# failure is reported at the end, never a reason to leave the others' claims
# unmeasured. make bench-peers, bench-fidelity, bench-oversub (below) run one
# at its own full size.
.PHONY: side-benchmarks
side-benchmarks: deps-build
	@$(MAKE) --no-print-directory lib bench $(SIDE_BINS)
	$(PYTHON) -m scripts.runner.side run $(SIDE_ARGS)

# The claims of several hosts side by side (make report HOSTS="a b"; every
# host with real nodes under results/, or RESULTS=DIR, by default): a claim
# that holds on one CPU and not on another shows as such.
HOSTS ?=
.PHONY: report pack-results plan check-experiments claims-list ceiling-check readme
report:
	@$(PYTHON) -m scripts.analysis.claims report $(if $(RESULTS),--results $(RESULTS)) $(HOSTS)

# the plan of make experiments: each experiment's points, runs and estimated
# time here, or on another host (ARGS="--cores 32 --nodes 2 --smt 2 --profile
# full"; --why: what reads each block; --time-budget 1h: what it leaves out)
plan:
	@$(PYTHON) -m scripts.runner.experiments list $(ARGS)

# experiment files validated, nothing run (ARGS: the files; default all)
check-experiments:
	@$(PYTHON) -m scripts.runner.experiments check $(ARGS)

# the claims table: each claim, what it reads, its threshold
claims-list:
	@$(PYTHON) -m scripts.analysis.claims list

# a host's results against the physical ceiling model (HOST=results/<host>)
ceiling-check:
	@test -n "$(HOST)" || { echo "ceiling-check: say which host: HOST=results/<host>" >&2; exit 2; }
	@$(PYTHON) -m scripts.analysis.ceiling --check $(HOST)

# every generated block of the docs from the committed files: the estimates
# (README, docs/two-socket.md), the last sweep's time (docs/testing.md), the
# claims table (README), the default
# backoff's evidence (docs/ring.md); CHECK=1 only says whether each is current
readme:
	$(PYTHON) -m scripts.runner.experiments readme README.md $(if $(CHECK),--check)
	$(PYTHON) -m scripts.runner.experiments readme docs/two-socket.md $(if $(CHECK),--check)
	$(PYTHON) -m scripts.runner.experiments readme docs/testing.md $(if $(CHECK),--check)
	$(PYTHON) -m scripts.analysis.claims readme README.md $(if $(CHECK),--check)
	$(PYTHON) -m scripts.analysis.backoff_default readme docs/ring.md $(if $(CHECK),--check)

# each experiment's loose runs (a sweep run with --loose, or interrupted and
# abandoned) packed as a finished sweep packs them: <experiment>/<profile>.tar.xz
pack-results:
	$(PYTHON) -m scripts.common.runfiles pack $(or $(RESULTS),results)

plots: deps-experiments
	$(PYTHON) -m scripts.figures.plot --gnuplot $(if $(COMPARE),--compare $(COMPARE))

# ---- the paper ----------------------------------------------------------------

.PHONY: paper deps-paper
deps-paper:
	@scripts/deps.sh experiments paper

# Numbers from the committed CSVs, figures from the committed plots. Another
# set (make vm-experiments): PAPER_RESULTS, PAPER_DIR (holding the sources)
# and PAPER_PLOTS (as seen from PAPER_DIR).
PAPER_RESULTS ?= results
PAPER_DIR     ?= paper
PAPER_PLOTS   ?= ../plots
paper: deps-paper
	$(PYTHON) -m scripts.paper.paper_numbers --results $(PAPER_RESULTS) \
		--out $(PAPER_DIR)/generated/numbers.tex --paths $(PAPER_DIR)/generated/paths.tex \
		--claims $(PAPER_DIR)/generated/claims.tex --plots $(PAPER_PLOTS)
	cd $(PAPER_DIR) && latexmk -pdf -interaction=nonstopmode -halt-on-error -quiet numaring.tex

# The scripts' own tests: experiment files, the runner, plots, the ceiling
# model. make test-scripts runs the fast set (part of make test); the tests
# marked @slow (scripts/tests/__init__.py: the runner's sweeps (smoke run,
# resume after a kill), every figure drawn, synthetic host kinds through
# every script) are skipped there, saying "slow: make test-slow", and run in
# make test-scripts-slow (part of make test-slow). NUMARING_SLOW_TESTS=1
# make test-scripts runs both; docs/testing.md lists the slow set.
# The fast set a module at a time on every CPU (scripts/tests/parallel.py:
# unittest discover's set, its summary); the slow set's sweeps time
# themselves, one at a time
test-scripts: $(B)/numaring-bench $(B)/bench/bare_loop
	NUMARING_BENCH=$(B)/numaring-bench NUMARING_BARE=$(B)/bench/bare_loop \
		$(PYTHON) -m scripts.tests.parallel

test-scripts-slow: $(B)/numaring-bench $(B)/bench/bare_loop
	NUMARING_SLOW_TESTS=only NUMARING_BENCH=$(B)/numaring-bench NUMARING_BARE=$(B)/bench/bare_loop \
		$(PYTHON) -m unittest discover -s scripts/tests -t . -v

# Hours of mixed load with --verify and flat memory (not in CI):
#   make soak DURATION=3h [SEGMENT=60]
DURATION ?= 10m
SEGMENT  ?= 60
.PHONY: soak
soak: deps-build
	@$(MAKE) --no-print-directory lib bench
	$(PYTHON) -m scripts.runner.soak --duration $(DURATION) --segment $(SEGMENT) --bench $(B)/numaring-bench \
		--log $(B)/soak.log

# Every queue at 1P1C, single operations and bursts of 32, in one go.
# The side benchmarks also write results/<host>/bench/<name>.csv + .meta.json
# (RESULTS=DIR instead of results/; scripts/runner/benchresult.py).
bench-peers: deps-build
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bare_loop
	/usr/bin/python3 -m scripts.runner.bench_peers --bench $(B)/numaring-bench --bare $(B)/bench/bare_loop \
		$(if $(RESULTS),--results $(RESULTS))

# no combination may collapse (items/s against the per-worker gate).
bench-oversub: deps-build
	@$(MAKE) --no-print-directory bench $(B)/bench/bench_oversub
	/usr/bin/python3 -m scripts.runner.benchresult oversub --bin $(B)/bench/bench_oversub \
		--bench $(B)/numaring-bench $(if $(QUICK),--quick) $(if $(RESULTS),--results $(RESULTS))

# How the ring's speed depends on where its cells lie (flat ring alone, bare
# loop, bursts of 32, cells at 0..896 bytes past a page boundary).
bench-placement: deps-build
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bare_loop
	/usr/bin/python3 -m scripts.runner.bench_placement --bare $(B)/bench/bare_loop \
		--bench $(B)/numaring-bench $(if $(RESULTS),--results $(RESULTS))
# numaring's backoffs against none and each other where races are lost (pairs,
# mixed; prodcons, where none is lost, as the control): the evidence of the
# production default (issue 45). PAUSE_SPINS=32,512: PAUSE at each length.
bench-backoff: deps-build
	@$(MAKE) --no-print-directory lib bench
	/usr/bin/python3 -m scripts.runner.bench_backoff --bench $(B)/numaring-bench \
		$(if $(PAUSE_SPINS),--pause-spins $(PAUSE_SPINS)) $(if $(RESULTS),--results $(RESULTS))
# How close numaring-bench comes to a bare loop of the same queue (flat,
# numaring, rte; single operations and bursts of 32), interleaved rounds.
bench-fidelity: deps-build
	@$(MAKE) --no-print-directory lib bench $(B)/bench/bare_loop
	/usr/bin/python3 -m scripts.runner.bench_fidelity --bench $(B)/numaring-bench --bare $(B)/bench/bare_loop \
		$(if $(RESULTS),--results $(RESULTS))

