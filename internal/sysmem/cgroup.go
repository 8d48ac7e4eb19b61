package sysmem

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CgroupLimit is the memory limit of the cgroup this process runs
// in (cgroup v2 memory.max, or v1 memory.limit_in_bytes of the memory
// controller's group; the smallest along the path up to the root, as the
// kernel enforces every ancestor's), or 0 when there is none or it
// cannot be read (not linux, no limit, "max").
func CgroupLimit() int64 {
	v1, v2, haveV2 := selfCgroups()
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

// selfCgroups reads /proc/self/cgroup: the path of this process's group
// in the v1 memory controller ("" for none) and in the v2 hierarchy.
func selfCgroups() (v1, v2 string, haveV2 bool) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", "", false
	}
	defer f.Close()
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
	return v1, v2, haveV2
}

// CgroupDirty returns a function that reads the dirty file pages charged
// to this process's memory cgroup (v1 memory.stat total_dirty, v2
// file_dirty), or nil when there is none to read. Inside a container
// whose mount shows the group at the root, the root's file is the
// group's.
func CgroupDirty() func() int64 {
	v1, v2, haveV2 := selfCgroups()
	var mount, group, key string
	switch {
	case v1 != "":
		mount, group, key = "/sys/fs/cgroup/memory", v1, "total_dirty"
	case haveV2:
		mount, group, key = "/sys/fs/cgroup", v2, "file_dirty"
	default:
		return nil
	}
	name := filepath.Join(mount, filepath.Clean("/"+group), "memory.stat")
	if _, err := os.Stat(name); err != nil {
		name = filepath.Join(mount, "memory.stat")
	}
	read := func() int64 {
		b, err := os.ReadFile(name)
		if err != nil {
			return -1
		}
		return statValue(string(b), key)
	}
	if read() < 0 {
		return nil
	}
	return read
}

// statValue is the value of key in a memory.stat file's text ("key
// value" lines), or -1 when it is not there.
func statValue(text, key string) int64 {
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || k != key {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return -1
		}
		return n
	}
	return -1
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
