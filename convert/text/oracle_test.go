package text

import (
	"bytes"
	"strconv"
	"strings"
)

// fileSection is a section as a plain reading of the file shows it, with
// no code shared with the decoder: the header line and the fields of each
// line up to END. Tests take their expected numbers from here.
type fileSection struct {
	name   string
	header string
	rows   [][]string
}

// readSections splits a report into its complete sections, in order. A
// whole report's sections follow the `--------` line; an excerpt (no
// `JAVA PROFILE` header) has none, and may show a section without its END
// line: it then ends at the next TRACE or at the end of the text.
func readSections(data []byte) []fileSection {
	var out []fileSection
	var cur *fileSection
	excerpt := !bytes.HasPrefix(data, []byte("JAVA PROFILE "))
	afterPrelude := excerpt
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !afterPrelude {
			afterPrelude = line == "--------"
			continue
		}
		if cur != nil && excerpt && strings.HasPrefix(line, "TRACE ") {
			out = append(out, *cur)
			cur = nil
		}
		if cur == nil {
			if i := strings.Index(line, " BEGIN"); i > 0 {
				cur = &fileSection{name: line[:i], header: line}
			}
			continue
		}
		if line == cur.name+" END" {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.rows = append(cur.rows, strings.Fields(line))
	}
	if cur != nil && excerpt {
		out = append(out, *cur)
	}
	return out
}

// headerNum returns the number after `key` in a header:
// headerNum("… (total = 742) …", "total = ") = 742.
func headerNum(header, key string) int64 {
	i := strings.Index(header, key)
	if i < 0 {
		return -1
	}
	s := header[i+len(key):]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, _ := strconv.ParseInt(s[:j], 10, 64)
	return n
}

// dataRows keeps the rows whose first field is a rank number.
func dataRows(rows [][]string) [][]string {
	var out [][]string
	for _, r := range rows {
		if len(r) > 0 {
			if _, err := strconv.Atoi(r[0]); err == nil {
				out = append(out, r)
			}
		}
	}
	return out
}

func col(r []string, i int) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(r[i], "%"), 10, 64)
	return n
}

// pctHundredths reads "16.71%" as 1671 (by float, unlike the decoder).
func pctHundredths(s string) int64 {
	f, _ := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	return int64(f*100 + 0.5)
}
