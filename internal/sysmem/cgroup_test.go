package sysmem

import "testing"

// TestStatValue reads memory.stat as cgroup v1 and v2 write it.
func TestStatValue(t *testing.T) {
	v1 := "cache 1056768\nrss 0\ndirty 4096\nwriteback 0\ntotal_cache 2113536\ntotal_dirty 8192\n"
	v2 := "anon 110592\nfile 1847296\nfile_dirty 12288\nfile_writeback 0\n"
	for _, c := range []struct {
		text, key string
		want      int64
	}{
		{v1, "total_dirty", 8192},
		{v1, "dirty", 4096},
		{v2, "file_dirty", 12288},
		{v2, "total_dirty", -1},
		{"file_dirty x\n", "file_dirty", -1},
		{"", "file_dirty", -1},
	} {
		if got := statValue(c.text, c.key); got != c.want {
			t.Errorf("statValue(%q, %q) = %d, want %d", c.text, c.key, got, c.want)
		}
	}
}

// TestMeminfoValue reads /proc/meminfo's lines as the kernel writes them.
func TestMeminfoValue(t *testing.T) {
	text := "MemTotal:       16314068 kB\nMemFree:          482400 kB\nMemAvailable:   9021032 kB\nHugePages_Total:       0\n"
	for _, c := range []struct {
		key  string
		want int64
	}{
		{"MemTotal:", 16314068 * 1024},
		{"MemAvailable:", 9021032 * 1024},
		{"HugePages_Total:", 0}, // no unit
		{"SwapTotal:", 0},       // absent
	} {
		if got := meminfoValue(text, c.key); got != c.want {
			t.Errorf("meminfoValue(%q) = %d, want %d", c.key, got, c.want)
		}
	}
}
