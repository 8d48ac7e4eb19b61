package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// summary is what a job did, printed at its end and written by
// --summary FILE.json.
type summary struct {
	Shard   string       `json:"shard,omitempty"` // "i/n" when sharded
	Format  string       `json:"format"`
	Inputs  int          `json:"inputs"`
	OK      int          `json:"ok"`
	Partial int          `json:"partial"`
	Failed  int          `json:"failed"`
	Skipped int          `json:"skipped"` // up to date from an earlier run
	Bytes   int64        `json:"bytes"`   // input bytes converted (skipped ones not counted)
	Seconds float64      `json:"seconds"`
	Exit    int          `json:"exit"`
	Files   []fileResult `json:"files"`
	// Outputs are files the format wrote when it closed (gathered
	// output such as Parquet tables); per-input outputs are in Files.
	Outputs []string `json:"outputs,omitempty"`
	// Error is why closing the output failed, if it did.
	Error string `json:"error,omitempty"`
}

func newSummary(results []fileResult, elapsed time.Duration) *summary {
	s := &summary{Inputs: len(results), Files: results, Seconds: elapsed.Seconds()}
	for _, r := range results {
		switch r.Status {
		case statusOK:
			s.OK++
		case statusPartial:
			s.Partial++
		case statusFailed:
			s.Failed++
		case statusSkipped:
			s.Skipped++
		}
		if r.Status != statusSkipped {
			s.Bytes += r.Bytes
		}
	}
	s.Exit = exitOK
	for _, r := range results {
		st := r.Status
		if st == statusSkipped {
			st = r.Previous
		}
		switch {
		case st == statusFailed:
			s.Exit = exitFailure
		case st == statusPartial && s.Exit == exitOK:
			s.Exit = exitPartial
		}
	}
	return s
}

// print writes the summary for a person: the counts, then each input
// that did not convert fully with its reason.
func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "summary: %d inputs: %d ok, %d partial, %d failed, %d up to date; %s read in %s",
		s.Inputs, s.OK, s.Partial, s.Failed, s.Skipped, human(s.Bytes), time.Duration(s.Seconds*float64(time.Second)).Round(time.Millisecond))
	if s.Shard != "" {
		fmt.Fprintf(w, " (shard %s)", s.Shard)
	}
	fmt.Fprintln(w)
	for _, r := range s.Files {
		switch {
		case r.Status == statusFailed || r.Status == statusPartial:
			fmt.Fprintf(w, "  %s %s: %s\n", r.Status, r.Input, r.Reason)
		case r.Status == statusSkipped && r.Previous == statusPartial:
			fmt.Fprintf(w, "  partial (earlier run) %s: %s\n", r.Input, r.Reason)
		}
	}
	if s.Error != "" {
		fmt.Fprintf(w, "  failed closing the output: %s\n", s.Error)
	}
}

func (s *summary) write(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, func(f *os.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	})
}
