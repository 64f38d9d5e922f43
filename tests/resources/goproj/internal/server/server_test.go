package server

import "testing"

func TestStart(t *testing.T) {
	s := NewServer("test")
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
}
