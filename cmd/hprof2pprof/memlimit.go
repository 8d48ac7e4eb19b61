package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/internal/sysmem"
)

// sizeFlag is a byte count written "4GiB", "512MB", "1.5G" or "0" (off);
// "auto" (the default) is 3/4 of the memory this process may use.
type sizeFlag struct {
	bytes int64
	auto  bool
}

func (s *sizeFlag) String() string {
	if s.auto {
		return "auto"
	}
	return strconv.FormatInt(s.bytes, 10)
}

func (s *sizeFlag) Set(v string) error {
	if v == "auto" {
		s.auto, s.bytes = true, 0
		return nil
	}
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	s.auto, s.bytes = false, n
	return nil
}

// parseSize reads "4GiB", "4G", "4GB" (all 2^30 multiples), "512M",
// "100K", or a plain byte count.
func parseSize(v string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(v))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("size %q: want bytes like 4GiB, 512MiB or 0 for no limit", v)
	}
	return int64(f * float64(mult)), nil
}

// limit is the number of bytes to allow, 0 for none.
func (s *sizeFlag) limit() int64 {
	if !s.auto {
		return s.bytes
	}
	if avail := sysmem.Limit(); avail > 0 {
		return avail / 4 * 3
	}
	return 0
}

// applyMemoryLimit makes the garbage collector work harder as the heap
// nears the limit (unless GOMEMLIMIT already set one), so the decoders'
// own check sees live data rather than garbage.
func applyMemoryLimit(limit int64) {
	if limit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}
