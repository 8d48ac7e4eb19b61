// Package sysmem reads how much memory this process may use: the limit
// of its memory cgroup (v1 or v2), the dirty pages charged to that group,
// and the machine's total and available memory from /proc/meminfo. Off
// linux, or where the files cannot be read, each says "unknown" (0 or
// nil).
package sysmem
