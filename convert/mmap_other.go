//go:build !unix

package convert

import "os"

func mapFile(*os.File) ([]byte, func()) { return nil, nil }
