// Package report writes a converted input's facts for people and
// scripts: what `info` prints, and the leak suspects report.
package report

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// Info is what `hprof2pprof info` says of an input.
type Info struct {
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
	Views        []View           `json:"views"`
	Threads      []Thread         `json:"threads"`
	SoftFailures map[string]int64 `json:"soft_failures"`
	Notes        []string         `json:"notes,omitempty"`
	Damage       string           `json:"damage,omitempty"`
	Lost         string           `json:"lost,omitempty"`
}

type View struct {
	Name     string           `json:"name"`
	Samples  int              `json:"samples"`
	Totals   map[string]int64 `json:"totals"`
	Comments []string         `json:"comments,omitempty"`
}

type Thread struct {
	Name   string `json:"name"`
	Serial uint32 `json:"serial,omitempty"`
	Class  string `json:"class,omitempty"`
	Frames int    `json:"frames"`
}

func MakeInfo(g *graph.Graph) Info {
	s := g.Source
	rep := Info{
		File: s.Path, Format: s.Format, Version: s.Version, IDSize: s.IDSize, Time: s.Time, Writer: s.Writer,
		Compression: s.Compression, Bytes: s.Bytes, Records: s.Records, Dumps: s.Dumps, Dump: s.Dump,
		SoftFailures: g.Soft.Texts(), Notes: s.Notes, Lost: g.Lost,
		Views: []View{}, Threads: []Thread{},
	}
	if g.Damage != nil {
		rep.Damage = batch.Damage(g.Damage)
	}
	for _, v := range g.Views {
		iv := View{Name: v.Name, Samples: len(v.Samples), Totals: map[string]int64{}, Comments: v.Comments}
		for i, t := range v.Totals() {
			iv.Totals[v.SampleTypes[i].Type+"/"+v.SampleTypes[i].Unit] = t
		}
		rep.Views = append(rep.Views, iv)
	}
	for _, t := range g.Threads {
		rep.Threads = append(rep.Threads, Thread{Name: t.Name, Serial: t.Serial, Class: t.Class, Frames: len(g.Stacks[t.Stack])})
	}
	return rep
}

func (r Info) WriteText(w io.Writer) {
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
	r.writeContents(w)
}

// writeContents is the part of WriteText after the header: dumps,
// records, views, threads, notes, soft failures, damage.
func (r Info) writeContents(w io.Writer) {
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
	r.writeSoftFailures(w)
}

// writeSoftFailures ends WriteText: the soft failures and the damage.
func (r Info) writeSoftFailures(w io.Writer) {
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
