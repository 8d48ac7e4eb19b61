# hprof2pprof — the two commands the README promises:
#   make demo   converts a bundled real sample and shows it with go tool pprof
#   make test   installs/builds the real backends the tests talk to, then runs every test
.PHONY: test backends demo build vet lint

# With libdeflate's headers installed (scripts/setup-libdeflate.sh), the
# JDK's -gz dumps inflate about twice as fast; without them the pure Go
# inflater is used.
TAGS := $(shell test -f /usr/include/libdeflate.h && echo libdeflate)

build:
	go build -tags "$(TAGS)" -o hprof2pprof ./cmd/hprof2pprof

# Each scripts/setup-*.sh installs or builds one real backend (idempotent,
# cached under .cache/) and prints nothing on success but its result path.
backends:
	@set -e; for s in scripts/setup-*.sh; do [ -f "$$s" ] || continue; echo "== $$s"; bash "$$s"; done

vet:
	go vet ./...

# The code-shape checks (scripts/lint.sh): gofmt, vet, staticcheck,
# cyclomatic complexity (20; 15 in the CLI), file length (600 lines), and
# the design as rules: only convert/hprof opens records, convert imports
# no emitter, emitters import none of each other, the first heap pass
# does not reach into convert/retained, the CLI stays under 2,200 lines.
lint:
	bash scripts/lint.sh

test: backends vet
	go test -timeout 30m ./...
	@if [ -f /usr/include/libdeflate.h ]; then echo "== convert with -tags libdeflate"; go vet -tags libdeflate ./convert/ && go test -tags libdeflate ./convert/; fi
	@if command -v qemu-aarch64-static >/dev/null; then echo "== convert/retained and its sub-packages (the assembly in internal/mem) as arm64 code, under qemu"; \
		mkdir -p .cache && for p in retained retained/internal/mem retained/internal/domtree; do \
			GOARCH=arm64 go test -c -o .cache/retained-arm64.test ./convert/$$p && (cd convert/$$p && qemu-aarch64-static $(CURDIR)/.cache/retained-arm64.test) || exit 1; \
		done; \
	else echo "== arm64 tests skipped: no qemu-aarch64-static (scripts/setup-qemu.sh)"; fi
	bash scripts/lint.sh

demo: build
	./hprof2pprof convert -q --view cpu -o out/cpu.pb.gz testdata/cpu-samples.cpuwork.jdk17.hprof
	go tool pprof -top -nodecount=12 -tagignore state=blocked out/cpu.pb.gz
	./hprof2pprof convert -q --view heap -o out/heap.pb.gz testdata/jdk17-zoo-live.hprof
	go tool pprof -top -nodecount=12 out/heap.pb.gz
