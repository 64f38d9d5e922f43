package server

import "io"

// Base gives every server a list of closers.
type Base struct {
	closers []io.Closer
}

func (b *Base) Close() error {
	b.closers = nil
	return nil
}
