package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/s3test"
)

// TestFleetJobManifest: deploy/job.yaml is a valid batch/v1 Job (strict:
// every field is one of the API's, of its type), an Indexed one whose
// pods each take their shard of as many as it has completions, and its
// container's arguments run as written against a real S3-compatible
// server (the endpoint added to the URLs, as a user of one would).
func TestFleetJobManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("deploy/job.yaml: %v", err)
	}
	spec := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("not an Indexed batch/v1 Job: %s %s %v", job.APIVersion, job.Kind, spec.CompletionMode)
	}
	if spec.Completions == nil || spec.Parallelism == nil || len(spec.Template.Spec.Containers) != 1 {
		t.Fatal("completions, parallelism and one container are needed")
	}
	n := *spec.Completions
	args := spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, fmt.Sprintf("--shard=$(JOB_COMPLETION_INDEX)/%d", n)) || args[0] != "convert" {
		t.Errorf("args %q: want convert with --shard=$(JOB_COMPLETION_INDEX)/%d", args, n)
	}
	if spec.Template.Spec.RestartPolicy != "Never" && spec.Template.Spec.RestartPolicy != "OnFailure" {
		t.Errorf("restartPolicy %q: a Job's pods must not restart Always", spec.Template.Spec.RestartPolicy)
	}

	// Run each pod's arguments, as Kubernetes expands them.
	s := s3test.Start(t)
	s.Bucket(t, "fleet-dumps")
	s.Bucket(t, "fleet-profiles")
	s.SetEnv(t)
	upload(t, s, "fleet-dumps", map[string]string{
		"dumps/a/java_pid1.hprof": "jdk17-zoo-live.hprof", "dumps/b/java_pid2.hprof.gz": "jdk25-zgc.hprof.gz",
		"dumps/b/agent.hprof": "cpu-samples.cpuwork.jdk17.hprof",
	})
	url := regexp.MustCompile(`^(.*)(s3://[^ ]*)$`)
	for i := range int(n) {
		var run []string
		for _, a := range args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(i))
			if m := url.FindStringSubmatch(a); m != nil {
				a = m[1] + m[2] + "?" + s.Query()
			}
			run = append(run, a)
		}
		if code, msg := runEnv(t, s.Env, run...); code != exitOK {
			t.Fatalf("pod %d: %q: exit %d\n%s", i, run, code, msg)
		}
	}
	got := objects(t, s, "fleet-profiles", "")
	for _, want := range []string{"summaries/tables-0.json", fmt.Sprintf("summaries/tables-%d.json", n-1)} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %s", want)
		}
	}
	parts := 0
	for k := range got {
		if strings.HasPrefix(k, "tables/classes/input=") {
			parts++
		}
	}
	if parts != 3 {
		t.Errorf("%d partitions of the classes table for 3 inputs", parts)
	}
}

// TestFleetDocQueries runs docs/fleet.md's DuckDB queries over a
// dataset the CLI wrote: the class histogram of each input equals its
// heap view, and the biggest heap is the one the histograms say.
func TestFleetDocQueries(t *testing.T) {
	duck := duckdbModulesForCLI(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```sql\n-- fleet: (\\w+)\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		queries[m[1]] = m[2]
	}
	if len(queries) != 2 {
		t.Fatalf("found %d fleet queries in docs/fleet.md", len(queries))
	}
	dir := t.TempDir()
	inputs := []string{testdata("jdk17-zoo-live.hprof"), testdata("jdk25-zgc.hprof.gz"), testdata("heap-dump.allocwork.jdk17.hprof")}
	if code, msg := runBin(t, append([]string{"convert", "-q", "--format", "parquet", "-d", filepath.Join(dir, "tables")}, inputs...)...); code != exitOK {
		t.Fatalf("exit %d\n%s", code, msg)
	}
	var qs []map[string]string
	for name, sql := range queries {
		qs = append(qs, map[string]string{"name": name, "sql": strings.ReplaceAll(sql, "'tables/", "'"+filepath.Join(dir, "tables")+"/")})
	}
	req, _ := json.Marshal(map[string]any{"queries": qs})
	res := duckdbResults(t, duck, req)
	byInput := map[string]map[string]string{}
	for _, r := range res["class_histogram"] {
		src := fmt.Sprint(r["source"])
		if byInput[src] == nil {
			byInput[src] = map[string]string{}
		}
		byInput[src][fmt.Sprint(r["class"])] = fmt.Sprint(r["instances"], "|", r["bytes"])
	}
	var biggest string
	var most int64
	for _, in := range inputs {
		h := heapViewHistogram(t, in)
		var total int64
		for c, v := range h {
			total += v[1]
			if got := byInput[in][c]; got != fmt.Sprint(v[0], "|", v[1]) {
				t.Errorf("%s: %s: query %q, heap view %v", in, c, got, v)
				break
			}
		}
		if total > most {
			biggest, most = in, total
		}
	}
	if top := res["biggest_heaps"]; len(top) != len(inputs) || fmt.Sprint(top[0]["source"]) != biggest || fmt.Sprint(top[0]["heap_bytes"]) != fmt.Sprint(most) {
		t.Errorf("biggest_heaps %v, want %s first with %d bytes", top, biggest, most)
	}
}

// duckdbResults runs a query request and returns every query's rows.
func duckdbResults(t *testing.T, modules string, req []byte) map[string][]map[string]any {
	t.Helper()
	cmd := exec.Command("node", filepath.Join("..", "..", "parquet", "testdata", "duckdb", "query.mjs"), modules)
	cmd.Stdin = strings.NewReader(string(req))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	var res struct {
		Results map[string][]map[string]any `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out)
	}
	return res.Results
}

// heapViewHistogram is an input's heap view by class: objects and bytes.
func heapViewHistogram(t *testing.T, path string) map[string][2]int64 {
	t.Helper()
	g, err := convert.ConvertFile(context.Background(), path, convert.Options{Views: []string{graph.ViewHeap}})
	if err != nil {
		t.Fatal(err)
	}
	h := map[string][2]int64{}
	for _, smp := range g.View(graph.ViewHeap).Samples {
		for _, l := range smp.Labels {
			if l.Key == graph.LabelClass {
				v := h[l.Str]
				h[l.Str] = [2]int64{v[0] + smp.Values[0], v[1] + smp.Values[1]}
			}
		}
	}
	return h
}

// TestFleetDocShowsDeploy: the guide shows deploy/'s files as they are.
func TestFleetDocShowsDeploy(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	for lang, file := range map[string]string{"yaml": "job.yaml", "dockerfile": "Dockerfile"} {
		want, err := os.ReadFile(filepath.Join("..", "..", "deploy", file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```"+lang+"\n"+string(want)+"```") {
			t.Errorf("docs/fleet.md does not show deploy/%s as it is", file)
		}
	}
}
