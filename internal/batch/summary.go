package batch

import (
	"encoding/json"
	"fmt"
	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"io"
	"os"
	"time"
)

// A Summary is what a job did: the counts, each input's Result, and the
// exit status the job calls for (ExitOK, ExitFailure, ExitPartial). It
// reads and writes as JSON (Write).
type Summary struct {
	Shard   string `json:"shard,omitempty"` // "i/n" when sharded
	Format  string `json:"format"`
	Inputs  int    `json:"inputs"`
	OK      int    `json:"ok"`
	Partial int    `json:"partial"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"` // up to date from an earlier run
	// Unreadable counts the directories under a directory argument that
	// could not be listed (skipped; not in Inputs).
	Unreadable int `json:"unreadable,omitempty"`
	// NotInputs counts the files found in directories whose content is
	// no input this tool reads (skipped; not in Inputs).
	NotInputs int      `json:"not_inputs,omitempty"`
	Bytes     int64    `json:"bytes"` // input bytes converted (skipped ones and not-inputs not counted)
	Seconds   float64  `json:"seconds"`
	Exit      int      `json:"exit"`
	Files     []Result `json:"files"`
	// Outputs are files the format wrote when it closed (gathered
	// output such as Parquet tables); per-input outputs are in Files.
	Outputs []string `json:"outputs,omitempty"`
	// Error is why closing the output failed, if it did.
	Error string `json:"error,omitempty"`
}

func newSummary(results []Result, elapsed time.Duration) *Summary {
	s := &Summary{Inputs: len(results), Files: results, Seconds: elapsed.Seconds()}
	for _, r := range results {
		switch r.Status {
		case StatusUnreadable:
			s.Unreadable++
			s.Inputs--
		case StatusNotInput:
			s.NotInputs++
			s.Inputs--
		case StatusOK:
			s.OK++
		case StatusPartial:
			s.Partial++
		case StatusFailed:
			s.Failed++
		case StatusSkipped:
			s.Skipped++
		}
		if r.Status != StatusSkipped && r.Status != StatusNotInput {
			s.Bytes += r.Bytes
		}
	}
	s.Exit = ExitOK
	for _, r := range results {
		st := r.Status
		if st == StatusSkipped {
			st = r.Previous
		}
		switch {
		case st == StatusFailed:
			s.Exit = ExitFailure
		case st == StatusPartial && s.Exit == ExitOK:
			s.Exit = ExitPartial
		}
	}
	return s
}

// Write writes the summary as JSON to path, atomically; a storage URL
// (s3://bucket/key) is uploaded there.
func (s *Summary) Write(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if objstore.IsURL(path) {
		return writeRemote(path, append(data, '\n'))
	}
	return writeFileAtomic(path, func(f *os.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	})
}

// WriteText writes the summary for a person: the counts, then each input
// that did not convert fully with its reason.
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "summary: %d inputs: %d ok, %d partial, %d failed, %d up to date; %s read in %s",
		s.Inputs, s.OK, s.Partial, s.Failed, s.Skipped, HumanBytes(s.Bytes), time.Duration(s.Seconds*float64(time.Second)).Round(time.Millisecond))
	if s.Unreadable > 0 {
		fmt.Fprintf(w, "; %d unreadable %s skipped", s.Unreadable, plural(s.Unreadable, "directory", "directories"))
	}
	if s.NotInputs > 0 {
		fmt.Fprintf(w, "; %d %s skipped: not HPROF", s.NotInputs, plural(s.NotInputs, "file", "files"))
	}
	if s.Shard != "" {
		fmt.Fprintf(w, " (shard %s)", s.Shard)
	}
	fmt.Fprintln(w)
	for _, r := range s.Files {
		switch {
		case r.Status == StatusFailed || r.Status == StatusPartial:
			fmt.Fprintf(w, "  %s %s: %s\n", r.Status, r.Input, r.Reason)
		case r.Status == StatusNotInput:
			fmt.Fprintf(w, "  skipped %s: %s\n", r.Input, r.Reason)
		case r.Status == StatusUnreadable:
			fmt.Fprintf(w, "  skipped directory %s: %s\n", r.Input, r.Reason)
		case r.Status == StatusSkipped && r.Previous == StatusPartial:
			fmt.Fprintf(w, "  partial (earlier run) %s: %s\n", r.Input, r.Reason)
		}
	}
	if s.Error != "" {
		fmt.Fprintf(w, "  failed closing the output: %s\n", s.Error)
	}
}

// HumanBytes is n in binary units for a person: "512 B", "1.5 MiB".
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
