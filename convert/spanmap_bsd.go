//go:build darwin || freebsd || netbsd || openbsd

package convert

const mapPopulate = 0
