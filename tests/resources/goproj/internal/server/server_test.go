package server

import "testing"

func TestStart(t *testing.T) {
	s := NewServer("test")
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
}

// A parameter named like its package: the type still names the package.
func mustStart(testing *testing.T, s *Server) {
	testing.Helper()
	if s.Start() != nil {
		testing.FailNow()
	}
}
