package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// progress draws one status line on a terminal while a large input is
// read: bytes, rate and, when the size is known, percent and ETA. It is
// silent when stderr is not a terminal, with -q, and for small inputs.
type progress struct {
	w       io.Writer
	name    string
	total   int64
	start   time.Time
	last    time.Time
	drawn   bool
	enabled bool
}

// progressMinSize: inputs smaller than this finish before a line helps.
const progressMinSize = 64 << 20

func newProgress(w io.Writer, name string, total int64, quiet bool) *progress {
	p := &progress{w: w, name: filepath.Base(name), total: total, start: time.Now()}
	p.enabled = !quiet && isTerminal(w) && (total < 0 || total >= progressMinSize)
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) update(done int64) {
	if !p.enabled {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := float64(done) / max(el, 1e-9)
	line := fmt.Sprintf("%s: %s  %s/s", p.name, human(done), human(int64(rate)))
	if p.total > 0 && done <= p.total {
		eta := time.Duration(float64(p.total-done) / max(rate, 1) * float64(time.Second)).Round(time.Second)
		line = fmt.Sprintf("%s: %s / %s (%d%%)  %s/s  ETA %s", p.name, human(done), human(p.total), done*100/p.total, human(int64(rate)), eta)
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func human(n int64) string {
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
