package batch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// doneMark records that an input's outputs were all written. It is
// written (atomically) after the last output of the input, next to the
// outputs under -d as ".<name>.hprof2pprof-done", so its presence means
// the outputs are complete; a rerun skips the input while the mark is
// current (see current).
type doneMark struct {
	Input   string    `json:"input"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// Options are the flags that shape the outputs (format, views,
	// decode and format flags); a rerun with other ones redoes the input.
	Options string   `json:"options"`
	Status  string   `json:"status"` // ok or partial
	Lost    string   `json:"lost,omitempty"`
	Outputs []string `json:"outputs"`
}

// MarkSuffix ends the name of a done mark: ".<output base>" + MarkSuffix
// beside the outputs.
const MarkSuffix = ".hprof2pprof-done"

func markPath(dst Destination, in Input) string {
	base := dst.OutBase(in.Path)
	return filepath.Join(filepath.Dir(base), "."+filepath.Base(base)+MarkSuffix)
}

// readMark returns the mark of an input, or nil when there is none or it
// is unreadable.
func readMark(path string) *doneMark {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return parseMark(data)
}

// parseMark decodes a mark's bytes, nil when they are no mark.
func parseMark(data []byte) *doneMark {
	var m doneMark
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return &m
}

// current reports whether the mark still describes the input: same size
// and modification time, same options, and every output still there and
// not older than the input.
func (m *doneMark) current(in Input, options string) bool {
	if !m.sameInput(in, options) {
		return false
	}
	for _, p := range m.Outputs {
		fi, err := os.Stat(p)
		if err != nil || fi.ModTime().Before(in.ModTime) {
			return false
		}
	}
	return true
}

// sameInput reports whether the mark was written for this version of
// the input (size and modification time) with these options, and lists
// outputs.
func (m *doneMark) sameInput(in Input, options string) bool {
	return m.Size == in.Size && m.ModTime.Equal(in.ModTime) && m.Options == options && len(m.Outputs) > 0
}

func writeMark(path string, m *doneMark) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, func(f *os.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	})
}

// cleanStale removes temporary files a killed run left for the inputs
// of this job (".<output>.tmp-*", see writeFileAtomic) under Dir. A
// temporary file belongs to the input whose output name is the longest
// prefix of its own, among all inputs of the job (every shard), so a
// shard removes only its own leftovers, never a file another shard may be
// writing.
func cleanStale(dst Destination, all []Input, mine []Input) {
	if dst.Dir == "" {
		return
	}
	bases := map[string][]string{} // dir → output base names of all inputs
	for _, in := range all {
		b := dst.OutBase(in.Path)
		bases[filepath.Dir(b)] = append(bases[filepath.Dir(b)], filepath.Base(b))
	}
	owner := func(dir, name string) string {
		// A mark file is hidden already (".<out>.hprof2pprof-done"),
		// so its temporary file starts with two dots.
		if strings.HasPrefix(name, "..") {
			name = name[1:]
		}
		best := ""
		for _, b := range bases[dir] {
			if strings.HasPrefix(name, "."+b+".") && len(b) > len(best) {
				best = b
			}
		}
		return best
	}
	listed := map[string][]os.DirEntry{}
	for _, in := range mine {
		b := dst.OutBase(in.Path)
		dir, name := filepath.Dir(b), filepath.Base(b)
		ents, ok := listed[dir]
		if !ok {
			ents, _ = os.ReadDir(dir)
			listed[dir] = ents
		}
		for _, e := range ents {
			n := e.Name()
			if strings.Contains(n, ".tmp-") && owner(dir, n) == name {
				os.Remove(filepath.Join(dir, n))
			}
		}
	}
}
