package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/proto"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// TestBatchOTLPFiles: --format otlp over the mixed directory writes one
// request per good or partial input, each a valid request holding every
// view of that input, and fails only the bad files.
func TestBatchOTLPFiles(t *testing.T) {
	dir, want := mixedDir(t)
	out := filepath.Join(t.TempDir(), "out")
	sum := filepath.Join(t.TempDir(), "summary.json")
	code, stderr := runBin(t, "convert", "-q", "--format", "otlp", "-d", out, "--summary", sum, dir)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1 (garbage inputs)\n%s", code, stderr)
	}
	s := readSummary(t, sum)
	for _, r := range s.Files {
		if r.Status != want[r.Input] {
			t.Errorf("%s: %s, want %s (%s)", r.Input, r.Status, want[r.Input], r.Reason)
		}
		if r.Status == batch.StatusFailed {
			continue
		}
		if len(r.Outputs) != 1 {
			t.Fatalf("%s: outputs %v, want one request file", r.Input, r.Outputs)
		}
		b, err := os.ReadFile(r.Outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		var req collectorpb.ExportProfilesServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Fatalf("%s: %v", r.Outputs[0], err)
		}
		profiles := 0
		for _, rp := range req.ResourceProfiles {
			for _, sp := range rp.ScopeProfiles {
				profiles += len(sp.Profiles)
			}
		}
		if profiles == 0 || req.Dictionary == nil || len(req.Dictionary.StringTable) == 0 || req.Dictionary.StringTable[0] != "" {
			t.Errorf("%s: %d profiles; dictionary %v", r.Outputs[0], profiles, req.Dictionary != nil)
		}
	}
}

// TestBatchParquetTables: --format parquet over the mixed directory
// writes one set of tables holding every good or partial input, which
// DuckDB reads back.
func TestBatchParquetTables(t *testing.T) {
	modules := duckdbModulesForCLI(t)
	dir, want := mixedDir(t)
	out := filepath.Join(t.TempDir(), "tables")
	sum := filepath.Join(t.TempDir(), "summary.json")
	code, stderr := runBin(t, "convert", "-q", "--format", "parquet", "--layout", "single", "-d", out, "--summary", sum, dir)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1 (garbage inputs)\n%s", code, stderr)
	}
	s := readSummary(t, sum)
	var converted []string
	for _, r := range s.Files {
		if r.Status != want[r.Input] {
			t.Errorf("%s: %s, want %s (%s)", r.Input, r.Status, want[r.Input], r.Reason)
		}
		if r.Status == batch.StatusOK || r.Status == batch.StatusPartial {
			converted = append(converted, r.Input)
		}
	}
	rows := duckdbQuery(t, modules, filepath.Join(out, "samples.parquet"), "SELECT DISTINCT source FROM samples ORDER BY source")
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r["source"]))
	}
	sort.Strings(converted)
	// Inputs with no view (none here) would have no rows; every
	// converted input has samples.
	if !slices.Equal(got, converted) {
		t.Errorf("sources in samples.parquet:\n got  %q\n want %q", got, converted)
	}
}
