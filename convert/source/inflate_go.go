//go:build !(cgo && libdeflate)

package source

import "io"

// memberInflater inflates one gzip member at a time; each worker has its
// own. This build uses the pure Go inflater (build with -tags libdeflate
// and libdeflate installed for the faster one).
type memberInflater struct{ block int }

func newMemberInflater(block int) *memberInflater { return &memberInflater{block: block} }

func (m *memberInflater) inflate(f io.ReaderAt, size, start int64) member {
	return inflateMemberGo(f, size, start, m.block)
}

func (m *memberInflater) close() {}

// InflateImpl names the member inflater, for messages and benchmarks.
const InflateImpl = "klauspost/compress"
