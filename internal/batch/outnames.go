package batch

import (
	"io"
	"path/filepath"
	"strings"
)

// Destination says where a job's outputs go.
type Destination struct {
	Out    string    // a file ("-" standard output); "" when not given
	Dir    string    // a directory; "" when not given
	Views  []string  // the views asked for; empty means all
	Inputs []string  // the job's inputs, in order (every shard's)
	Shard  Shard     // this run's part of the job ({0 1} when whole)
	Stdout io.Writer // standard output, for Out == "-"
	// Rel maps an input to its outputs' name relative to Dir, mirroring
	// the input tree (Input.Rel); use ViewPath or OutBase rather than
	// reading it.
	Rel map[string]string
}

// OutBase is the path prefix of an input's outputs, before
// ".<view>.<ext>": under Dir the input's place in the mirrored input
// tree (dumps/host1/a.hprof.gz → DIR/host1/a.hprof), otherwise the
// input's own path without its compression suffix ("-" is "stdin").
func (d Destination) OutBase(input string) string {
	if d.Dir != "" {
		if rel, ok := d.Rel[input]; ok {
			return filepath.Join(d.Dir, filepath.FromSlash(rel))
		}
		if input == "-" {
			return filepath.Join(d.Dir, "stdin")
		}
		return filepath.Join(d.Dir, stripCompression(filepath.Base(input)))
	}
	if input == "-" {
		return "stdin"
	}
	return stripCompression(input)
}

// ViewPath names the file of one view of one input for a format whose
// files end in ext (".pb.gz", ".folded"): Out itself when one view was
// asked for, else <Out without ext>.<view><ext> when Out was given, else
// <OutBase>.<view><ext>.
func (d Destination) ViewPath(input, view, ext string) string {
	if d.Out != "" && len(d.Views) == 1 {
		return d.Out
	}
	if d.Out != "" {
		return strings.TrimSuffix(d.Out, ext) + "." + view + ext
	}
	return d.OutBase(input) + "." + view + ext
}
