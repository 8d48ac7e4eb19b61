package batch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
)

// TestHeldViewsFromRecords: the views an input's records make are the
// views the decoder builds when asked for all of them, for every input
// in testdata; asked for one view, the others are still named.
func TestHeldViewsFromRecords(t *testing.T) {
	paths, _ := filepath.Glob(testdata("*"))
	n := 0
	for _, p := range paths {
		base := filepath.Base(p)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".oracle") ||
			strings.HasSuffix(base, ".raw") || strings.Count(base, ".txt") > 1 || strings.HasSuffix(base, "-histo.txt") {
			continue
		}
		g, err := convert.ConvertFile(context.Background(), p, convert.Options{})
		if err != nil || g.Damage != nil {
			continue
		}
		n++
		built := ViewNames(g)
		g.Views = nil
		got := heldViews(g)
		slices.Sort(got)
		slices.Sort(built)
		if !slices.Equal(got, built) {
			t.Errorf("%s: records make %v, the decoder built %v", base, got, built)
		}
	}
	t.Logf("%d inputs", n)
	if n < 20 {
		t.Fatalf("only %d inputs checked", n)
	}
}

// TestViewsAskedOfTheJob: a view asked for that some input of the job
// has is not missing from the others; one that no input has makes the
// inputs written partial, saying what each has, in this run and in a
// rerun that skips them.
func TestViewsAskedOfTheJob(t *testing.T) {
	in := t.TempDir()
	copyInto(t, in, map[string]string{"heap.hprof": "jdk17-zoo-live.hprof", "cpu.hprof": "cpu-samples.cpuwork.jdk17.hprof", "cpu2.hprof": "cpu-samples.cpuwork.jdk17.hprof"})
	job := func(out string, names ...string) *Summary {
		var ins []Input
		for _, n := range names {
			p := filepath.Join(in, n)
			ins = append(ins, Input{Path: p, Key: p, Rel: n, Size: -1})
		}
		s, err := Run(context.Background(), Job{Inputs: ins, Dir: out, Views: []string{"heap", "cpu"}, Format: "pprof", Workers: 2, Shape: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := job(t.TempDir(), "heap.hprof", "cpu.hprof"); s.OK != 2 || s.Exit != ExitOK {
		t.Errorf("heap and cpu over a heap dump and a CPU profile: %+v, want both ok", s)
	}
	out := t.TempDir()
	for run := range 2 {
		s := job(out, "cpu.hprof", "cpu2.hprof")
		if s.Exit != ExitPartial || len(s.Files) != 2 {
			t.Fatalf("run %d: heap and cpu over two CPU profiles: %+v, want partial", run, s)
		}
		for _, r := range s.Files {
			if !strings.Contains(r.Reason, "no heap view in this input (it has: cpu, threads)") || len(r.Outputs) == 0 {
				t.Errorf("run %d: %+v: want the cpu view written and no heap view said", run, r)
			}
		}
	}
}

// A view the decoder did not compute says why: the retained view of a
// dump past its limits names the limit, not only that the view is
// missing.
func TestMissingViewSaysWhy(t *testing.T) {
	g, err := convert.ConvertFile(context.Background(), testdata("jdk17-zoo-live.hprof"), convert.Options{Views: []string{"heap"}})
	if err != nil {
		t.Fatal(err)
	}
	const why = "retained view not computed: retained: heap dump too large for the retained view: 2200000000 objects, over the 2147483647 it numbers"
	g.Source.Notes = append(g.Source.Notes, "an unrelated note", why)
	_, _, err = viewsToWrite(g, []string{"retained"})
	if err == nil || !strings.Contains(err.Error(), "no retained view in this input") || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "unrelated") {
		t.Errorf("error %v; want it to say the view is missing and why", err)
	}
}
