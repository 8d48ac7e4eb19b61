package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

func init() {
	registerCommand(command{name: "info", summary: "describe an input: writer, version, records, views, threads, soft failures", run: runInfo})
}

type infoReport struct {
	File         string           `json:"file"`
	Format       string           `json:"format"`
	Version      string           `json:"version,omitempty"`
	IDSize       int              `json:"id_size,omitempty"`
	Time         time.Time        `json:"time"`
	Writer       string           `json:"writer,omitempty"`
	Compression  string           `json:"compression,omitempty"`
	Bytes        int64            `json:"bytes"`
	FileBytes    int64            `json:"file_bytes,omitempty"` // a compressed input's own size
	Records      map[string]int64 `json:"records"`
	Dumps        int              `json:"dumps"`
	Dump         int              `json:"dump,omitempty"`
	Views        []infoView       `json:"views"`
	Threads      []infoThread     `json:"threads"`
	SoftFailures map[string]int64 `json:"soft_failures"`
	Notes        []string         `json:"notes,omitempty"`
	Damage       string           `json:"damage,omitempty"`
	Lost         string           `json:"lost,omitempty"`
}

type infoView struct {
	Name     string           `json:"name"`
	Samples  int              `json:"samples"`
	Totals   map[string]int64 `json:"totals"`
	Comments []string         `json:"comments,omitempty"`
}

type infoThread struct {
	Name   string `json:"name"`
	Serial uint32 `json:"serial,omitempty"`
	Class  string `json:"class,omitempty"`
	Frames int    `json:"frames"`
}

func runInfo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("info", "INPUT", e.stderr)
	var df decodeFlags
	df.add(fs)
	fs.Lookup("view").Usage = "views to describe, comma-separated (default: every view the input holds; retained only when named: its totals and where its graph spilled)"
	asJSON := fs.Bool("json", false, "print JSON")
	inputs, code := df.parse(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(inputs) != 1 {
		usageError(e.stderr, "info", fmt.Sprintf("takes one input, not %d", len(inputs)))
		return exitUsage
	}
	in := inputs[0]
	g, err := decode(ctx, e, in, &df)
	if err != nil {
		errorf(e, in, err)
		return exitFailure
	}
	rep := makeInfo(g)
	if fi, err := os.Stat(in); err == nil && rep.Compression != "" {
		rep.FileBytes = fi.Size()
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			errorf(e, in, err)
			return exitFailure
		}
	} else {
		printInfo(e.stdout, rep)
	}
	if g.Damage != nil {
		errorf(e, in, fmt.Errorf("partial, %s", batch.Lost(g.Lost)))
		return exitPartial
	}
	return exitOK
}

func makeInfo(g *graph.Graph) infoReport {
	s := g.Source
	rep := infoReport{
		File: s.Path, Format: s.Format, Version: s.Version, IDSize: s.IDSize, Time: s.Time, Writer: s.Writer,
		Compression: s.Compression, Bytes: s.Bytes, Records: s.Records, Dumps: s.Dumps, Dump: s.Dump,
		SoftFailures: g.Soft.Texts(), Notes: s.Notes, Lost: g.Lost,
		Views: []infoView{}, Threads: []infoThread{},
	}
	if g.Damage != nil {
		rep.Damage = batch.Damage(g.Damage)
	}
	for _, v := range g.Views {
		iv := infoView{Name: v.Name, Samples: len(v.Samples), Totals: map[string]int64{}, Comments: v.Comments}
		for i, t := range v.Totals() {
			iv.Totals[v.SampleTypes[i].Type+"/"+v.SampleTypes[i].Unit] = t
		}
		rep.Views = append(rep.Views, iv)
	}
	for _, t := range g.Threads {
		rep.Threads = append(rep.Threads, infoThread{Name: t.Name, Serial: t.Serial, Class: t.Class, Frames: len(g.Stacks[t.Stack])})
	}
	return rep
}

func printInfo(w io.Writer, r infoReport) {
	fmt.Fprintf(w, "file:        %s\n", r.File)
	fmt.Fprintf(w, "format:      %s", r.Format)
	if r.Version != "" {
		fmt.Fprintf(w, ", %s", r.Version)
	}
	if r.IDSize != 0 {
		fmt.Fprintf(w, ", ID size %d", r.IDSize)
	}
	if r.Compression != "" {
		fmt.Fprintf(w, ", %s", r.Compression)
	}
	fmt.Fprintln(w)
	if r.Writer != "" {
		fmt.Fprintf(w, "writer:      %s\n", r.Writer)
	}
	if !r.Time.IsZero() {
		fmt.Fprintf(w, "time:        %s\n", r.Time.Format(time.RFC3339Nano))
	}
	if r.FileBytes > 0 {
		fmt.Fprintf(w, "bytes:       %d inflated (the %s file holds %d)\n", r.Bytes, r.Compression, r.FileBytes)
	} else {
		fmt.Fprintf(w, "bytes:       %d\n", r.Bytes)
	}
	printInfoContents(w, r)
}

// printInfoContents is the part of printInfo after the header: dumps,
// records, views, threads, notes, soft failures, damage.
func printInfoContents(w io.Writer, r infoReport) {
	switch {
	case r.Dumps > 0 && r.Dump > 0:
		fmt.Fprintf(w, "dumps:       %d (heap and alloc views from dump %d)\n", r.Dumps, r.Dump)
	case r.Dumps > 0:
		fmt.Fprintf(w, "dumps:       %d\n", r.Dumps)
	}
	fmt.Fprintln(w, "records:")
	for _, k := range sortedKeys(r.Records) {
		fmt.Fprintf(w, "  %-24s %d\n", k, r.Records[k])
	}
	fmt.Fprintln(w, "views:")
	for _, v := range r.Views {
		fmt.Fprintf(w, "  %-9s %d samples;", v.Name, v.Samples)
		for _, k := range sortedKeys(v.Totals) {
			fmt.Fprintf(w, " %s=%d", k, v.Totals[k])
		}
		fmt.Fprintln(w)
		for _, c := range v.Comments {
			fmt.Fprintf(w, "            %s\n", c)
		}
	}
	if len(r.Threads) > 0 {
		fmt.Fprintf(w, "threads:     %d\n", len(r.Threads))
		for _, t := range r.Threads {
			fmt.Fprintf(w, "  %-32q %d frames\n", t.Name, t.Frames)
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "notes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	printSoftFailures(w, r)
}

// printSoftFailures ends printInfo: the soft failures and the damage.
func printSoftFailures(w io.Writer, r infoReport) {
	fmt.Fprintf(w, "soft failures: ")
	if len(r.SoftFailures) == 0 {
		fmt.Fprintln(w, "none")
	} else {
		fmt.Fprintln(w)
		for _, k := range sortedKeys(r.SoftFailures) {
			fmt.Fprintf(w, "  %-60s %d\n", k, r.SoftFailures[k])
		}
	}
	if r.Damage != "" {
		fmt.Fprintf(w, "damage:      %s\nlost:        %s\n", r.Damage, r.Lost)
	}
}

func sortedKeys(m map[string]int64) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
