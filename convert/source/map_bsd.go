//go:build darwin || freebsd || netbsd || openbsd

package source

const mapPopulate = 0
