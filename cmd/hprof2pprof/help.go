package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// examples are shown under each command's flags (-h, --help); a command
// without an entry shows its flags only.
var examples = map[string][]string{
	"convert": {
		"hprof2pprof convert dump.hprof                            # every view: dump.hprof.<view>.pb.gz",
		"hprof2pprof convert --view heap -o heap.pb.gz dump.hprof.gz",
		"go tool pprof -http=: heap.pb.gz",
		"hprof2pprof convert --view cpu --interval 1ms java.hprof  # the agent ran with interval=1",
		"hprof2pprof convert --view retained -o retained.pb.gz dump.hprof",
		"hprof2pprof convert --view paths -o paths.pb.gz dump.hprof  # each object under its path from a GC root",
		"hprof2pprof convert --format parquet -d tables/ dumps/    # a directory tree, one table set",
		"hprof2pprof convert --format parquet --tables heap -d t/ dump.hprof  # + every object, reference, String, GC root",
		"hprof2pprof convert -d out/ -j 8 --shard 0/4 dumps/       # a quarter of a fleet's dumps",
	},
	"suspects": {
		"hprof2pprof suspects java_pid1234.hprof                   # what retains the most, and the paths to it",
		"hprof2pprof suspects --format md --threshold 5% dump.hprof > leak.md",
		"hprof2pprof suspects --class 'LeakyService$' app.hprof    # the paths to one class's instances",
		"hprof2pprof suspects --json --fail-on-suspect dump.hprof  # a CI gate",
	},
	"info": {
		"hprof2pprof info dump.hprof",
		"hprof2pprof info --json java.hprof.txt | jq .views",
	},
	"push": {
		"hprof2pprof push --endpoint 127.0.0.1:4317 --insecure dump.hprof",
		"hprof2pprof push --endpoint https://otel.example.com/v1development/profiles --header authorization=KEY java.hprof",
		"hprof2pprof push --now --insecure --endpoint 127.0.0.1:4040 --view heap,threads,retained dump.hprof  # Grafana Pyroscope",
	},
	"agent": {
		"hprof2pprof agent --out profiles/ --window 30s",
		"java -agentlib:hprof=format=b,cpu=samples,heap=sites,net=127.0.0.1:9931 -jar app.jar",
		"hprof2pprof agent --out profiles/ --otlp-endpoint 127.0.0.1:4317 --insecure --label env=staging",
	},
}

// printExamples writes a command's examples, if it has any.
func printExamples(w io.Writer, name string) {
	ex := examples[name]
	if len(ex) == 0 {
		return
	}
	fmt.Fprintf(w, "\nexamples:\n")
	for _, line := range ex {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// versionText is the module version and the VCS revision the binary was
// built from, as the Go toolchain records them in the build info.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "hprof2pprof (no build information)"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	parts := []string{"hprof2pprof " + version}
	if rev != "" {
		parts = append(parts, fmt.Sprintf("revision %s (%s%s)", rev, at, modified))
	}
	parts = append(parts, bi.GoVersion)
	return strings.Join(parts, " ")
}
