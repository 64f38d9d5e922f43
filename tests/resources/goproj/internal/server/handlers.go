package server

import "example.com/goproj/internal/strutil"

func (s *Server) register(path string, h Handler) {
	s.handlers[strutil.Normalize(path)] = h
	logRoute(path)
}

func (s *Server) Dispatch(path string) (string, error) {
	h, ok := s.handlers[path]
	if !ok {
		return "", ErrNoHandler
	}
	return h.Serve(path)
}

type healthHandler struct{}

func (healthHandler) Serve(req string) (string, error) {
	return "ok", nil
}

func logRoute(path string) {
	notify := func(p string) { _ = p }
	notify(path)
}
