package store

import "errors"

// ErrMissing is returned for an unknown id.
var ErrMissing = errors.New("missing")

// Store keeps prices by id.
type Store struct {
	prices map[string]float64
}

// New returns an empty store.
func New() *Store {
	return &Store{prices: map[string]float64{}}
}

// Price looks an id up.
func (s *Store) Price(id string) (float64, error) {
	p, ok := s.prices[id]
	if !ok {
		return 0, ErrMissing
	}
	return p, nil
}
