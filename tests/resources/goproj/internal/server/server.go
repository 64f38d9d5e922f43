package server

import (
	"errors"
	f "fmt"

	"example.com/goproj/internal/util"
)

// Handler serves one request.
type Handler interface {
	Serve(req string) (string, error)
}

// LoggingHandler is a Handler that also logs.
type LoggingHandler interface {
	Handler
	Log(msg string)
}

// Server routes requests to handlers.
type Server struct {
	Base
	name     string
	handlers map[string]Handler
}

var ErrNoHandler = errors.New("no handler")

func NewServer(name string) *Server {
	return &Server{name: util.Normalize(name), handlers: map[string]Handler{}}
}

func (s *Server) Start() error {
	f.Println("starting", s.name)
	s.register("health", healthHandler{})
	return s.Close()
}
