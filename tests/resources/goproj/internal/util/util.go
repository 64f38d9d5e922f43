// Package util holds small string helpers.
package util

import "strings"

// MaxRetries is exported: a capital letter, not `const`, says so.
const MaxRetries = 3

const (
	defaultSep = "-"
	version    = "1.0"
)

// ID identifies a record.
type ID int

// String: a method of a named non-struct type.
func (id ID) String() string {
	return Join([]Text{"id"})
}

// Text is an alias, not a new type.
type Text = string

// Normalize lowercases and trims.
func Normalize(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

func Join(parts []Text) Text {
	return strings.Join(parts, defaultSep)
}

// notify shares its name with a closure in package server: that call stays
// unresolved, since a bare Go name is never looked up outside its package.
func notify(msg string) {
	_ = msg
}
