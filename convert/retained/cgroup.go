package retained

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CgroupMemoryLimit is the memory limit of the cgroup this process runs
// in (cgroup v2 memory.max, or v1 memory.limit_in_bytes of the memory
// controller's group; the smallest along the path up to the root, as the
// kernel enforces every ancestor's), or 0 when there is none or it
// cannot be read (not linux, no limit, "max").
func CgroupMemoryLimit() int64 {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	defer f.Close()
	var v1, v2 string
	haveV2 := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2, haveV2 = parts[2], true
		case hasController(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	best := int64(0)
	if v1 != "" {
		best = smallestLimit("/sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	}
	if haveV2 {
		if l := smallestLimit("/sys/fs/cgroup", v2, "memory.max"); l > 0 && (best == 0 || l < best) {
			best = l
		}
	}
	return best
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// smallestLimit reads file in the group at path under mount and in each
// of its ancestors, and returns the smallest real limit (0 for none).
// Inside a container the group's path may not exist under mount (a
// namespaced mount shows the group at the root): the root's file counts
// then.
func smallestLimit(mount, path, file string) int64 {
	best := int64(0)
	for p := filepath.Clean("/" + path); ; p = filepath.Dir(p) {
		if l := readLimit(filepath.Join(mount, p, file)); l > 0 && (best == 0 || l < best) {
			best = l
		}
		if p == "/" {
			return best
		}
	}
}

// readLimit reads a limit file: a byte count, or "max"; v1 writes a huge
// number (about 2⁶³) for no limit.
func readLimit(name string) int64 {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<60 {
		return 0
	}
	return n
}
