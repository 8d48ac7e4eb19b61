//go:build ignore

// freshmem measures what this machine charges a process for memory it
// writes for the first time, the cost behind the retained view's first
// round after idle (docs/benchmarks.md): after some idle, a VM whose
// kernel reports free memory to its host (virtio-balloon free page
// reporting) hands out pages the host must back anew, which can cost
// twenty times what pages just freed cost.
//
// For huge pages (as the retained view's arrays ask for) and then small
// ones: idle, map SIZE of anonymous memory and write one byte per 4 KiB
// page (fresh), unmap, then the same again at once (pages just freed).
//
// Usage (linux): go run scripts/freshmem.go [-mb 1024] [-idle 20s]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	mb := flag.Int("mb", 1024, "memory to write, in MiB")
	idle := flag.Duration("idle", 20*time.Second, "idle before each fresh write")
	flag.Parse()
	for _, huge := range []bool{true, false} {
		kind := "small pages"
		if huge {
			kind = "huge pages"
		}
		time.Sleep(*idle)
		fresh := touch(*mb, huge)
		again := touch(*mb, huge)
		gb := float64(*mb) / 1024
		fmt.Printf("%s: after %v of idle %.2f s/GiB; right after %.2f s/GiB\n", kind, *idle, fresh/gb, again/gb)
	}
}

// touch maps mb MiB, writes a byte per 4 KiB page and unmaps it; it
// returns the seconds the writes took.
func touch(mb int, huge bool) float64 {
	b, err := unix.Mmap(-1, 0, mb<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		fmt.Fprintln(os.Stderr, "freshmem:", err)
		os.Exit(1)
	}
	advice := unix.MADV_NOHUGEPAGE
	if huge {
		advice = unix.MADV_HUGEPAGE
	}
	_ = unix.Madvise(b, advice)
	start := time.Now()
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	d := time.Since(start).Seconds()
	_ = unix.Munmap(b)
	return d
}
