package main

import (
	"path/filepath"
	"strings"
)

// outBase is the path prefix of an input's outputs, before
// ".<view>.<ext>": under -d the input's place in the mirrored input tree
// (dumps/host1/a.hprof.gz → DIR/host1/a.hprof), otherwise the input's own
// path without its compression suffix ("-" is "stdin").
func (d destination) outBase(input string) string {
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

// viewPath names the file of one view of one input for a format whose
// files end in ext (".pb.gz", ".folded"): -o itself when one view was
// asked for, else <-o without ext>.<view><ext> when -o was given, else
// <outBase>.<view><ext>.
func (d destination) viewPath(input, view, ext string) string {
	if d.Out != "" && len(d.Views) == 1 {
		return d.Out
	}
	if d.Out != "" {
		return strings.TrimSuffix(d.Out, ext) + "." + view + ext
	}
	return d.outBase(input) + "." + view + ext
}
