package sysmem

import (
	"os"
	"strconv"
	"strings"
)

// Limit is the memory this process may use: its cgroup's limit when it
// has one (CgroupLimit, else the v2 root's memory.max), else the
// machine's memory (MemTotal), else 0 (unknown).
func Limit() int64 {
	if n := CgroupLimit(); n > 0 {
		return n
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return Total()
}

// Total is the machine's memory (MemTotal), or 0 when the kernel does
// not say (not linux).
func Total() int64 { return meminfo("MemTotal:") }

// Available is the memory the kernel says is available to start new
// programs without swapping (MemAvailable), or 0 when it does not say.
func Available() int64 { return meminfo("MemAvailable:") }

// meminfo reads key's value from /proc/meminfo, in bytes; 0 when it
// cannot.
func meminfo(key string) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return meminfoValue(string(b), key)
}

// meminfoValue is key's value in a meminfo text ("Key:   123 kB"
// lines) in bytes, or 0 when it is not there or not a positive count of
// kB.
func meminfoValue(text, key string) int64 {
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
